package nodehttp

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/chainperf/chainperf/internal/secret"
)

// Canonical parses a node's base URL (http or https, a host, an optional
// path) and returns the one form every client of chainperf is given, so
// that the host checked (the loopback rule, --target-is-mine) is the host
// every client sends to. A URL two parsers could read two ways is
// refused: a fragment, a query, a backslash, spaces or control bytes, an
// escape in the host, or a host Go's parser and fasthttp's disagree on.
// Credentials (user:password@) are kept: both clients send them as basic
// auth; Redact is what may be shown.
func Canonical(raw string) (string, *url.URL, error) {
	shown := RedactString(raw)
	for _, r := range raw {
		if r <= ' ' || r == 0x7f || r == '\\' || r > 0x7e {
			return "", nil, fmt.Errorf("%q: a URL with spaces, control bytes, backslashes or non-ASCII is read differently by different parsers: write it plainly", shown)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", nil, fmt.Errorf("%q: not a URL (%s)", shown, strings.TrimPrefix(err.Error(), "parse "+strconv.Quote(raw)+": "))
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", nil, fmt.Errorf("%q: give an http:// or https:// URL", shown)
	case u.Host == "" || u.Opaque != "":
		return "", nil, fmt.Errorf("%q: give an http:// or https:// URL with a host", shown)
	case strings.Contains(raw, "#"):
		return "", nil, fmt.Errorf("%q: a fragment (#...) is not sent: leave it out", shown)
	case strings.Contains(raw, "?"):
		return "", nil, fmt.Errorf("%q: a node's base URL takes no query: leave it out", shown)
	case strings.Contains(u.Host, "%"):
		return "", nil, fmt.Errorf("%q: an escaped host is read differently by different parsers: write it plainly", shown)
	case strings.Count(raw, "@") > 1:
		return "", nil, fmt.Errorf("%q: more than one @: which part is the host is ambiguous", shown)
	}
	if u.User != nil && strings.ContainsAny(u.User.Username(), "/@:\\#?") {
		return "", nil, fmt.Errorf("%q: a user name with / @ : # or ? reads like a host: which part is the host is ambiguous", shown)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", nil, fmt.Errorf("%q: port %s is not 1-65535", shown, p)
		}
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); ip == nil && !hostname(host) {
		return "", nil, fmt.Errorf("%q: %q is neither an IP address nor a host name", shown, host)
	}
	if pw, ok := u.User.Password(); ok {
		secret.Remember(pw, u.User.String())
	} else if u.User != nil {
		secret.Remember(u.User.Username()) // a token as the user
	}
	c := &url.URL{Scheme: u.Scheme, User: u.User, Host: strings.ToLower(u.Host), Path: strings.TrimRight(u.Path, "/")}
	out := c.String()
	// fasthttp sends the load: it must read the same host.
	var fu fasthttp.URI
	if err := fu.Parse(nil, []byte(out)); err != nil || string(fu.Host()) != c.Host || string(fu.Scheme()) != c.Scheme {
		return "", nil, fmt.Errorf("%q: the HTTP clients read this URL's host differently: write it plainly", shown)
	}
	return out, c, nil
}

// hostname: letters, digits, '-' and '.', labels of 1-63.
func hostname(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, l := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if l == "" || len(l) > 63 {
			return false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// Local says whether host is this machine's loopback (127.0.0.0/8, ::1,
// localhost).
func Local(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// RedactString is raw with its secrets masked (for text that may not
// parse).
func RedactString(raw string) string { return secret.Redact(raw) }
