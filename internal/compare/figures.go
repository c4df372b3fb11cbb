package compare

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
)

// Values are the figures of one run, by figure name (a sample a repeat of
// its steady phase, else one), and what the run was (two runs are
// comparable when these agree).
type Values struct {
	Run      string
	Scenario string
	Kind     string // the main phase's name without its repeat count
	Model    string
	Workload string
	Shape    string // the testnet: its nodes by role
	Node     string // the node binary: its version and what it was built from
	Settings string // the config, genesis and app.toml settings the scenario set
	Status   string // a run that did not complete is no baseline
	Trial    Trial  // the run's place in an interleaved comparison, if it was one
	Commit   string // the run's commit label ("" none): where a trend's shift came in
	Figures  map[string][]Sample
	// Meta describes the figures a producer handed over (a finding's),
	// which Describe does not know by name.
	Meta map[string]Figure
	// Profiles are the run's profiles, Roles its nodes' roles: where
	// compare finds the functions that grew.
	Profiles []observe.Profile
	Roles    map[string]string
}

// FigureOf is how a producer's figure compares: its direction, gate,
// unit and spread as the producer gave them.
func FigureOf(x finding.Figure) Figure {
	return Figure{Name: x.Name, Unit: x.Unit, Higher: x.Better == finding.Higher, Gate: x.Gate, Points: x.Points, PartOf: x.PartOf,
		Resolution: x.Resolution, Precise: x.Precise}
}

// DescribeIn returns the Figure a name stands for in these runs: as a
// run's producer described it (with the coarsest resolution any run's
// measure had), else as Describe does.
func DescribeIn(vs []Values, name string) Figure {
	found := false
	var out Figure
	for _, v := range vs {
		f, ok := v.Meta[name]
		switch {
		case !ok:
		case !found:
			out, found = f, true
		case f.Resolution > out.Resolution:
			out.Resolution = f.Resolution
		}
	}
	if !found {
		return Describe(name)
	}
	return out
}

// Center is the run's value of a figure: the geometric mean of its
// samples (a sample a steady repeat), as comparisons and trends take it.
func (v Values) Center(name string) (float64, bool) {
	xs := v.Figures[name]
	if len(xs) == 0 {
		return 0, false
	}
	return center(DescribeIn([]Values{v}, name), values(xs)), true
}

// first returns the figure's first sample, if the run has one.
func (v Values) first(name string) (float64, bool) {
	xs := v.Figures[name]
	if len(xs) == 0 {
		return 0, false
	}
	return xs[0].Value, true
}

func (v Values) set(name string, x float64) {
	v.Figures[name] = []Sample{{Value: x}}
}

// The headline figures, in report order.
var headline = []Figure{
	{Name: "committed tx/s", Unit: "tx/s", Higher: true, Gate: true},
	{Name: "max sustainable tx/s", Unit: "tx/s", Higher: true, Gate: true},
	{Name: "saturation tx/s", Unit: "tx/s", Higher: true, Gate: true},
	{Name: "latency p50", Unit: "ms", Gate: true},
	{Name: "latency p99", Unit: "ms", Gate: true},
	{Name: "rejected share", Unit: "share", Gate: true, Points: true},
	{Name: "block interval", Unit: "s"},
}

func order(name string) int {
	for i, f := range headline {
		if f.Name == name {
			return i
		}
	}
	return len(headline)
}

// Describe returns the Figure a name stands for: a headline figure, or a
// per-node one ("cpu validator0", "rss validator0", "alloc validator0
// FUNC"), which informs but does not gate. A producer's figures
// describe themselves (DescribeIn).
func Describe(name string) Figure {
	for _, f := range headline {
		if f.Name == name {
			return f
		}
	}
	switch {
	case strings.HasPrefix(name, "processed share ["):
		return Figure{Name: name, Unit: "share", Higher: true, Gate: true, Points: true}
	case strings.HasPrefix(name, "committed tx/s ["):
		return Figure{Name: name, Unit: "tx/s", Higher: true, Gate: true}
	case strings.HasPrefix(name, "latency p99 ["), strings.HasPrefix(name, "latency p50 ["):
		return Figure{Name: name, Unit: "ms", Gate: true}
	case strings.HasPrefix(name, "cpu "):
		return Figure{Name: name, Unit: "cores"}
	case strings.HasPrefix(name, "rss "):
		return Figure{Name: name, Unit: "MiB"}
	case strings.HasPrefix(name, "alloc "):
		return Figure{Name: name, Unit: "share", Points: true}
	}
	return Figure{Name: name}
}

// FromRun takes a run's figures: each steady repeat's (or the main
// phase's) throughput, latency and rejected share with their batch-means
// standard errors, the block interval, every finding's figures as its
// producer described them (find-max's with the SE its confidence interval
// implies, a grid's saturation point, a chain's), each node's mean CPU
// (cores) and peak RSS from series, and the top allocators' shares of
// each allocs or heap profile.
func FromRun(r *results.Run, series []observe.Sample) Values {
	v := Values{Run: r.ID, Scenario: r.Scenario, Status: string(r.Status), Shape: shapeOf(r),
		Node: r.Versions.Node, Settings: settingsOf(r.Setup),
		Figures: map[string][]Sample{}, Meta: map[string]Figure{}}
	if r.Trial != nil {
		v.Trial = Trial{Session: r.Trial.Session, Round: r.Trial.Round}
	}
	v.Commit = r.Labels["commit"]
	if p := r.Main(); p != nil && p.KindOf() == scenario.KindQA {
		v.Kind, v.Workload = p.KindOf(), p.Workload
		v.Model = qaGrid(r) // the steady run's load is the saturation point, which may differ
		qaFigures(v, r)
	} else if p != nil {
		v.Kind = p.KindOf()
		v.Model, v.Workload = p.Model, p.Workload
		phaseFigures(v, r, p)
	}
	// The producers' own figures (find-max's, a grid's saturation point,
	// a chain's by message kind); a figure with a limit is a check the
	// criteria judge, not a measure.
	for _, f := range r.AllFindings() {
		for _, x := range f.Figures {
			if x.Must != nil {
				continue
			}
			fig := FigureOf(x)
			fig.Source = f.Source
			v.Meta[x.Name] = fig
			v.Figures[x.Name] = []Sample{{Value: x.Value, SE: x.SE, DF: x.DF}}
		}
	}
	nodeFigures(v, series)
	versionFigures(v, r)
	v.Profiles, v.Roles = r.Profiles, map[string]string{}
	for _, n := range r.Nodes {
		v.Roles[n.Name] = n.Role
	}
	for _, p := range r.Profiles {
		if p.Kind != "allocs" && p.Kind != "heap" || p.Seconds > 0 {
			continue // a window profile is diffed by role (Why), not a figure
		}
		for i, t := range p.Top {
			if i == 3 {
				break
			}
			v.set(fmt.Sprintf("alloc %s %s", p.Node, t.Func), t.Share)
		}
	}
	return v
}

// phaseFigures are the headline figures of the main phase p (of each
// steady repeat, when p is steady), a sample a phase.
func phaseFigures(v Values, r *results.Run, p *results.Phase) {
	phases := []*results.Phase{p}
	if p.KindOf() == scenario.KindSteady {
		phases = phases[:0]
		for _, q := range r.Phases {
			if q.KindOf() == scenario.KindSteady {
				phases = append(phases, q)
			}
		}
	}
	for _, q := range phases {
		add := func(name string, value float64, batch func(load.Second) (float64, bool)) {
			v.Figures[name] = append(v.Figures[name], withSE(value, q, batch))
		}
		if x, ok := blockSE(q.Figures.CommittedTPS, q); ok {
			v.Figures["committed tx/s"] = append(v.Figures["committed tx/s"], x)
		} else {
			add("committed tx/s", q.Figures.CommittedTPS, func(s load.Second) (float64, bool) { return float64(s.Committed), true })
		}
		add("rejected share", q.Figures.RejectedShare, func(s load.Second) (float64, bool) {
			return float64(s.Rejected) / float64(s.Sent), s.Sent > 0
		})
		if q.Ledger.Fates[load.FateCommitted] > 0 {
			add("latency p50", q.Figures.LatencyP50, func(s load.Second) (float64, bool) { return s.LatencyP50, s.LatencyP50 > 0 })
			add("latency p99", q.Figures.LatencyP99, func(s load.Second) (float64, bool) { return s.LatencyP99, s.LatencyP99 > 0 })
		}
	}
	if f := p.Figures; f.Blocks > 1 {
		v.set("block interval", f.BlockInterval)
	}
}

// nodeFigures are each node's mean CPU (cores) and peak RSS (MiB) from
// its series.
func nodeFigures(v Values, series []observe.Sample) {
	type span struct {
		first, last observe.Sample
		n           int
	}
	cpu := map[string]*span{}
	for _, s := range series {
		switch s.Series {
		case observe.SeriesCPU:
			sp := cpu[s.Node]
			if sp == nil {
				sp = &span{first: s}
				cpu[s.Node] = sp
			}
			sp.last = s
			sp.n++
		case observe.SeriesRSS:
			name := "rss " + s.Node
			old, _ := v.first(name)
			v.set(name, max(old, s.Value/(1<<20)))
		}
	}
	for node, sp := range cpu {
		// A restarted node's counter starts again: its mean over the run
		// is then not known.
		if d := sp.last.At.Sub(sp.first.At).Seconds(); sp.n > 1 && d > 0 && sp.last.Value >= sp.first.Value {
			v.set("cpu "+node, (sp.last.Value-sp.first.Value)/d)
		}
	}
}

// versionFigures are, in a run whose nodes ran more than one version,
// each version's mean CPU and peak RSS over its nodes ("cpu [0.38.26]"),
// by the version each node said last: a mixed network's releases side by
// side, and the same release across runs.
func versionFigures(v Values, r *results.Run) {
	by := map[string][]string{}
	for _, n := range r.Nodes {
		said := n.ReportedEnd
		if said == "" {
			said = n.Reported
		}
		if said != "" && n.Role != "rotating" {
			by[said] = append(by[said], n.Name)
		}
	}
	if len(by) < 2 {
		return
	}
	for ver, nodes := range by {
		var cpu, rss float64
		var cpus int
		for _, n := range nodes {
			if x, ok := v.first("cpu " + n); ok {
				cpu += x
				cpus++
			}
			if x, ok := v.first("rss " + n); ok {
				rss = max(rss, x)
			}
		}
		if cpus > 0 {
			v.set("cpu ["+ver+"]", cpu/float64(cpus))
		}
		if rss > 0 {
			v.set("rss ["+ver+"]", rss)
		}
	}
}

// qaFigures are a QA run's figures by phase, each named with its cell,
// so that two grids compare cell by cell: every cell's processed share
// of expected and p99 latency, the steady run's committed tx/s and
// latency. Two releases whose steady runs ran at different loads have
// no steady figure in common: the grid is then what compares.
func qaFigures(v Values, r *results.Run) {
	for _, q := range r.Phases {
		if q.KindOf() != scenario.KindQA {
			continue
		}
		add := func(name string, value float64, batch func(load.Second) (float64, bool)) {
			v.Figures[name] = append(v.Figures[name], withSE(value, q, batch))
		}
		cellName := strings.TrimPrefix(q.Name, scenario.KindQA+" ")
		c, rate, cell := results.CellOf(q.Name)
		if cell && r.Sweep != nil {
			for _, x := range r.Sweep.Cells {
				if x.Connections == c && x.Rate == rate && x.Offered > 0 {
					offered := x.Offered
					add("processed share ["+cellName+"]", x.Share, func(s load.Second) (float64, bool) {
						return float64(s.Committed) / offered, true
					})
				}
			}
		} else if !cell {
			add("committed tx/s ["+cellName+"]", q.Figures.CommittedTPS, func(s load.Second) (float64, bool) { return float64(s.Committed), true })
			if q.Ledger.Fates[load.FateCommitted] > 0 {
				add("latency p50 ["+cellName+"]", q.Figures.LatencyP50, func(s load.Second) (float64, bool) { return s.LatencyP50, s.LatencyP50 > 0 })
			}
		}
		if q.Ledger.Fates[load.FateCommitted] > 0 {
			add("latency p99 ["+cellName+"]", q.Figures.LatencyP99, func(s load.Second) (float64, bool) { return s.LatencyP99, s.LatencyP99 > 0 })
		}
	}
}

// qaGrid says what a QA run's grid was: its cells and their length.
func qaGrid(r *results.Run) string {
	var cells []string
	var length time.Duration
	for _, q := range r.Phases {
		if _, _, ok := results.CellOf(q.Name); ok && q.KindOf() == scenario.KindQA {
			cells = append(cells, strings.TrimPrefix(q.Name, scenario.KindQA+" "))
			length = q.Length
		}
	}
	return fmt.Sprintf("QA grid %s, %s a cell", strings.Join(cells, ", "), length)
}

// batchSeconds is the shortest batch of a run's window whose mean is a
// sample of the figure: a few blocks, so that neighbouring batches are
// close to independent.
const batchSeconds = 3

// withSE gives a phase's figure the standard error of batch means over
// its measured window's seconds (batch says a second's value, or that it
// has none).
func withSE(value float64, p *results.Phase, batch func(load.Second) (float64, bool)) Sample {
	from, to := int(p.Window[0]), min(int(p.Window[1]), len(p.Ledger.PerSecond))
	var xs []float64
	for i := from; i < to; i++ {
		y, ok := batch(p.Ledger.PerSecond[i])
		if !ok {
			y = math.NaN()
		}
		xs = append(xs, y)
	}
	return batchMeans(value, xs)
}

// blockSE gives a committed rate the standard error of batch means over
// the window's blocks: consecutive blocks grouped into batches of at
// least batchSeconds of header time, each batch's txs over its span. By
// seconds, a rate jumps between 0 and a block's worth as blocks come
// every second or so; by blocks it does not.
func blockSE(value float64, p *results.Phase) (Sample, bool) {
	x := Sample{Value: value}
	rates := results.BatchRates(p, results.WindowBlocks(p), batchSeconds*time.Second)
	if len(rates) < 3 {
		return x, false
	}
	m, sd := stat.MeanStdDev(rates, nil)
	if m == 0 {
		return x, false
	}
	x.SE = math.Abs(value) * sd / m / math.Sqrt(float64(len(rates)))
	x.DF = len(rates) - 1
	return x, true
}

// batchMeans gives value the standard error of batch means of its
// per-second values xs (NaN: a second with none): xs cut into batches of
// at least batchSeconds (eight batches at most), each batch's mean a
// sample; the batches' relative spread is the figure's. Fewer than three
// batches give no SE.
func batchMeans(value float64, xs []float64) Sample {
	x := Sample{Value: value}
	if len(xs) < 3*batchSeconds {
		return x
	}
	size := max(batchSeconds, len(xs)/8)
	var means []float64
	for b := 0; b+size <= len(xs); b += size {
		var sum float64
		n := 0
		for _, y := range xs[b : b+size] {
			if !math.IsNaN(y) {
				sum += y
				n++
			}
		}
		if n > 0 {
			means = append(means, sum/float64(n))
		}
	}
	if len(means) < 3 {
		return x
	}
	m, sd := stat.MeanStdDev(means, nil)
	x.DF = len(means) - 1
	if m == 0 { // a share that stayed 0: its spread as it is
		x.SE = sd / math.Sqrt(float64(len(means)))
		return x
	}
	x.SE = math.Abs(value) * sd / math.Abs(m) / math.Sqrt(float64(len(means)))
	return x
}

// shapeOf names a run's testnet: its nodes by role and its provider.
func shapeOf(r *results.Run) string {
	roles := map[string]int{}
	for _, n := range r.Nodes {
		roles[n.Role]++
	}
	keys := make([]string, 0, len(roles))
	for k := range roles {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", roles[k], k))
	}
	return strings.Join(parts, ", ")
}

// Differences says how two sets of runs differ in what they ran: another
// scenario (unless the sides are one ab session's), experiment, load
// model, workload or testnet makes their figures incomparable, and a run
// that did not complete is no measure.
func Differences(base, cand []Values) []string {
	var out []string
	for _, v := range append(append([]Values(nil), base...), cand...) {
		if v.Status != "" && v.Status != string(results.StatusComplete) {
			out = append(out, fmt.Sprintf("run %s is %s, not complete", v.Run, v.Status))
		}
	}
	check := func(what string, get func(Values) string) {
		b, c := distinct(base, get), distinct(cand, get)
		if strings.Join(b, ",") != strings.Join(c, ",") {
			out = append(out, fmt.Sprintf("%s: baseline %q, candidate %q", what, b, c))
		}
	}
	// The two sides of one interleaved session (chainperf ab) are two
	// scenario files on purpose: their names may differ, what they ran
	// may not.
	if _, _, paired := rounds(base, cand); !paired {
		check("scenario", func(v Values) string { return v.Scenario })
	}
	check("experiment", func(v Values) string { return v.Kind })
	check("load", func(v Values) string { return v.Model })
	check("workload", func(v Values) string { return v.Workload })
	check("testnet", func(v Values) string { return v.Shape })
	return out
}

// Changes says what the sides changed on purpose: the node binary (a
// release, a commit, an application build) and the config, genesis and
// app.toml settings. Unlike Differences they do not keep two sides from
// comparing: they are what a comparison is about.
func Changes(base, cand []Values) []string {
	var out []string
	for _, c := range []struct {
		what string
		get  func(Values) string
	}{{"node", func(v Values) string { return v.Node }}, {"settings", func(v Values) string { return v.Settings }}} {
		b, k := distinct(base, c.get), distinct(cand, c.get)
		if strings.Join(b, ",") != strings.Join(k, ",") {
			for _, side := range [][]string{b, k} {
				for i, x := range side {
					if x == "" {
						side[i] = "(defaults)" // nothing set: the chain's own
					}
				}
			}
			out = append(out, fmt.Sprintf("%s: baseline %q, candidate %q", c.what, b, k))
		}
	}
	return out
}

// settingsOf writes a run's config, genesis and app.toml settings as one
// line, keys sorted: what a parameter experiment changes between sides.
func settingsOf(s results.Setup) string {
	var parts []string
	for _, set := range []struct {
		name string
		m    map[string]any
	}{{"config", s.Config}, {"genesis", s.Genesis}, {"app", s.App}} {
		for _, k := range slices.Sorted(maps.Keys(set.m)) {
			v := set.m[k]
			if f, ok := v.(float64); ok { // a stored record's numbers come back as floats
				v = strconv.FormatFloat(f, 'f', -1, 64)
			}
			parts = append(parts, fmt.Sprintf("%s.%s=%v", set.name, k, v))
		}
	}
	return strings.Join(parts, " ")
}

func distinct(vs []Values, get func(Values) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vs {
		if x := get(v); !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
