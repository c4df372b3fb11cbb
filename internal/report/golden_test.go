package report

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/results"
)

// -update rewrites the golden files from what the readers render now:
// run `go test ./internal/report -run Golden -update` and review the diff.
var update = flag.Bool("update", false, "rewrite testdata/golden/ from the current output")

// svgBody is an inline chart: the golden HTML keeps where charts are, not
// their drawing (TestWriteRendersEveryChart checks those).
var svgBody = regexp.MustCompile(`(?s)<svg.*?</svg>`)

// TestGolden: report.md, report.html (charts left out) and the run
// summary of a run with every kind of finding (steady repeats, find-max,
// a grid, a fault, rotations, and a producer's own with a figure table
// and a limit) read as testdata/golden/ says, so that a change in what a
// reader sees shows in review.
func TestGolden(t *testing.T) {
	r, series := fixture()
	r.Sweep = &results.Sweep{Saturation: 400, Evidence: "c=1 r=400 held, c=2 r=400 did not", Cells: []results.Cell{
		{Connections: 1, Rate: 400, Offered: 400, Expected: 35600, Committed: 35600, Share: 1, P99: 1900},
		{Connections: 2, Rate: 400, Offered: 800, Expected: 71200, Committed: 40000, Share: 0.56, P99: 9000, Saturated: true}}}
	r.Sweep.At = &r.Sweep.Cells[0]
	r.SetFinding(finding.Finding{Source: "chain/test", Title: "Test chain", Note: "A chain of the test's.",
		Figures: []finding.Figure{{Name: "msg/s send", Unit: "msg/s", Value: 12.5, Better: finding.Higher},
			{Name: "funds lost", Value: 0, Better: finding.Lower, Must: &finding.Limit{Op: "<=", Value: 0}}},
		Tables: []finding.Table{{Columns: []string{"what", "value"}, Rows: [][]string{{"binary", "/bin/testd"}}}},
		Charts: []finding.Chart{{Title: "Gas by height", XName: "height", Unit: "gas", X: []float64{10, 11, 12},
			Lines: []finding.ChartLine{{Label: "used", Values: []float64{5, math.NaN(), 7}}}}},
		Summary: []finding.Line{{Label: "balances", Text: "conserved"}}})
	var md, html, sum bytes.Buffer
	Markdown(&md, r)
	if err := HTML(&html, r, series); err != nil {
		t.Fatal(err)
	}
	Summary(&sum, r, []string{"r1/report.md"})
	for name, got := range map[string][]byte{
		"report.md":   md.Bytes(),
		"report.html": svgBody.ReplaceAll(html.Bytes(), []byte("<svg/>")),
		"summary.txt": sum.Bytes(),
	} {
		path := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to write it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (rerun with -update and review the diff):\n%s", name, path, got)
		}
	}
}
