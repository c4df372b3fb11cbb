package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
)

// TestLegendBesideTheData: a line that runs to the chart's right edge
// ends left of its legend's label (the legend was drawn over the data).
func TestLegendBesideTheData(t *testing.T) {
	p := newPlot("x", "y")
	line(p, "the-label", 0, plotter.XYs{{X: 0, Y: 0}, {X: 10, Y: 10}})
	svg := render("t", p).SVG
	label := regexp.MustCompile(`<text x="([0-9.]+)"[^>]*>the-label<`).FindStringSubmatch(svg)
	data := regexp.MustCompile(`<path d="M[0-9.]+,[0-9.]+L([0-9.]+),[0-9.]+" style="fill:none;stroke:#1F77B4;stroke-width:1.2"`).FindStringSubmatch(svg)
	if label == nil || data == nil {
		t.Fatalf("no legend label or data line in the SVG:\n%s", svg)
	}
	lx, _ := strconv.ParseFloat(label[1], 64)
	dx, _ := strconv.ParseFloat(data[1], 64)
	if lx <= dx {
		t.Errorf("legend label at x=%.0f, data line to x=%.0f: the legend is over the data", lx, dx)
	}
}

// TestColoursDistinct: no two of 40 lines (per-node charts of a large
// testnet) share a colour.
func TestColoursDistinct(t *testing.T) {
	seen := map[[3]uint8]int{}
	for i := range 40 {
		c := colorOf(i)
		k := [3]uint8{c.R, c.G, c.B}
		if j, ok := seen[k]; ok {
			t.Errorf("lines %d and %d share colour %v", j, i, k)
		}
		seen[k] = i
	}
}

// TestNinesAxis: the percentile curve's ticks read 0%, 90%, 99%, 99.9%
// then max, and a run stored before the curve draws its percentiles.
func TestNinesAxis(t *testing.T) {
	var labels []string
	for _, tk := range (ninesTicks{last: 3}).Ticks(0, 3.5) {
		labels = append(labels, tk.Label)
	}
	if got := strconv.Quote(strings.Join(labels, " ")); got != strconv.Quote("0% 90% 99% 99.9% max") {
		t.Errorf("ticks %s", got)
	}
	old := &results.Phase{Start: time.Unix(0, 0)}
	old.Ledger.Latency = load.Percentiles{Count: 10, P50: 1, P90: 2, P99: 3, P999: 4, Max: 5}
	if c := old.LatencyCurve(); len(c) != 5 || c[4].Percent != 100 || c[4].MS != 5 {
		t.Errorf("stored percentiles as a curve: %v", c)
	}
	if _, ok := latencyCurve(old); !ok {
		t.Error("no curve drawn from stored percentiles")
	}
}
