package report

import "testing"

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"default":              "default",
		"evil\x1b]0;pwned\x07": `evil\x1b]0;pwned\x07`,
		"a\nb\tc":              `a\x0ab\x09c`,
		"\u0085next line":      `\x85next line`,
		"ünïcode stays":        "ünïcode stays",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q; want %q", in, got, want)
		}
	}
}
