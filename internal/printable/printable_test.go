package printable

import (
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\nline two\tcol":      "plain text\nline two\tcol",
		"moniker\x1b]0;pwned\x07\x1b[2J": `moniker\x1b]0;pwned\x07\x1b[2J`,
		"ok\rFAKE PASS":                  `ok\x0dFAKE PASS`,
		"csi \u009b31m":                  `csi \u009b31m`,
		"abc\u202edcba":                  `abc\u202edcba`,
		"bad \xff byte":                  `bad \xff byte`,
		"déjà vu, 東京, ✓":                 "déjà vu, 東京, ✓",
		"del\x7f":                        `del\x7f`,
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q; want %q", in, got, want)
		}
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"a\x1b[2Jb", "\u202e", "\xff\xfe", "ok\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		for _, r := range out {
			if unsafe(r) {
				t.Fatalf("Clean(%q) = %q holds %U", s, out, r)
			}
		}
		if strings.ContainsRune(out, 0xfffd) && !strings.ContainsRune(s, 0xfffd) {
			t.Fatalf("Clean(%q) = %q made a replacement character", s, out)
		}
	})
}
