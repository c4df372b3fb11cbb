package compare

import (
	"fmt"
	"strings"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
)

// Values are the figures of one run, by figure name, and what the run
// was (two runs are comparable when these agree).
type Values struct {
	Run      string
	Scenario string
	Kind     string // the main phase's name without its repeat count
	Model    string
	Workload string
	Figures  map[string]float64
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
// FUNC"), which informs but does not gate.
func Describe(name string) Figure {
	for _, f := range headline {
		if f.Name == name {
			return f
		}
	}
	switch {
	case strings.HasPrefix(name, "cpu "):
		return Figure{Name: name, Unit: "cores"}
	case strings.HasPrefix(name, "rss "):
		return Figure{Name: name, Unit: "MiB"}
	case strings.HasPrefix(name, "alloc "):
		return Figure{Name: name, Unit: "share", Points: true}
	}
	return Figure{Name: name}
}

// FromRun takes a run's figures: the main phase's throughput, latency,
// rejections and block interval, the find-max and sweep results, each
// node's mean CPU (cores) and peak RSS from series, and the top
// allocators' shares of each allocs or heap profile.
func FromRun(r *results.Run, series []observe.Sample) Values {
	v := Values{Run: r.ID, Scenario: r.Scenario, Figures: map[string]float64{}}
	if p := r.Main(); p != nil {
		v.Kind = p.KindOf()
		v.Model, v.Workload = p.Model, p.Workload
		f := p.Figures
		v.Figures["committed tx/s"] = f.CommittedTPS
		v.Figures["latency p50"] = f.LatencyP50
		v.Figures["latency p99"] = f.LatencyP99
		v.Figures["rejected share"] = f.RejectedShare
		if f.Blocks > 1 {
			v.Figures["block interval"] = f.BlockInterval
		}
		if p.Ledger.Fates[load.FateCommitted] == 0 {
			delete(v.Figures, "latency p50")
			delete(v.Figures, "latency p99")
		}
	}
	if r.FindMax != nil && r.FindMax.MaxTPS > 0 {
		v.Figures["max sustainable tx/s"] = r.FindMax.MaxTPS
	}
	if r.Sweep != nil && len(r.Sweep.Cells) > 0 {
		v.Figures["saturation tx/s"] = r.Sweep.Saturation
	}
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
			v.Figures[name] = max(v.Figures[name], s.Value/(1<<20))
		}
	}
	for node, sp := range cpu {
		// A restarted node's counter starts again: its mean over the run
		// is then not known.
		if d := sp.last.At.Sub(sp.first.At).Seconds(); sp.n > 1 && d > 0 && sp.last.Value >= sp.first.Value {
			v.Figures["cpu "+node] = (sp.last.Value - sp.first.Value) / d
		}
	}
	for _, p := range r.Profiles {
		if p.Kind != "allocs" && p.Kind != "heap" {
			continue
		}
		for i, t := range p.Top {
			if i == 3 {
				break
			}
			v.Figures[fmt.Sprintf("alloc %s %s", p.Node, t.Func)] = t.Share
		}
	}
	return v
}

// Differences says how two sets of runs differ in what they ran: another
// scenario, experiment, load model or workload makes their figures
// incomparable.
func Differences(base, cand []Values) []string {
	var out []string
	check := func(what string, get func(Values) string) {
		b, c := distinct(base, get), distinct(cand, get)
		if strings.Join(b, ",") != strings.Join(c, ",") {
			out = append(out, fmt.Sprintf("%s: baseline %q, candidate %q", what, b, c))
		}
	}
	check("scenario", func(v Values) string { return v.Scenario })
	check("experiment", func(v Values) string { return v.Kind })
	check("load", func(v Values) string { return v.Model })
	check("workload", func(v Values) string { return v.Workload })
	return out
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
