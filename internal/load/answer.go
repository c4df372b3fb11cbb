package load

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The pipelined path's pacer reads a connection's answers without waiting
// (only what has come), so what it holds may end anywhere in an answer.
// parseAnswer reads one HTTP/1.1 answer from the front of what has come,
// or says that not all of it has come yet. A node's answer is input:
// its head and body are bounded, its length is read one way (a
// Content-Length, or chunks), and anything else is an error.

const (
	maxAnswerHead = 16 << 10 // status line and headers
	maxAnswerBody = 4 << 20
)

// An answer is one HTTP answer.
type answer struct {
	status int
	body   []byte // in the bytes parsed, or in scratch when chunked
	close  bool   // Connection: close
}

var errAnswerHead = fmt.Errorf("an answer's head is longer than %d bytes", maxAnswerHead)

// parseAnswer parses the answer at the front of b. n is how many bytes it
// took; 0 (and no error) when it has not all come. A chunked body is put
// together in scratch (returned, to be kept for the next one).
func parseAnswer(b, scratch []byte) (n int, a answer, _ []byte, err error) {
	end := bytes.Index(b[:min(len(b), maxAnswerHead+4)], []byte("\r\n\r\n"))
	if end < 0 {
		if len(b) > maxAnswerHead {
			return 0, a, scratch, errAnswerHead
		}
		return 0, a, scratch, nil
	}
	head := b[:end]
	line, rest, _ := bytes.Cut(head, []byte("\r\n"))
	if a.status, err = statusLine(line); err != nil {
		return 0, a, scratch, err
	}
	length, chunked := -1, false
	for len(rest) > 0 {
		var h []byte
		h, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, value, err := header(h)
		if err != nil {
			return 0, a, scratch, err
		}
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			l, err := strconv.Atoi(string(value))
			if err != nil || l < 0 || value[0] == '+' || length >= 0 && l != length {
				return 0, a, scratch, fmt.Errorf("an answer's Content-Length %.40q is not one length", value)
			}
			length = l
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			if !bytes.EqualFold(value, []byte("chunked")) || chunked {
				return 0, a, scratch, fmt.Errorf("an answer's Transfer-Encoding %.40q: only chunked is read", value)
			}
			chunked = true
		case bytes.EqualFold(name, []byte("Connection")):
			a.close = a.close || bytes.EqualFold(value, []byte("close"))
		}
	}
	n = end + 4
	switch {
	case a.status == 204 || a.status == 304:
		return n, a, scratch, nil // no body, whatever the head says
	case chunked && length >= 0:
		return 0, a, scratch, errors.New("an answer has both a Content-Length and chunks")
	case chunked:
		return chunks(b, n, scratch, a)
	case length < 0:
		return 0, a, scratch, errors.New("an answer without a Content-Length or chunks (its end is unknown)")
	case length > maxAnswerBody:
		return 0, a, scratch, fmt.Errorf("an answer's body is longer than %d bytes", maxAnswerBody)
	case len(b) < n+length:
		return 0, a, scratch, nil
	}
	a.body = b[n : n+length]
	return n + length, a, scratch, nil
}

// statusLine reads "HTTP/1.1 NNN reason" (requests are pipelined only
// on HTTP/1.1).
func statusLine(line []byte) (int, error) {
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) ||
		len(line) > 12 && line[12] != ' ' {
		return 0, fmt.Errorf("an answer's status line %.40q is not HTTP/1.1", line)
	}
	for _, c := range line {
		if ctl[c] {
			return 0, fmt.Errorf("an answer's status line %.40q holds a control character", line)
		}
	}
	code := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("an answer's status line %.40q has no status code", line)
		}
		code = 10*code + int(c-'0')
	}
	if code < 200 {
		return 0, fmt.Errorf("an answer's status %d: an interim answer was not asked for", code)
	}
	return code, nil
}

// header splits a header line into its name and value.
func header(h []byte) (name, value []byte, err error) {
	i := bytes.IndexByte(h, ':')
	if i <= 0 || !token(h[:i]) {
		return nil, nil, fmt.Errorf("an answer's header %.40q is not name: value", h)
	}
	name, value = h[:i], h[i+1:]
	for len(value) > 0 && (value[0] == ' ' || value[0] == '\t') {
		value = value[1:]
	}
	for len(value) > 0 && (value[len(value)-1] == ' ' || value[len(value)-1] == '\t') {
		value = value[:len(value)-1]
	}
	for _, c := range value {
		if ctl[c] {
			return nil, nil, fmt.Errorf("an answer's header %.40q holds a control character", h)
		}
	}
	return name, value, nil
}

// tokenChar and ctl: the bytes of a header name, and the control bytes a
// value or a status line may not hold (a tab it may).
var tokenChar, ctl [256]bool

func init() {
	for c := 0; c < 256; c++ {
		tokenChar[c] = c > ' ' && c < 0x7f && !strings.ContainsRune(`"(),/:;<=>?@[\]{}`, rune(c))
		ctl[c] = c < ' ' && c != '\t' || c == 0x7f
	}
}

// token reports whether b is an HTTP header name.
func token(b []byte) bool {
	for _, c := range b {
		if !tokenChar[c] {
			return false
		}
	}
	return len(b) > 0
}

// chunks reads a chunked body that starts at b[at:] into scratch.
func chunks(b []byte, at int, scratch []byte, a answer) (int, answer, []byte, error) {
	scratch = scratch[:0]
	for {
		eol := bytes.Index(b[at:min(len(b), at+64)], []byte("\r\n"))
		if eol < 0 {
			if len(b)-at >= 64 {
				return 0, a, scratch, errors.New("an answer's chunk size line is too long")
			}
			return 0, a, scratch, nil
		}
		hex, _, _ := bytes.Cut(b[at:at+eol], []byte(";"))
		size, err := strconv.ParseUint(string(bytes.TrimRight(hex, " \t")), 16, 32)
		if err != nil || len(hex) == 0 || hex[0] == '+' {
			return 0, a, scratch, fmt.Errorf("an answer's chunk size %.20q is not hex", hex)
		}
		at += eol + 2
		if size == 0 {
			break
		}
		if len(scratch)+int(size) > maxAnswerBody {
			return 0, a, scratch, fmt.Errorf("an answer's body is longer than %d bytes", maxAnswerBody)
		}
		if len(b) < at+int(size)+2 {
			return 0, a, scratch, nil
		}
		if b[at+int(size)] != '\r' || b[at+int(size)+1] != '\n' {
			return 0, a, scratch, errors.New("an answer's chunk does not end with CRLF")
		}
		scratch = append(scratch, b[at:at+int(size)]...)
		at += int(size) + 2
	}
	// Trailers (ignored) up to an empty line.
	for {
		eol := bytes.Index(b[at:min(len(b), at+maxAnswerHead)], []byte("\r\n"))
		if eol < 0 {
			if len(b)-at >= maxAnswerHead {
				return 0, a, scratch, errAnswerHead
			}
			return 0, a, scratch, nil
		}
		if eol == 0 {
			a.body = scratch
			return at + 2, a, scratch, nil
		}
		if _, _, err := header(b[at : at+eol]); err != nil {
			return 0, a, scratch, err
		}
		at += eol + 2
	}
}
