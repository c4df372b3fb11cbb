// Package secret keeps passwords out of everything chainperf writes:
// stdout, stderr, the results database and the reports. Two nets: the
// shapes a secret takes in text (a URL's user:password@, password= and
// its kin in a query or keyword DSN, "password": in JSON), and every
// secret value chainperf was given and parsed (Remember), wherever a
// library's error puts it.
package secret

import (
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Mask is what stands in for a secret.
const Mask = "REDACTED"

var (
	mu    sync.RWMutex
	known []string // longest first: a secret inside another is masked with it
)

// minLen: a shorter value is masked by shape only (masking every "ab" in
// the output would garble it and protect nothing).
const minLen = 4

// Remember adds a secret value to mask wherever it appears from now on.
func Remember(values ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, v := range values {
		if len(v) < minLen {
			continue
		}
		dup := false
		for _, k := range known {
			dup = dup || k == v
		}
		if !dup {
			known = append(known, v)
		}
	}
	sort.Slice(known, func(i, j int) bool { return len(known[i]) > len(known[j]) })
}

// Forget drops every remembered value (tests).
func Forget() {
	mu.Lock()
	known = nil
	mu.Unlock()
}

var (
	// scheme://user:password@ and scheme://token@, with a mistyped scheme
	// (one slash, none, three) too.
	userinfoRE = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*:/{0,3})[^/\s"'<>]*@`)
	// name:password@ after a boundary, with no scheme at all.
	bareRE = regexp.MustCompile(`(^|[\s/"'=(<,])[^/\s"'<>@:,]+:[^/\s"'<>,]*@`)
	// password=, sslpassword= and kin in a query string or keyword DSN,
	// and password:x; not "passwd: no such run" (a word, then a message).
	paramRE = regexp.MustCompile(`(?i)\b((?:ssl)?password|passwd|passphrase|pwd)(\s*=\s*|:)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s&;,'"<>)]+)`)
	// "password": "..." in JSON.
	jsonRE = regexp.MustCompile(`(?i)("(?:ssl)?password"|"passphrase")(\s*:\s*)"(?:[^"\\]|\\.)*"`)
)

// ownSyntax: chainperf's own NAME:X@Y forms (a module at a version), not
// credentials.
func ownSyntax(m string) bool { return strings.HasPrefix(m, "module:") }

// Redact returns s with every secret masked.
func Redact(s string) string {
	if s == "" {
		return s
	}
	// Taking out one user:password@ can make another (in "A:@/@" the
	// first leaves "A:/@"): again until nothing changes. Each pass takes
	// out an @ at least, so there are at most as many as there are @s.
	for range strings.Count(s, "@") + 1 {
		t := userinfo(s)
		if t == s {
			break
		}
		s = t
	}
	s = jsonRE.ReplaceAllString(s, `${1}${2}"`+Mask+`"`)
	s = paramRE.ReplaceAllString(s, "${1}${2}"+Mask)
	mu.RLock()
	defer mu.RUnlock()
	for _, k := range known {
		if strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, Mask)
		}
		// As JSON writes it (a quote or backslash in the password).
		if j := jsonString(k); j != k && strings.Contains(s, j) {
			s = strings.ReplaceAll(s, j, Mask)
		}
	}
	return s
}

// userinfo takes out the user:password@ parts of s, one pass.
func userinfo(s string) string {
	s = userinfoRE.ReplaceAllStringFunc(s, func(m string) string {
		if ownSyntax(m) {
			return m
		}
		return userinfoRE.ReplaceAllString(m, "$1")
	})
	return bareRE.ReplaceAllStringFunc(s, func(m string) string {
		if ownSyntax(strings.TrimLeft(m, " \t\n/\"'=(<,")) {
			return m
		}
		return bareRE.ReplaceAllString(m, "$1")
	})
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// A Writer masks secrets in what is written through it. Each Write is
// masked whole: chainperf writes a line or a block at a time.
type Writer struct{ w io.Writer }

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (sw *Writer) Write(p []byte) (int, error) {
	out := Redact(string(p))
	if _, err := io.WriteString(sw.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap is the writer underneath (to ask whether it is a terminal).
func (sw *Writer) Unwrap() io.Writer { return sw.w }
