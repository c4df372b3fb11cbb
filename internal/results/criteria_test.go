package results

import (
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/scenario"
)

func steadyPhase(tps, p99 float64, unresolved int64, bound bool) *Phase {
	return &Phase{Kind: scenario.KindSteady, Followed: true,
		Ledger:    load.Summary{Sent: 10000, Fates: map[load.Fate]int64{load.FateCommitted: 10000 - unresolved, load.FateUnresolved: unresolved}},
		Generator: load.Report{Bound: bound},
		Figures:   Figures{CommittedTPS: tps, LatencyP99: p99}}
}

func check(r *Run, name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// The default criteria: a phase whose load was not delivered fails the
// run, and so does an unresolved share above 0.5 %; both pass otherwise.
func TestDefaultCriteria(t *testing.T) {
	s, err := scenario.Parse("t.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		unresolved int64
		bound      bool
		fail       string
	}{
		{"delivered, resolved", 10, false, ""},
		{"node-bound", 0, true, "phases whose load was not delivered as asked"},
		{"1 % unresolved", 100, false, "unresolved share"},
	} {
		r := &Run{Outcome: Outcome{Phases: []*Phase{steadyPhase(500, 1800, tc.unresolved, tc.bound)}}}
		Evaluate(r, s.Criteria)
		if (tc.fail == "") != r.Passed {
			t.Errorf("%s: passed %v; checks %+v", tc.name, r.Passed, r.Checks)
		}
		if tc.fail != "" {
			if c, ok := check(r, tc.fail); !ok || c.Pass {
				t.Errorf("%s: check %q %+v; want it failed", tc.name, tc.fail, c)
			}
		}
	}
}

// With repeats, criteria judge the median of the repeats, not the last.
func TestCriteriaJudgeTheMedianOfRepeats(t *testing.T) {
	c := scenario.Criteria{MinCommittedTPS: 450, MaxUnresolved: -1, MaxUnresolvedShare: -1}
	r := &Run{Outcome: Outcome{Phases: []*Phase{steadyPhase(500, 0, 0, false), steadyPhase(490, 0, 0, false), steadyPhase(300, 0, 0, false)}}}
	Evaluate(r, c)
	if got, _ := check(r, "committed tx/s"); !got.Pass || got.Value != 490 {
		t.Errorf("check %+v; want the median 490, passed", got)
	}
	r.Phases = []*Phase{steadyPhase(500, 0, 0, false), steadyPhase(300, 0, 0, false), steadyPhase(310, 0, 0, false)}
	Evaluate(r, c)
	if got, _ := check(r, "committed tx/s"); got.Pass || got.Value != 310 {
		t.Errorf("check %+v; want the median 310, failed", got)
	}
}

// Find-max holds its target when the blocks that carry the run's txs stay
// under it, and says "target not held" when they average above it (not
// only 1.5 times above); one batch gives no confidence interval.
func TestFindMaxHeldOrNot(t *testing.T) {
	start := time.Unix(1000, 0)
	phase := func(maxLatency float64, seconds int) *Phase {
		p := &Phase{Start: start, Window: [2]float64{0, float64(seconds + 1)}}
		for i := 0; i <= seconds; i++ {
			at := start.Add(time.Duration(i) * time.Second)
			b := observe.Block{Height: int64(i + 1), Time: at, Seen: at, Ours: 1000, LatencyMax: maxLatency}
			if i%2 == 1 { // every other block carries none of the run's txs
				b.Ours, b.LatencyMax = 0, 0
			}
			p.Blocks = append(p.Blocks, b)
		}
		return p
	}
	fm := FindMaxOf(phase(2500, 30), "latency", 3*time.Second, 0)
	if fm.HeldMS != 2500 || strings.Contains(fm.Evidence, "not held") || fm.Batches < 2 || !strings.HasPrefix(fm.Interval(), "95 % CI") {
		t.Errorf("held: %+v, %s", fm, fm.Interval())
	}
	fm = FindMaxOf(phase(3200, 30), "latency", 3*time.Second, 0)
	if !strings.Contains(fm.Evidence, "target not held") {
		t.Errorf("3.2 s against a 3 s target: %s; want target not held", fm.Evidence)
	}
	fm = FindMaxOf(phase(2500, 4), "latency", 3*time.Second, 0)
	if fm.Batches >= 2 || !strings.HasPrefix(fm.Interval(), "no confidence interval") {
		t.Errorf("4 s of blocks: %d batches, %q; want no interval", fm.Batches, fm.Interval())
	}
}

// A producer's limits on its own figures are criteria: a figure past its
// limit fails the run (">=" and "<="), one within passes, and a figure
// with no limit is not judged.
func TestFindingLimitsJudged(t *testing.T) {
	s, err := scenario.Parse("t.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		value float64
		op    string
		fail  string
	}{
		{"held to 0", 0, "<=", ""},
		{"over 0", 1, "<=", "funds lost"},
		{"at least 10", 12, ">=", ""},
		{"under 10", 9, ">=", "funds lost"},
	} {
		f := finding.Finding{Source: "chain/test", Title: "test", Figures: []finding.Figure{
			{Name: "funds lost", Value: tc.value, Must: &finding.Limit{Op: tc.op, Value: map[string]float64{"<=": 0, ">=": 10}[tc.op]}},
			{Name: "msg/s send", Value: -5}, // no limit: informs only
		}}
		r := &Run{Outcome: Outcome{Phases: []*Phase{steadyPhase(500, 1800, 0, false)}}}
		r.SetFinding(f)
		Evaluate(r, s.Criteria)
		if (tc.fail == "") != r.Passed {
			t.Errorf("%s: passed %v; checks %+v", tc.name, r.Passed, r.Checks)
		}
		if c, ok := check(r, "funds lost"); !ok || c.Pass != (tc.fail == "") || c.Value != tc.value {
			t.Errorf("%s: check %+v (%v)", tc.name, c, ok)
		}
		if _, ok := check(r, "msg/s send"); ok {
			t.Errorf("%s: a figure with no limit became a check", tc.name)
		}
	}
}

// A QA cell past the saturation point that the nodes held back is the
// saturation itself, not undelivered load: load_delivered passes. The
// same cell held back by chainperf, or a cell that held yet was
// node-bound, fails it.
func TestQASaturatedCellsAndLoadDelivered(t *testing.T) {
	s, err := scenario.Parse("t.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	const name = "phases whose load was not delivered as asked"
	for _, tc := range []struct {
		what      string
		cell      string
		saturated bool
		by        string
		pass      bool
	}{
		{"saturated, node-bound", "qa c=4 r=1600", true, load.BoundByNode, true},
		{"saturated, generator-bound", "qa c=4 r=1600", true, load.BoundByGenerator, false},
		{"held, node-bound", "qa c=4 r=1600", false, load.BoundByNode, false},
	} {
		cell := &Phase{Kind: scenario.KindQA, Name: tc.cell, Generator: load.Report{Bound: true, BoundBy: tc.by},
			Ledger: load.Summary{Fates: map[load.Fate]int64{}}}
		steady := steadyPhase(500, 1800, 0, false)
		steady.Kind, steady.Name = scenario.KindQA, "qa steady c=1 r=200"
		r := &Run{Outcome: Outcome{Phases: []*Phase{cell, steady}},
			Findings: Findings{Sweep: &Sweep{Cells: []Cell{{Connections: 4, Rate: 1600, Saturated: tc.saturated}}}}}
		Evaluate(r, s.Criteria)
		if c, ok := check(r, name); !ok || c.Pass != tc.pass {
			t.Errorf("%s: check %+v; want pass %v", tc.what, c, tc.pass)
		}
	}
}

// Criteria that name figures: within its bounds passes, past min or max
// fails, and a figure the run does not have fails, naming those it has.
func TestFigureCriteria(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		name  string
		bound scenario.FigureCriterion
		pass  bool
		check string
	}{
		{"within", scenario.FigureCriterion{Name: "msg/s send", Min: f(30), Max: f(50)}, true, `figure "msg/s send"`},
		{"under min", scenario.FigureCriterion{Name: "msg/s send", Min: f(45)}, false, `figure "msg/s send"`},
		{"over max", scenario.FigureCriterion{Name: "max sustainable tx/s", Max: f(2000)}, false, `figure "max sustainable tx/s"`},
		{"not in the run", scenario.FigureCriterion{Name: "msg/s sned", Min: f(1)}, false,
			`figures named "msg/s sned" (the run has "max sustainable tx/s", "msg/s send")`},
	} {
		s, err := scenario.Parse("t.toml", nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Criteria.Figures = []scenario.FigureCriterion{tc.bound}
		r := &Run{Outcome: Outcome{Phases: []*Phase{steadyPhase(500, 1800, 0, false)}}}
		r.FindMax = &FindMax{MaxTPS: 2048}
		r.SetFinding(finding.Finding{Source: "chain/test", Title: "t", Figures: []finding.Figure{{Name: "msg/s send", Value: 40}}})
		Evaluate(r, s.Criteria)
		if r.Passed != tc.pass {
			t.Errorf("%s: passed %v; checks %+v", tc.name, r.Passed, r.Checks)
		}
		if c, ok := check(r, tc.check); !ok || c.Pass != tc.pass {
			t.Errorf("%s: no check %q passing %v in %+v", tc.name, tc.check, tc.pass, r.Checks)
		}
	}
}

// A window in which no tx was seen committed (a chain whose first blocks
// came after it) has no p99 of 0 to pass a latency limit: the phase's
// p99 is judged, or with none committed at all the phase's length.
func TestLatencyLimitWithAnEmptyWindow(t *testing.T) {
	s, err := scenario.Parse("t.toml", []byte("[criteria]\nmax_p99_latency = \"1ms\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		phase load.Percentiles
		want  float64
	}{{"committed after the window", load.Percentiles{Count: 200, P99: 2400}, 2400}, {"none committed", load.Percentiles{}, 10000}} {
		p := steadyPhase(0, 0, 0, false)
		p.Start = time.Unix(1000, 0)
		p.End = p.Start.Add(10 * time.Second)
		p.Ledger.Latency = tc.phase
		r := &Run{Outcome: Outcome{Phases: []*Phase{p}}}
		Evaluate(r, s.Criteria)
		if c, ok := check(r, "p99 latency ms"); !ok || c.Pass || c.Value != tc.want || r.Passed {
			t.Errorf("%s: check %+v, passed %v; want %g judged, failed", tc.name, c, r.Passed, tc.want)
		}
	}
}
