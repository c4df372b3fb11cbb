package dashboard

import (
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/store"
)

// num is a chart value; NaN (no value there) is sent as null, a gap.
type num float64

func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

var gap = num(math.NaN())

// A line is one series of a chart, aligned with the chart's X.
type line struct {
	Label  string `json:"label"`
	Values []num  `json:"values"`
	Points bool   `json:"points,omitempty"` // dots, not a line
	// Slot is the colour a node keeps on every chart of the run (nil:
	// the line's place in its chart).
	Slot *int `json:"slot,omitempty"`
}

// A chart is drawn by the page: X is seconds since the epoch, unless it
// names its own axis (XName), labelled at XTicks when it has them.
type chart struct {
	ID     string  `json:"id"`
	Title  string  `json:"title"`
	Unit   string  `json:"unit"`
	XName  string  `json:"xname,omitempty"`
	XTicks []tick  `json:"xticks,omitempty"`
	LogY   bool    `json:"logy,omitempty"`
	X      []num   `json:"x"`
	Lines  []*line `json:"lines"`
}

// A tick labels a value of a chart's own x axis.
type tick struct {
	At    float64 `json:"at"`
	Label string  `json:"label"`
}

// A span is a stretch of the run: a phase or a fault (To 0: still on).
type span struct {
	Label string  `json:"label"`
	From  float64 `json:"from"`
	To    float64 `json:"to"`
}

// A mark is a moment: an event.
type mark struct {
	At    float64 `json:"at"`
	Label string  `json:"label"`
}

// A timeline is what a run's page draws.
type timeline struct {
	Status string   `json:"status"`
	Phases []span   `json:"phases"`
	Pauses []span   `json:"pauses"` // between phases: no load, not a stall
	Faults []span   `json:"faults"`
	Marks  []mark   `json:"marks"`
	Charts []*chart `json:"charts"`
	// Drawn over their own axis (heights), from the run's findings.
	FindingCharts []finding.Chart `json:"finding_charts"`
	// What has been written so far (the live page shows it).
	Blocks    int   `json:"blocks"`
	Height    int64 `json:"height"`
	Committed int64 `json:"committed"` // the run's txs in blocks
	Samples   int   `json:"samples"`
}

// timelineOf builds the charts of a run from what the database holds: a
// finished run's per-second ledger, or while it goes the blocks, node
// samples and events written so far.
func timelineOf(run *results.Run, series []observe.Sample, events []store.Event) *timeline {
	t := &timeline{Status: string(run.Status), Samples: len(series), FindingCharts: []finding.Chart{}}
	for _, f := range run.AllFindings() {
		t.FindingCharts = append(t.FindingCharts, f.Charts...)
	}
	blocks := blocksOf(run)
	t.Blocks = len(blocks)
	for _, b := range blocks {
		t.Committed += int64(b.Ours)
		t.Height = max(t.Height, b.Height)
	}
	finished := false
	for _, p := range run.Phases {
		if !p.Start.IsZero() {
			finished = true
			t.Phases = append(t.Phases, span{p.Name, unix(p.Start), unix(p.End)})
		}
	}
	for _, f := range run.Faults {
		sp := span{Label: f.What + " " + f.Nodes, From: unix(f.Begin)}
		if !f.End.IsZero() {
			sp.To = unix(f.End)
		}
		t.Faults = append(t.Faults, sp)
	}
	for _, e := range events {
		switch e.Kind {
		case "phase":
			if !finished {
				if n := len(t.Phases); n > 0 {
					t.Phases[n-1].To = unix(e.At)
				}
				t.Phases = append(t.Phases, span{Label: e.Detail, From: unix(e.At)})
			}
		case "perturbation", "rotation":
			t.Marks = append(t.Marks, mark{unix(e.At), e.Kind + ": " + e.Detail})
		}
	}
	for i := 1; i < len(t.Phases); i++ {
		if from, to := t.Phases[i-1].To, t.Phases[i].From; from > 0 && to > from {
			t.Pauses = append(t.Pauses, span{Label: "pause", From: from, To: to})
		}
	}
	if finished {
		t.Charts = append(t.Charts, throughput(run.Phases), latencyPerSecond(run.Phases))
		if m := run.Main(); m != nil {
			t.Charts = append(t.Charts, latencyCurve(m))
		}
	} else {
		t.Charts = append(t.Charts, committedFromBlocks(blocks))
	}
	t.Charts = append(t.Charts, blockRates(blocks))
	t.Charts = append(t.Charts, blockCharts(blocks, findMaxTarget(run))...)
	t.Charts = append(t.Charts, nodeCharts(series)...)
	out := t.Charts[:0]
	for _, c := range t.Charts {
		if c != nil && len(c.X) > 0 {
			out = append(out, c)
		}
	}
	t.Charts = out
	return t
}

// blocksOf is every block of the run once, in height order.
func blocksOf(run *results.Run) []observe.Block {
	seen := map[int64]bool{}
	var out []observe.Block
	for _, p := range run.Phases {
		for _, b := range p.Blocks {
			if !seen[b.Height] {
				seen[b.Height] = true
				out = append(out, b)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Height < out[j].Height })
	return out
}

// perSecond draws one value a second of every phase's ledger, with a gap
// between phases so that no line joins them.
func perSecond(id, title, unit string, phases []*results.Phase, names []string, value func(p *results.Phase, s int) []float64) *chart {
	c := &chart{ID: id, Title: title, Unit: unit}
	for _, n := range names {
		c.Lines = append(c.Lines, &line{Label: n})
	}
	for _, p := range phases {
		if len(p.Ledger.PerSecond) == 0 {
			continue
		}
		if len(c.X) > 0 {
			c.X = append(c.X, num(unix(p.Start)))
			for _, l := range c.Lines {
				l.Values = append(l.Values, gap)
			}
		}
		for i := range p.Ledger.PerSecond {
			c.X = append(c.X, num(unix(p.Start)+float64(i)+0.5))
			for j, v := range value(p, i) {
				c.Lines[j].Values = append(c.Lines[j].Values, num(v))
			}
		}
	}
	return c
}

// throughput draws each second's offered, sent and committed tx/s; the
// committed rate over whole blocks (observe.WindowRates), so a constant
// load draws a flat line.
func throughput(phases []*results.Phase) *chart {
	committed := map[*results.Phase][]float64{}
	for _, p := range phases {
		committed[p] = observe.WindowRates(p.Blocks, p.Start, len(p.Ledger.PerSecond), rateWindow)
	}
	return perSecond("throughput", "Offered, sent and committed tx/s", "tx/s", phases,
		[]string{"offered", "sent", committedLabel, "failed in a block"},
		func(p *results.Phase, i int) []float64 {
			s := p.Ledger.PerSecond[i]
			return []float64{offeredAt(p, i), float64(s.Sent), committed[p][i], float64(s.Failed)}
		})
}

// rateWindow is the span of blocks a committed rate is taken over.
const rateWindow = 5 * time.Second

// committedLabel names the committed line of the throughput charts.
const committedLabel = "committed, 5 s of whole blocks"

// offeredAt is the rate the model scheduled in second i of p: the
// phase's mean in runs stored before it was kept per second, and nothing
// past the load.
func offeredAt(p *results.Phase, i int) float64 {
	switch {
	case p.Offered == nil:
		return p.Figures.OfferedTPS
	case i < len(p.Offered):
		return p.Offered[i]
	}
	return math.NaN()
}

// latencyPerSecond draws the commit latency of the txs seen each second.
// A second in which no block came between two that came on time is
// skipped (the line goes on: blocks of 1.4 s leave every third second
// empty); a second in a stall is a gap.
func latencyPerSecond(phases []*results.Phase) *chart {
	c := &chart{ID: "latency", Title: "Commit latency of the txs seen each second", Unit: "ms",
		Lines: []*line{{Label: "p50"}, {Label: "p99"}}}
	add := func(x float64, p50, p99 float64) {
		c.X = append(c.X, num(x))
		c.Lines[0].Values = append(c.Lines[0].Values, num(p50))
		c.Lines[1].Values = append(c.Lines[1].Values, num(p99))
	}
	for _, p := range phases {
		if len(p.Ledger.PerSecond) == 0 {
			continue
		}
		if len(c.X) > 0 {
			add(unix(p.Start), math.NaN(), math.NaN()) // no line joins two phases
		}
		stalled := observe.Stalled(p.Blocks)
		for i, s := range p.Ledger.PerSecond {
			x := unix(p.Start) + float64(i) + 0.5
			switch {
			case s.LatencyP50 > 0:
				add(x, s.LatencyP50, s.LatencyP99)
			case stalled(p.Start.Add(time.Duration(i)*time.Second + time.Second/2)):
				add(x, math.NaN(), math.NaN())
			}
		}
	}
	return c
}

// committedFromBlocks is a live run's committed tx/s each second: its txs
// over 5 s of whole blocks (the ledger's seconds are written at the end).
func committedFromBlocks(blocks []observe.Block) *chart {
	c := &chart{ID: "throughput", Title: "Committed tx/s so far (the run's txs over 5 s of whole blocks)", Unit: "tx/s"}
	if len(blocks) == 0 {
		return c
	}
	l := &line{Label: "committed"}
	c.Lines = []*line{l}
	first := blocks[0].Seen.Truncate(time.Second)
	n := int(blocks[len(blocks)-1].Seen.Sub(first)/time.Second) + 1
	for s, v := range observe.WindowRates(blocks, first, n, rateWindow) {
		c.X = append(c.X, num(unix(first)+float64(s)+0.5))
		l.Values = append(l.Values, num(v))
	}
	return c
}

// blockRates is committed tx/s block by block: the run's txs each block
// committed over the interval since the block before, at the time seen.
func blockRates(blocks []observe.Block) *chart {
	c := &chart{ID: "block-rate", Title: "Committed tx/s per block (the run's txs / block interval)", Unit: "tx/s",
		Lines: []*line{{Label: "per block", Points: true}}}
	for _, r := range observe.BlockRates(blocks) {
		c.X = append(c.X, num(unix(r.Seen)))
		c.Lines[0].Values = append(c.Lines[0].Values, num(r.TPS))
	}
	return c
}

// latencyCurve is the main phase's commit latency by percentile on log
// scales (the HDR plot), over the report's axis of nines.
func latencyCurve(p *results.Phase) *chart {
	q := p.LatencyCurve()
	c := &chart{ID: "latency-curve", Title: "Commit latency by percentile, " + p.Name + " (HDR, log scales)", Unit: "ms",
		XName: "percentile", LogY: true, Lines: []*line{{Label: "commit latency"}}}
	if len(q) < 2 {
		return c
	}
	last := load.Nines(q[len(q)-2].Percent, 0)
	for _, t := range load.NinesTicks(last) {
		c.XTicks = append(c.XTicks, tick{t.At, t.Label})
	}
	for _, x := range q {
		c.X = append(c.X, num(load.Nines(x.Percent, last)))
		c.Lines[0].Values = append(c.Lines[0].Values, num(max(x.MS, 0.01)))
	}
	return c
}

// A target is the latency a find-max phase held (the slowest tx of each
// block) over the phase's span.
type target struct{ MS, From, To float64 }

// findMaxTarget is the latency the run's find-max phase held, or nil.
func findMaxTarget(run *results.Run) *target {
	if run.FindMax == nil || run.FindMax.Hold != "latency" {
		return nil
	}
	for _, p := range run.Phases {
		if p.KindOf() == scenario.KindFindMax && !p.Start.IsZero() {
			return &target{MS: run.FindMax.TargetMS, From: unix(p.Start), To: unix(p.End)}
		}
	}
	return nil
}

// blockCharts draws each block's latency (and the latency a find-max
// phase held, when held is set), interval and txs.
func blockCharts(blocks []observe.Block, held *target) []*chart {
	lat := &chart{ID: "block-latency", Title: "Commit latency of the run's txs per block", Unit: "ms",
		Lines: []*line{{Label: "block mean", Points: true}, {Label: "block max", Points: true}}}
	if held != nil {
		lat.Lines = append(lat.Lines, &line{Label: "find-max target (block max held)"})
	}
	iv := &chart{ID: "block-interval", Title: "Block interval (header times)", Unit: "s", Lines: []*line{{Label: "interval"}}}
	txs := &chart{ID: "block-txs", Title: "Txs per block", Unit: "txs", Lines: []*line{{Label: "all txs"}, {Label: "the run's"}}}
	for i, b := range blocks {
		x := num(unix(b.Time))
		if b.Ours > 0 {
			lat.X = append(lat.X, num(unix(b.Seen)))
			lat.Lines[0].Values = append(lat.Lines[0].Values, num(b.LatencyMean))
			lat.Lines[1].Values = append(lat.Lines[1].Values, num(b.LatencyMax))
			if held != nil {
				v := gap
				if x := unix(b.Seen); x >= held.From && x <= held.To {
					v = num(held.MS)
				}
				lat.Lines[2].Values = append(lat.Lines[2].Values, v)
			}
		}
		if i > 0 {
			iv.X = append(iv.X, x)
			iv.Lines[0].Values = append(iv.Lines[0].Values, num(b.Time.Sub(blocks[i-1].Time).Seconds()))
		}
		txs.X = append(txs.X, x)
		txs.Lines[0].Values = append(txs.Lines[0].Values, num(b.Txs))
		txs.Lines[1].Values = append(txs.Lines[1].Values, num(b.Ours))
	}
	return []*chart{lat, iv, txs}
}

// nodeCharts draws the node series: mempool size (mean and max across
// nodes), and per node peers, CPU, RSS; the machine's load1.
func nodeCharts(series []observe.Sample) []*chart {
	by := map[string]map[string][]observe.Sample{} // series -> node -> samples
	for _, s := range series {
		if by[s.Series] == nil {
			by[s.Series] = map[string][]observe.Sample{}
		}
		by[s.Series][s.Node] = append(by[s.Series][s.Node], s)
	}
	var out []*chart
	if nodes := by["cometbft_mempool_size"]; len(nodes) > 0 {
		out = append(out, acrossNodes(nodes))
	}
	slots := observe.NodeSlots(series)
	out = append(out,
		perNode("peers", "Peers per node", "peers", by["cometbft_p2p_peers"], 1, false),
		perNode("cpu", "CPU per node", "% of one core", by[observe.SeriesCPU], 100, true),
		perNode("rss", "RSS per node", "MiB", by[observe.SeriesRSS], 1.0/(1<<20), false),
		perNode("load1", "Machine load", "load1", by[observe.SeriesLoad1], 1, false),
	)
	for _, c := range out {
		if c == nil || c.ID == "mempool" {
			continue
		}
		for _, l := range c.Lines {
			slot := slots[l.Label]
			l.Slot = &slot
		}
	}
	return out
}

// acrossNodes is the mean and max of the mempool size over the nodes read
// in each scrape round (the samples of a round share their time).
func acrossNodes(nodes map[string][]observe.Sample) *chart {
	type agg struct{ sum, max, n float64 }
	rounds := map[time.Time]*agg{}
	for _, ss := range nodes {
		for _, s := range ss {
			a := rounds[s.At]
			if a == nil {
				a = &agg{max: math.Inf(-1)}
				rounds[s.At] = a
			}
			a.sum, a.n, a.max = a.sum+s.Value, a.n+1, math.Max(a.max, s.Value)
		}
	}
	at := make([]time.Time, 0, len(rounds))
	for t := range rounds {
		at = append(at, t)
	}
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	c := &chart{ID: "mempool", Title: "Mempool size across nodes", Unit: "txs", Lines: []*line{{Label: "mean"}, {Label: "max"}}}
	for _, t := range at {
		a := rounds[t]
		c.X = append(c.X, num(unix(t)))
		c.Lines[0].Values = append(c.Lines[0].Values, num(a.sum/a.n))
		c.Lines[1].Values = append(c.Lines[1].Values, num(a.max))
	}
	return c
}

// perNode draws one line a node on the union of their sample times;
// rate draws the per-second increase of a counter instead of its value.
func perNode(id, title, unit string, nodes map[string][]observe.Sample, scale float64, rate bool) *chart {
	if len(nodes) == 0 {
		return nil
	}
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	values := make([]map[time.Time]float64, len(names))
	times := map[time.Time]bool{}
	for i, n := range names {
		values[i] = map[time.Time]float64{}
		ss := nodes[n]
		for j, s := range ss {
			switch {
			case rate && j > 0 && s.At.After(ss[j-1].At) && s.Value >= ss[j-1].Value:
				values[i][s.At] = (s.Value - ss[j-1].Value) / s.At.Sub(ss[j-1].At).Seconds() * scale
			case rate:
				continue // the first sample, or a counter that restarted
			default:
				values[i][s.At] = s.Value * scale
			}
			times[s.At] = true
		}
	}
	at := make([]time.Time, 0, len(times))
	for t := range times {
		at = append(at, t)
	}
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	c := &chart{ID: id, Title: title, Unit: unit}
	for _, n := range names {
		c.Lines = append(c.Lines, &line{Label: n})
	}
	// Nodes are sampled at slightly different times: at another node's
	// time a node shows its last value if that is recent, else a gap (a
	// node that was down or not answering).
	last := make([]time.Time, len(names))
	lastV := make([]float64, len(names))
	for _, t := range at {
		c.X = append(c.X, num(unix(t)))
		for i := range names {
			v, ok := values[i][t]
			switch {
			case ok:
				last[i], lastV[i] = t, v
			case !last[i].IsZero() && t.Sub(last[i]) <= holdSample:
				v = lastV[i]
			default:
				v = math.NaN()
			}
			c.Lines[i].Values = append(c.Lines[i].Values, num(v))
		}
	}
	return c
}

// holdSample is how long a node's sample stands for it on the chart: a
// few scrape intervals; longer without one is a gap.
const holdSample = 3 * time.Second
