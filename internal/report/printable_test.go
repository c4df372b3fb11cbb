package report

import (
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/results"
)

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"default":              "default",
		"evil\x1b]0;pwned\x07": `evil\x1b]0;pwned\x07`,
		"a\nb\tc":              `a\x0ab\x09c`,
		"\u0085next line":      `\u0085next line`,
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

// A finding's text reaches the terminal and report.md as text: a node's
// escape sequence in a summary line or a table cell is written out, not
// sent to the terminal.
func TestFindingTextIsText(t *testing.T) {
	r := &results.Run{Record: results.Record{ID: "r", Status: results.StatusComplete}}
	r.SetFinding(finding.Finding{Source: "chain/x", Title: "X\x1b[2J",
		Tables:  []finding.Table{{Columns: []string{"what", "value"}, Rows: [][]string{{"mismatch", "wallet \x1b]0;pwned\x07"}}}},
		Summary: []finding.Line{{Label: "balances", Text: "off \x1b]0;pwned\x07"}}})
	var sum, md strings.Builder
	Summary(&sum, r, nil)
	Markdown(&md, r)
	for name, out := range map[string]string{"summary": sum.String(), "report.md": md.String()} {
		if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `\x1b]0;pwned\x07`) {
			t.Errorf("%s carries the escape sequence raw:\n%q", name, out)
		}
	}
}

// report.html and the compare page show a label's or a finding's escape
// sequence and direction override as the terminal does, never raw: a
// U+202E reorders what a reader sees, an ESC or a BEL is a byte a tool
// that cats the page would act on.
func TestHTMLHoldsNoControlOrDirection(t *testing.T) {
	r := &results.Run{Record: results.Record{ID: "r", Scenario: "n\u202egnp.exe", Status: results.StatusComplete,
		Labels: map[string]string{"branch": "evil\x1b]0;pwned\x07"}}}
	r.SetFinding(finding.Finding{Source: "chain/x", Title: "X\x1b[2J", Summary: []finding.Line{{Label: "b", Text: "off\u202e"}}})
	var page strings.Builder
	if err := HTML(&page, r, nil); err != nil {
		t.Fatal(err)
	}
	out := page.String()
	if strings.ContainsAny(out, "\x1b\x07\u202e") || !strings.Contains(out, `evil\x1b]0;pwned\x07`) || !strings.Contains(out, `n\u202egnp.exe`) {
		t.Errorf("report.html carries a control or direction character raw, or lost the label")
	}
}
