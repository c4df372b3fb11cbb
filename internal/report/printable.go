package report

import (
	"fmt"
	"strings"
	"unicode"
)

// Printable returns s with every control character (escape sequences
// included) written as \xNN or \u{NNNN}: names and labels read back from
// a database reach a terminal as text, never as commands to it.
func Printable(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !unicode.IsControl(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u{%04x}`, r)
		}
	}
	return b.String()
}
