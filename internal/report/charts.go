package report

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"math"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
)

// A Chart is one titled SVG of a report.
type Chart struct {
	Title string
	SVG   string
	YMax  float64 // the top of its y axis (0 on a log scale)
}

// A yScale sets the top of charts' y axes by title, so that charts drawn
// side by side read on one scale; nil draws each to its own data.
type yScale map[string]float64

// A band is a stretch of a run's timeline when a perturbation held, in
// seconds since the phase start.
type band struct {
	from, to float64
	label    string
}

// bandColor is the translucent orange of perturbation bands (NRGBA: not
// premultiplied, so the hue survives the low alpha).
var bandColor = color.NRGBA{R: 255, G: 140, B: 0, A: 50}

// bandPlotter shades the bands across the whole height of a plot.
type bandPlotter struct{ bands []band }

func (b bandPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	tx, _ := p.Transforms(&c)
	for _, bd := range b.bands {
		x0, x1 := tx(bd.from), tx(bd.to)
		if x1-x0 < 1 {
			x1 = x0 + 1
		}
		c.FillPolygon(bandColor, []vg.Point{
			{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y},
		})
	}
}

// bands are the run's faults in seconds since origin; one that did not
// end lasts to end.
func bands(faults []results.Fault, origin time.Time, end float64) []band {
	var out []band
	for _, f := range faults {
		bd := band{from: f.Begin.Sub(origin).Seconds(), to: end, label: f.What + " " + f.Nodes}
		if !f.End.IsZero() {
			bd.to = f.End.Sub(origin).Seconds()
		}
		out = append(out, bd)
	}
	return out
}

// newPlot is a chart whose y axis starts at zero (each chart reads a
// magnitude: from a baseline above zero 1 % looks like a cliff), its
// ticks in the values' own precision.
func newPlot(x, y string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.Y.Min = 0
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	return p
}

// A chart is drawn at the page's full width (the page scales it to fit),
// its legend beside the data, never over it.
const chartW, chartH = 11 * vg.Inch, 3.4 * vg.Inch

// render draws p as an SVG to put inline, its legend beside the data.
// A plot that cannot be drawn (a range gonum cannot place: values at
// float64's edge) is a chart that says so, not a report that panics.
func render(title string, p *plot.Plot) Chart { return renderIn(nil, title, p) }

// renderIn is render with the top of the y axis at least scale's for
// title (a linear axis only).
func renderIn(scale yScale, title string, p *plot.Plot) (chart Chart) {
	linear := false
	if _, ok := p.Y.Scale.(plot.LinearScale); ok {
		linear = true
		if top, ok := scale[title]; ok && top > p.Y.Max {
			p.Y.Max = top
		}
	}
	defer func() {
		if linear {
			chart.YMax = p.Y.Max
		}
	}()
	defer func() {
		if err := recover(); err != nil {
			chart = Chart{Title: title, SVG: fmt.Sprintf("<p>chart not drawn: %s</p>", html.EscapeString(fmt.Sprint(err)))}
		}
	}()
	c := vgsvg.NewWith(vgsvg.UseWH(chartW, chartH))
	full := draw.New(c)
	full.FillPolygon(color.White, []vg.Point{{X: 0, Y: 0}, {X: chartW, Y: 0}, {X: chartW, Y: chartH}, {X: 0, Y: chartH}})
	// A margin: gonum sets the top tick's label and the y axis's name on
	// the canvas's edge, where the page cut them.
	const margin = 5 * vg.Millimeter / 2
	dc := draw.Crop(full, margin, -margin, margin, -margin)
	leg := p.Legend
	p.Legend = plot.NewLegend()
	if r := leg.Rectangle(dc); r.Max.X > r.Min.X {
		const gap = 6 * vg.Millimeter / 2
		w := r.Max.X - r.Min.X
		data := draw.Crop(dc, 0, -(w + 2*gap), 0, 0)
		side := draw.Crop(dc, data.Max.X-dc.Min.X+gap, 0, 0, 0)
		p.Draw(data)
		leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, true, 0, -gap
		leg.Draw(side)
	} else {
		p.Draw(dc)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return Chart{Title: title, SVG: fmt.Sprintf("<p>chart failed: %v</p>", err)}
	}
	svg := buf.String()
	if i := strings.Index(svg, "<svg"); i > 0 { // drop the XML prolog: the SVG goes inline
		svg = svg[i:]
	}
	return Chart{Title: title, SVG: svg}
}

// palette is ten colours told apart at a glance (matplotlib's tab10, as
// the dashboard's); lines past the tenth get hues a golden ratio apart
// around the wheel, so no two lines of a chart share a colour.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 255}, {0xd6, 0x27, 0x28, 255}, {0x2c, 0xa0, 0x2c, 255}, {0xff, 0x7f, 0x0e, 255},
	{0x94, 0x67, 0xbd, 255}, {0x8c, 0x56, 0x4b, 255}, {0xe3, 0x77, 0xc2, 255}, {0x17, 0xbe, 0xcf, 255},
	{0x7f, 0x7f, 0x7f, 255}, {0xbc, 0xbd, 0x22, 255},
}

// colorOf is the colour of a chart's line i.
func colorOf(i int) color.RGBA {
	if i < len(palette) {
		return palette[i]
	}
	h := math.Mod(float64(i)*0.6180339887, 1) * 6 // HSV, s 0.8, v 0.75
	v, c := 0.75, 0.75*0.8
	x := c * (1 - math.Abs(math.Mod(h, 2)-1))
	rgb := [6][3]float64{{c, x, 0}, {x, c, 0}, {0, c, x}, {0, x, c}, {x, 0, c}, {c, 0, x}}[int(h)%6]
	m := v - c
	u := func(f float64) uint8 { return uint8(math.Round(255 * (f + m))) }
	return color.RGBA{u(rgb[0]), u(rgb[1]), u(rgb[2]), 255}
}

func line(p *plot.Plot, name string, i int, pts plotter.XYs) {
	if len(pts) == 0 {
		return
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return
	}
	l.Color = colorOf(i)
	l.Width = vg.Points(1.2)
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
}

func scatter(p *plot.Plot, name string, i int, pts plotter.XYs) {
	if len(pts) == 0 {
		return
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return
	}
	s.Color = colorOf(i)
	s.Radius = vg.Points(1.8)
	p.Add(s)
	if name != "" {
		p.Legend.Add(name, s)
	}
}

func hline(p *plot.Plot, name string, i int, y, x0, x1 float64) {
	if x1 <= x0 {
		return
	}
	line(p, name, i, plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
}

// PhaseCharts draws the charts of one load phase of run r (its faults
// shaded, a find-max target drawn): throughput, latency, and the chain's
// blocks; node series when there are any.
func PhaseCharts(ph *results.Phase, r *results.Run, series []observe.Sample) []Chart {
	return phaseCharts(ph, r, series, nil)
}

// phaseCharts is PhaseCharts on scale.
func phaseCharts(ph *results.Phase, r *results.Run, series []observe.Sample, scale yScale) []Chart {
	origin := ph.Start
	end := ph.End.Sub(origin).Seconds()
	var faults []results.Fault
	var target *results.FindMax
	if r != nil {
		faults = r.Faults
		if ph.KindOf() == scenario.KindFindMax {
			target = r.FindMax
		}
	}
	bs := bands(faults, origin, end)
	withBands := func(p *plot.Plot) *plot.Plot {
		if len(bs) > 0 {
			p.Add(bandPlotter{bs})
		}
		return p
	}
	out := []Chart{throughputChart(ph, scale, withBands)}

	lat := withBands(newPlot("seconds since load start (block seen)", "latency ms"))
	var bmean, mx plotter.XYs
	for _, b := range ph.Blocks {
		if b.Ours == 0 {
			continue
		}
		x := b.Seen.Sub(origin).Seconds()
		bmean = append(bmean, plotter.XY{X: x, Y: b.LatencyMean})
		mx = append(mx, plotter.XY{X: x, Y: b.LatencyMax})
	}
	scatter(lat, "block mean", 0, bmean)
	scatter(lat, "block max", 1, mx)
	if len(bmean) > 0 {
		x0, x1 := bmean[0].X, bmean[len(bmean)-1].X
		hline(lat, fmt.Sprintf("p50 %.0f ms", ph.Ledger.Latency.P50), 2, ph.Ledger.Latency.P50, x0, x1)
		hline(lat, fmt.Sprintf("p99 %.0f ms", ph.Ledger.Latency.P99), 3, ph.Ledger.Latency.P99, x0, x1)
		if target != nil && target.Hold == "latency" {
			hline(lat, fmt.Sprintf("find-max target %.0f ms (block max held)", target.TargetMS), 4, target.TargetMS, 0, end)
		}
	}
	out = append(out, renderIn(scale, "Commit latency per block", lat))

	if c, ok := latencyCurve(ph); ok {
		out = append(out, c)
	}
	out = append(out, blockCharts(ph, origin, target, scale, withBands)...)
	return append(out, nodeCharts(series, origin, scale, withBands)...)
}

// throughputChart draws each second's offered and sent tx/s, the committed
// rate over 5 s of whole blocks (flat under a constant load), and each
// block's rate.
func throughputChart(ph *results.Phase, scale yScale, withBands func(*plot.Plot) *plot.Plot) Chart {
	origin := ph.Start
	tp := withBands(newPlot("seconds since load start", "tx/s"))
	var offered, sent, committed, perBlock plotter.XYs
	rates := observe.WindowRates(ph.Blocks, origin, len(ph.Ledger.PerSecond), 5*time.Second)
	for i, s := range ph.Ledger.PerSecond {
		x := float64(i) + 0.5
		sent = append(sent, plotter.XY{X: x, Y: float64(s.Sent)})
		if !math.IsNaN(rates[i]) {
			committed = append(committed, plotter.XY{X: x, Y: rates[i]})
		}
		if i < len(ph.Offered) {
			offered = append(offered, plotter.XY{X: x, Y: ph.Offered[i]})
		}
	}
	for _, b := range observe.BlockRates(ph.Blocks) {
		perBlock = append(perBlock, plotter.XY{X: b.Seen.Sub(origin).Seconds(), Y: b.TPS})
	}
	if ph.Offered == nil && ph.Figures.OfferedTPS > 0 { // runs stored before it was kept per second
		hline(tp, "offered (phase mean)", 3, ph.Figures.OfferedTPS, 0, ph.Length.Seconds())
	} else {
		line(tp, "offered (the rate model's)", 3, offered)
	}
	line(tp, "sent (by send time)", 0, sent)
	line(tp, "committed, 5 s of whole blocks", 1, committed)
	scatter(tp, "committed per block (txs / interval)", 2, perBlock)
	return renderIn(scale, "Offered, sent and committed tx/s", tp)
}

// latencyCurve draws the phase's commit latency by percentile on log
// scales, the HDR plot: x is 1/(1-p) (each decade one more nine: 90, 99,
// 99.9 %), so the tail a histogram's bars hide spreads across the chart.
func latencyCurve(ph *results.Phase) (Chart, bool) {
	q := ph.LatencyCurve()
	if len(q) < 2 {
		return Chart{}, false
	}
	p := newPlot("percentile of the phase's committed txs", "latency ms (log)")
	p.Y.Min = math.Inf(1) // a log scale has no zero
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	last := load.Nines(q[len(q)-2].Percent, 0)
	var pts plotter.XYs
	for _, x := range q {
		pts = append(pts, plotter.XY{X: load.Nines(x.Percent, last), Y: math.Max(x.MS, 0.01)})
	}
	line(p, "commit latency", 0, pts)
	scatter(p, "", 0, pts)
	p.X.Tick.Marker = ninesTicks{last}
	return render("Commit latency by percentile (HDR, log scales)", p), true
}

// blockCharts are the phase's charts by height (interval, txs, size,
// rounds) and per minute (blocks, txs); none with fewer than two blocks.
func blockCharts(ph *results.Phase, origin time.Time, target *results.FindMax, scale yScale, withBands func(*plot.Plot) *plot.Plot) []Chart {
	if len(ph.Blocks) < 2 {
		return nil
	}
	var out []Chart
	interval, txs, size, rounds := newPlot("height", "seconds"), newPlot("height", "txs"), newPlot("height", "bytes"), newPlot("height", "round")
	var iv, tx, sz, rd plotter.XYs
	for i, b := range ph.Blocks {
		x := float64(b.Height)
		if i > 0 {
			iv = append(iv, plotter.XY{X: x, Y: b.Time.Sub(ph.Blocks[i-1].Time).Seconds()})
		}
		tx = append(tx, plotter.XY{X: x, Y: float64(b.Txs)})
		sz = append(sz, plotter.XY{X: x, Y: float64(b.Bytes)})
		if b.Round >= 0 {
			rd = append(rd, plotter.XY{X: x, Y: float64(b.Round)})
		}
	}
	line(interval, "block interval (header times)", 0, iv)
	if target != nil && target.Hold != "latency" && len(iv) > 0 {
		hline(interval, fmt.Sprintf("find-max target %.0f ms", target.TargetMS), 4, target.TargetMS/1000, iv[0].X, iv[len(iv)-1].X)
	}
	line(txs, "txs per block", 0, tx)
	line(size, "block size", 0, sz)
	scatter(rounds, "commit round", 0, rd)
	rounds.Y.Min, rounds.Y.Max = 0, math.Max(1, rounds.Y.Max)
	out = append(out, renderIn(scale, "Block interval", interval), renderIn(scale, "Txs per block", txs), renderIn(scale, "Block size", size), renderIn(scale, "Rounds per height", rounds))
	bpm, tpm := withBands(newPlot("seconds since load start (block time)", "blocks/min")), withBands(newPlot("seconds since load start (block time)", "txs/min"))
	b, t := perMinute(ph.Blocks, origin)
	if len(b) == 0 {
		return out // not a whole minute of blocks
	}
	line(bpm, "blocks in the minute before", 0, b)
	line(tpm, "txs in the minute before", 0, t)
	out = append(out, renderIn(scale, "Blocks per minute", bpm), renderIn(scale, "Txs per minute", tpm))
	return out
}

// perMinute are the QA's blocks/min and txs/min at each block: the blocks
// and txs whose header time falls in the minute before it, (t-60s, t].
// Only whole minutes: a block less than a minute after the first has
// none (a part of a minute scaled up read 29,700 txs/min five seconds
// into a run).
func perMinute(blocks []observe.Block, origin time.Time) (bpm, tpm plotter.XYs) {
	first, from, txs := blocks[0].Time, 0, 0
	for i, b := range blocks {
		txs += b.Txs
		for from <= i && !blocks[from].Time.After(b.Time.Add(-time.Minute)) {
			txs -= blocks[from].Txs
			from++
		}
		if b.Time.Sub(first) < time.Minute {
			continue
		}
		x := b.Time.Sub(origin).Seconds()
		bpm = append(bpm, plotter.XY{X: x, Y: float64(i - from + 1)})
		tpm = append(tpm, plotter.XY{X: x, Y: float64(txs)})
	}
	return bpm, tpm
}

// nodeCharts draws the scraped and sampled node series: mempool size
// (mean and max across nodes), peers, RSS and CPU per node, machine load.
func nodeCharts(series []observe.Sample, origin time.Time, scale yScale, withBands func(*plot.Plot) *plot.Plot) []Chart {
	if len(series) == 0 {
		return nil
	}
	by := map[string]map[string]plotter.XYs{} // series -> node -> points
	for _, s := range series {
		if by[s.Series] == nil {
			by[s.Series] = map[string]plotter.XYs{}
		}
		by[s.Series][s.Node] = append(by[s.Series][s.Node], plotter.XY{X: s.At.Sub(origin).Seconds(), Y: s.Value})
	}
	slot := observe.NodeSlots(series)
	perNode := func(title, y, name string, unit float64, rate bool) *Chart {
		nodes := by[name]
		if len(nodes) == 0 {
			return nil
		}
		p := withBands(newPlot("seconds since load start", y))
		names := make([]string, 0, len(nodes))
		for n := range nodes {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			pts := nodes[n]
			var out plotter.XYs
			for j, pt := range pts {
				switch {
				case rate && j > 0 && pt.X > pts[j-1].X:
					out = append(out, plotter.XY{X: pt.X, Y: (pt.Y - pts[j-1].Y) / (pt.X - pts[j-1].X) * unit})
				case !rate:
					out = append(out, plotter.XY{X: pt.X, Y: pt.Y * unit})
				}
			}
			line(p, n, slot[n], out)
		}
		c := renderIn(scale, title, p)
		return &c
	}
	var out []Chart
	if nodes := by["cometbft_mempool_size"]; len(nodes) > 0 {
		out = append(out, mempoolChart(nodes, scale, withBands))
	}
	for _, c := range []*Chart{
		perNode("Peers per node", "peers", "cometbft_p2p_peers", 1, false),
		perNode("RSS per node", "MiB", observe.SeriesRSS, 1.0/(1<<20), false),
		perNode("CPU per node", "% of one core", observe.SeriesCPU, 100, true),
		perNode("Machine load", "load1", observe.SeriesLoad1, 1, false),
	} {
		if c != nil {
			out = append(out, *c)
		}
	}
	return out
}

// mempoolChart is the mempool size's mean and max across nodes, per
// scrape round (samples of one round share their time).
func mempoolChart(nodes map[string]plotter.XYs, scale yScale, withBands func(*plot.Plot) *plot.Plot) Chart {
	type agg struct{ sum, max, n float64 }
	rounds := map[float64]*agg{}
	for _, pts := range nodes {
		for _, pt := range pts {
			a := rounds[pt.X]
			if a == nil {
				a = &agg{}
				rounds[pt.X] = a
			}
			a.sum, a.n, a.max = a.sum+pt.Y, a.n+1, math.Max(a.max, pt.Y)
		}
	}
	xs := make([]float64, 0, len(rounds))
	for x := range rounds {
		xs = append(xs, x)
	}
	sort.Float64s(xs)
	var mean, mx plotter.XYs
	for _, x := range xs {
		a := rounds[x]
		mean = append(mean, plotter.XY{X: x, Y: a.sum / a.n})
		mx = append(mx, plotter.XY{X: x, Y: a.max})
	}
	p := withBands(newPlot("seconds since load start", "txs"))
	line(p, "mean across nodes", 0, mean)
	line(p, "max across nodes", 1, mx)
	return renderIn(scale, "Mempool size", p)
}

// SweepCharts draws a sweep's throughput against offered load and its
// latency against throughput.
func SweepCharts(sw *results.Sweep) []Chart {
	if sw == nil || len(sw.Cells) == 0 {
		return nil
	}
	cells := append([]results.Cell(nil), sw.Cells...)
	sort.SliceStable(cells, func(i, j int) bool { return cells[i].Offered < cells[j].Offered })
	tp, lat := newPlot("offered tx/s", "committed tx/s (committed / (T-1))"), newPlot("committed tx/s", "p99 latency ms")
	var got, ideal, lp plotter.XYs
	for _, c := range cells {
		per := 0.0
		if c.Offered > 0 && c.Share > 0 {
			per = c.Share * c.Offered
		}
		got = append(got, plotter.XY{X: c.Offered, Y: per})
		ideal = append(ideal, plotter.XY{X: c.Offered, Y: c.Offered})
		lp = append(lp, plotter.XY{X: per, Y: c.P99})
	}
	line(tp, "offered", 1, ideal)
	line(tp, "committed", 0, got)
	scatter(tp, "", 0, got)
	if sw.Saturation > 0 {
		v, err := plotter.NewLine(plotter.XYs{{X: sw.Saturation, Y: 0}, {X: sw.Saturation, Y: cells[len(cells)-1].Offered}})
		if err == nil {
			v.Color, v.Dashes = plotutil.Color(2), []vg.Length{vg.Points(4), vg.Points(3)}
			tp.Add(v)
			tp.Legend.Add(fmt.Sprintf("saturation %.0f tx/s", sw.Saturation), v)
		}
	}
	scatter(lat, "cells", 0, lp)
	return []Chart{render("Throughput vs offered load", tp), render("Latency vs throughput", lat)}
}

// FindingCharts draws the charts the run's findings hand over, each over
// its own axis; a gap in a line (NaN) breaks it.
func FindingCharts(r *results.Run) []Chart {
	var out []Chart
	for _, f := range r.AllFindings() {
		for _, c := range f.Charts {
			p := newPlot(c.XName, c.Unit)
			top := 0.0
			for _, l := range c.Lines {
				for _, v := range l.Values {
					if !math.IsNaN(v) && !math.IsInf(v, 0) {
						top = max(top, v)
					}
				}
			}
			// Room above the lines for the legend, a line of it each.
			p.Y.Min, p.Y.Max = 0, top*(1+0.12*float64(len(c.Lines)))+1
			p.Legend.Top = true
			p.X.Tick.Marker = wholeTicks{}
			for i, l := range c.Lines {
				first := true
				for _, seg := range segments(c.X, l.Values) {
					name := ""
					if first {
						name = l.Label
					}
					if len(seg) == 1 {
						scatter(p, name, i, seg)
					} else {
						line(p, name, i, seg)
					}
					first = false
				}
			}
			out = append(out, render(c.Title, p))
		}
	}
	return out
}

// segments splits a line at its gaps (NaN values).
func segments(xs, ys []float64) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range min(len(xs), len(ys)) {
		if math.IsNaN(ys[i]) || math.IsInf(ys[i], 0) {
			if len(cur) > 0 {
				out, cur = append(out, cur), nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: xs[i], Y: ys[i]})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
