package report

import (
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/results"
)

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

// A run with rpc.unsafe on says so in its report; one without does not.
func TestUnsafeRPCIsSaid(t *testing.T) {
	for _, on := range []bool{true, false} {
		r := &results.Run{Setup: results.Setup{Config: map[string]any{"rpc.unsafe": on}}}
		var b strings.Builder
		Markdown(&b, r)
		if got := strings.Contains(b.String(), "rpc.unsafe is on"); got != on {
			t.Errorf("rpc.unsafe = %v: report says so: %v\n%s", on, got, b.String())
		}
	}
}

// A run made with the scale profile names its parts in the report (its
// peers and node settings differ from a full mesh); one without does not.
func TestScaleProfileIsSaid(t *testing.T) {
	for _, parts := range [][]string{{"peers", "procs"}, nil} {
		r := &results.Run{Setup: results.Setup{Scale: parts}}
		var b strings.Builder
		Markdown(&b, r)
		if got := strings.Contains(b.String(), "scale profile: peers, procs"); got != (parts != nil) {
			t.Errorf("scale %v: report says so: %v\n%s", parts, got, b.String())
		}
	}
}
