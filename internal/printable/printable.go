// Package printable makes text from outside (a node's moniker, a tx's
// log, an error, a label from a scenario) safe to print: control bytes
// (an escape sequence that retitles a terminal or clears it, a carriage
// return that hides a line) and Unicode's direction overrides are shown
// escaped, never acted on. Newlines and tabs stay.
package printable

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Clean returns s with every control character but \n and \t, every
// invalid UTF-8 byte and every bidirectional override escaped (\x1b,
// \u202e).
func Clean(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafe(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// clean: printable ASCII, newlines and tabs only (the common case).
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

func unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0): // C0, DEL, C1 (0x9b is a CSI)
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e || r == 0x200f || r == 0x061c:
		return true // direction marks and overrides: text that reads other than it is
	}
	return false
}

// A Writer cleans what is written through it, a Write at a time.
type Writer struct{ w io.Writer }

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (pw *Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(pw.w, Clean(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Rendered renders a page into memory through render and writes it with
// every control and direction character escaped as Clean escapes them: a
// label or a node's text in a page reads as it does in the terminal, and
// a rune is never cut between two writes.
func Rendered(w io.Writer, render func(io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return err
	}
	_, err := io.WriteString(w, Clean(b.String()))
	return err
}

// Line is Clean for a one-line field (a name, a label, a cell): newlines
// and tabs are escaped too.
func Line(s string) string {
	return strings.NewReplacer("\n", `\x0a`, "\t", `\x09`).Replace(Clean(s))
}
