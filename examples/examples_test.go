// Package examples holds scenario files a user can copy; this test keeps
// every one of them valid.
package examples

import (
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/chainperf/chainperf/internal/chain" // the chains' tables, as chainperf reads them
	"github.com/chainperf/chainperf/internal/scenario"
)

func TestExamplesParse(t *testing.T) {
	files, err := filepath.Glob("*.toml")
	if err != nil || len(files) < 6 {
		t.Fatalf("examples: %v, %v", files, err)
	}
	for _, f := range files {
		s, err := scenario.Open(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if s.Name+".toml" != f {
			t.Errorf("%s: name %q does not match the file", f, s.Name)
		}
		// The examples the issue names each show their experiment.
		want := map[string]string{"qa-saturation.toml": "sweep", "find-max.toml": "find-max", "rotate.toml": "rotate", "users.toml": "steady",
			"cosmos-send.toml": "steady", "cosmos-find-max.toml": "find-max"}[f]
		if want != "" && !s.Experiment.Kind.Has(want) {
			t.Errorf("%s: experiment %v; want %s", f, s.Experiment.Kind, want)
		}
	}
}

// TestEmbedded: the binary carries every example file, each with the
// whole first sentence of its opening comment, or all of it before the
// commands it shows (`scenario examples` cut them at the first line's end).
func TestEmbedded(t *testing.T) {
	files, _ := filepath.Glob("*.toml")
	all := All()
	if len(all) != len(files) {
		t.Fatalf("%d embedded examples, %d files", len(all), len(files))
	}
	for _, e := range all {
		if !strings.HasSuffix(e.About, ".") && !strings.HasSuffix(e.About, ":") || len(e.Text) == 0 {
			t.Errorf("%s: about %q, %d bytes; want a whole sentence", e.Name, e.About, len(e.Text))
		}
	}
}

func TestFirstSentence(t *testing.T) {
	for text, want := range map[string]string{
		"# cosmos-send with 100,000 wallets (a 37.8 MB genesis):\n# every wallet funded. Then more.\n": "cosmos-send with 100,000 wallets (a 37.8 MB genesis): every wallet funded.",
		"# Runs v0.53.4 and\n# stops\n#   chainperf run x.toml\n# not this.":                           "Runs v0.53.4 and stops",
		"# One line.\n#\n# Another paragraph.":                                                         "One line.",
		"name = \"x\"":                                                                                 "",
	} {
		if got := firstSentence(text); got != want {
			t.Errorf("firstSentence(%q) = %q; want %q", text, got, want)
		}
	}
}
