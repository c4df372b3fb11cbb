package report

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
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

// FuzzPhaseCharts draws a phase's charts from blocks and seconds at the
// edges (heights at int64's, times centuries apart, counts negative or
// huge, latencies NaN or infinite): every chart is drawn or says it was
// not, and nothing panics (a node at height 2^63-1 once made writing
// report.html panic after the run was stored).
func FuzzPhaseCharts(f *testing.F) {
	f.Add(int64(1), int64(2), int64(time.Second), 120.0, 5, 3)
	f.Add(int64(math.MaxInt64), int64(math.MinInt64), int64(math.MaxInt64), math.Inf(1), 1_000_000, 0)
	f.Add(int64(-1), int64(0), int64(-1e18), math.NaN(), -5, 400)
	f.Add(int64(7), int64(7), int64(0), -1e308, math.MaxInt32, 1)
	f.Fuzz(func(t *testing.T, h1, h2, dt int64, lat float64, txs, seconds int) {
		origin := time.Unix(1_700_000_000, 0)
		seconds = min(max(seconds, 0), 600)
		ph := &results.Phase{Name: "steady", Start: origin, End: origin.Add(time.Duration(dt)), Window: [2]float64{0, float64(seconds)}}
		for range seconds {
			ph.Ledger.PerSecond = append(ph.Ledger.PerSecond, load.Second{Sent: int64(txs), Committed: int64(txs), LatencyP50: lat, LatencyP99: lat})
		}
		for i, h := range []int64{h1, h2} {
			at := origin.Add(time.Duration(dt) * time.Duration(i))
			ph.Blocks = append(ph.Blocks, observe.Block{Height: h, Time: at, Seen: at, Txs: txs, Ours: txs, LatencyMean: lat, LatencyMax: lat})
		}
		ph.Ledger.Latency = load.Percentiles{P50: lat, P99: lat}
		for _, c := range PhaseCharts(ph, nil, nil) {
			if !strings.Contains(c.SVG, "<svg") && !strings.HasPrefix(c.SVG, "<p>chart") {
				t.Fatalf("chart %q is neither drawn nor said not to be: %.200s", c.Title, c.SVG)
			}
		}
	})
}

// TestChartsReadOnOneScale: a magnitude's axis starts at zero (99..101
// tx/s was drawn as a cliff); a node keeps its colour on every chart (b,
// second on the CPU chart, was first and blue on a peers chart it has
// alone); compare's side-by-side charts share the top of their y axis.
func TestChartsReadOnOneScale(t *testing.T) {
	p := newPlot("x", "tx/s")
	line(p, "", 0, plotter.XYs{{X: 0, Y: 99}, {X: 1, Y: 101}})
	render("t", p)
	if p.Y.Min != 0 {
		t.Errorf("y axis from %g; want 0", p.Y.Min)
	}

	t0 := time.Unix(1000, 0)
	var series []observe.Sample
	for i := range 5 {
		at := t0.Add(time.Duration(i) * time.Second)
		series = append(series, observe.Sample{At: at, Node: "a", Series: observe.SeriesCPU, Value: float64(i)},
			observe.Sample{At: at, Node: "b", Series: observe.SeriesCPU, Value: float64(i)},
			observe.Sample{At: at, Node: "b", Series: "cometbft_p2p_peers", Value: 3})
	}
	for _, c := range nodeCharts(series, t0, nil, func(p *plot.Plot) *plot.Plot { return p }) {
		if c.Title == "Peers per node" && (strings.Contains(c.SVG, "stroke:#1F77B4") || !strings.Contains(c.SVG, "stroke:#D62728")) {
			t.Errorf("b's line on the peers chart is not b's red of the CPU chart")
		}
	}

	base, _ := fixture()
	cand, _ := fixture()
	for i := range cand.Phases[0].Blocks {
		cand.Phases[0].Blocks[i].Ours, cand.Phases[0].Blocks[i].Txs = 50, 50
	}
	b, c := sideBySide(Side{Run: base}, base.Phases[0], Side{Run: cand}, cand.Phases[0])
	tops := map[string][2]float64{}
	for _, x := range b {
		tops[x.Title] = [2]float64{x.YMax, -1}
	}
	for _, x := range c {
		tops[x.Title] = [2]float64{tops[x.Title][0], x.YMax}
	}
	if tp := tops["Txs per block"]; tp[0] != tp[1] || tp[0] < 100 {
		t.Errorf("txs per block side by side: tops %v; want one, above 100", tp)
	}
	for title, tp := range tops {
		if tp[0] != tp[1] {
			t.Errorf("%s side by side: tops %v", title, tp)
		}
	}
}
