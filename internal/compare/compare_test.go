package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
)

var tps = Figure{Name: "committed tx/s", Unit: "tx/s", Higher: true, Gate: true}

// runs draws n runs of a figure around mean: between-run spread cv, and
// each run's own standard error se (relative) over 7 batches.
func runs(r *rand.Rand, n int, mean, cv, se float64) []Sample {
	out := make([]Sample, n)
	for i := range out {
		v := mean * (1 + cv*r.NormFloat64())
		out[i] = Sample{Value: v, SE: v * se, DF: 6}
	}
	return out
}

// At three runs a side a 50 % drop in throughput is a regression (the U
// test this rule replaced could not go below p = 0.1 at 3 vs 3, so it
// called it noise and exited 0).
func TestHalfTheThroughputAtThreeRunsRegresses(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for seed := 0; seed < 200; seed++ {
		row := Judge(tps, runs(r, 3, 1000, 0.03, 0.02), runs(r, 3, 500, 0.03, 0.02), DefaultThreshold)
		if row.Verdict != Regressed {
			t.Fatalf("seed %d: -50 %% at 3+3 called %s (change %.1f, interval %.1f..%.1f)", seed, row.Verdict, row.Change, row.Low, row.High)
		}
	}
	// Two runs a side carry it; one cannot say how runs differ, so even
	// -50 % is not a verdict (it could be the machine).
	if row := Judge(tps, runs(r, 2, 1000, 0.03, 0.02), runs(r, 2, 500, 0.03, 0.02), DefaultThreshold); row.Verdict != Regressed {
		t.Errorf("-50 %% at 2+2 called %s", row.Verdict)
	}
	if row := Judge(tps, runs(r, 1, 1000, 0.03, 0.02), runs(r, 1, 500, 0.03, 0.02), DefaultThreshold); row.Verdict != Inconclusive || !strings.Contains(row.Why(), "one run a side") {
		t.Errorf("-50 %% at 1+1 called %s (%s); want inconclusive, one run a side", row.Verdict, row.Why())
	}
}

// The mirror of a regression: 50 % more throughput is improved, and so is
// 30 % less latency; neither fails the gate.
func TestBigGainsImprove(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	if row := Judge(tps, runs(r, 3, 1000, 0.03, 0.02), runs(r, 3, 1500, 0.03, 0.02), DefaultThreshold); row.Verdict != Improved {
		t.Errorf("+50 %% throughput: %s", row.Verdict)
	}
	p99 := Figure{Name: "latency p99", Gate: true}
	if row := Judge(p99, runs(r, 3, 2000, 0.03, 0.02), runs(r, 3, 1400, 0.03, 0.02), DefaultThreshold); row.Verdict != Improved {
		t.Errorf("-30 %% p99: %s", row.Verdict)
	}
}

// Two samples of one distribution: regressed at most at the interval's
// one-sided error rate (2.5 %, some slack for the simulation).
func TestSameDistributionRarelyRegresses(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		regressed := 0
		const seeds = 2000
		r := rand.New(rand.NewPCG(2, uint64(n)))
		for seed := 0; seed < seeds; seed++ {
			// Runs differ no more than their own batches say.
			if Judge(tps, runs(r, n, 1000, 0.02, 0.02), runs(r, n, 1000, 0.02, 0.02), 1).Verdict == Regressed {
				regressed++
			}
		}
		if rate := float64(regressed) / seeds; rate > 0.04 {
			t.Errorf("%d+%d: same distribution called regressed in %.1f %% of comparisons; want at most 4 %%", n, n, 100*rate)
		}
	}
}

// A 3 % drop with a 5 % threshold, measured tightly, is unchanged.
func TestSmallShiftIsUnchanged(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for seed := 0; seed < 200; seed++ {
		row := Judge(tps, runs(r, 3, 1000, 0.002, 0.002), runs(r, 3, 970, 0.002, 0.002), DefaultThreshold)
		if row.Verdict != Unchanged {
			t.Fatalf("seed %d: 3 %% drop called %s (change %.1f, interval %.1f..%.1f)", seed, row.Verdict, row.Change, row.Low, row.High)
		}
	}
}

// Runs so spread that a large move of the means cannot be told from
// chance: inconclusive, saying which change the data could have shown.
func TestWideSpreadIsInconclusive(t *testing.T) {
	s := func(xs ...float64) []Sample {
		var out []Sample
		for _, x := range xs {
			out = append(out, Sample{Value: x, SE: x * 0.01, DF: 6})
		}
		return out
	}
	row := Judge(tps, s(1000, 600, 1400), s(850, 1300, 500), DefaultThreshold)
	if row.Verdict != Inconclusive || !row.Tested {
		t.Fatalf("verdict %s; want inconclusive", row.Verdict)
	}
	if why := row.Why(); !strings.Contains(why, "3 vs 3 cannot show a change below") {
		t.Errorf("why %q", why)
	}
	// One run a side: no interval at all.
	row = Judge(tps, []Sample{{Value: 1000}}, []Sample{{Value: 500}}, DefaultThreshold)
	if row.Verdict != Inconclusive || row.Tested || !strings.Contains(row.Why(), "one run a side cannot show how runs differ") {
		t.Errorf("1+1 without samples: %+v, %s", row, row.Why())
	}
}

// A throughput of 0 on one side (a chain that stopped) is still judged.
func TestZeroThroughputRegresses(t *testing.T) {
	base := []Sample{{Value: 1000, SE: 10, DF: 6}, {Value: 1010, SE: 10, DF: 6}}
	cand := []Sample{{Value: 0, SE: 0, DF: 6}, {Value: 0, SE: 0, DF: 6}}
	if row := Judge(tps, base, cand, DefaultThreshold); row.Verdict != Regressed || math.Abs(row.Change+100) > 0.01 {
		t.Errorf("1000 -> 0: %+v; want regressed by 100 %%", row)
	}
}

func TestCompareGatesAndRenders(t *testing.T) {
	v := func(run string, f map[string]Sample) Values {
		out := Values{Run: run, Figures: map[string][]Sample{}}
		for k, x := range f {
			out.Figures[k] = []Sample{x}
		}
		return out
	}
	// Two runs a side, alike but for CPU.
	base := []Values{v("a", map[string]Sample{
		"committed tx/s": {1000, 5, 6}, "latency p99": {2000, 20, 6}, "rejected share": {0, 0, 6}, "cpu full0": {0.5, 0, 0}, "latency p50": {1000, 100, 6}}),
		v("a2", map[string]Sample{
			"committed tx/s": {1000, 5, 6}, "latency p99": {2000, 20, 6}, "rejected share": {0, 0, 6}, "cpu full0": {0.7, 0, 0}, "latency p50": {1000, 100, 6}})}
	cand := []Values{v("b", map[string]Sample{
		"committed tx/s": {1020, 5, 6}, "latency p99": {2500, 20, 6}, "rejected share": {0.02, 0.001, 6}, "cpu full0": {0.9, 0, 0}, "latency p50": {1010, 100, 6}}),
		v("b2", map[string]Sample{
			"committed tx/s": {1020, 5, 6}, "latency p99": {2500, 20, 6}, "rejected share": {0.02, 0.001, 6}, "cpu full0": {0.4, 0, 0}, "latency p50": {1010, 100, 6}})}
	res := Compare(base, cand, DefaultThreshold, map[string]float64{"rejected share": 1})
	rows := map[string]Row{}
	for _, r := range res.Rows {
		rows[r.Figure] = r
	}
	if r := rows["committed tx/s"]; r.Verdict != Unchanged || !r.Tested {
		t.Errorf("tx/s +2 %%: %+v; want unchanged", r)
	}
	if r := rows["latency p99"]; r.Verdict != Regressed || math.Abs(r.Change-25) > 0.01 {
		t.Errorf("p99 +25 %%: %+v; want regressed (less is better)", r)
	}
	if r := rows["rejected share"]; r.Verdict != Regressed || r.ChangeIn != "pp" || math.Abs(r.Change-2) > 0.01 {
		t.Errorf("rejected share 0 -> 2 %% with a 1 point threshold: %+v; want regressed by 2 points", r)
	}
	if r := rows["latency p50"]; r.Verdict != Inconclusive {
		t.Errorf("p50 +1 %% with a 10 %% SE: %+v; want inconclusive", r)
	}
	if r := rows["cpu full0"]; r.Verdict != Inconclusive || r.Gated {
		t.Errorf("cpu that moved both ways: %+v; want inconclusive, not gated", r)
	}
	if strings.Join(res.Regressed, ",") != "latency p99,rejected share" || strings.Join(res.Inconclusive, ",") != "latency p50" {
		t.Errorf("regressed %v, inconclusive %v", res.Regressed, res.Inconclusive)
	}
	var md strings.Builder
	res.Markdown(&md)
	if !strings.Contains(md.String(), "REGRESSED: latency p99, rejected share") || !strings.Contains(md.String(), "| latency p99 (ms) | 2000 (2 samples) | 2500 (2 samples) | +25.0 % |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	// Gated figures first; the one not gated that did not move folded.
	var folded, all strings.Builder
	res.Text(&folded)
	res.TextAll(&all, true)
	if strings.Contains(folded.String(), "cpu full0") || !strings.Contains(folded.String(), "folded (--all shows them): cpu: 1 figure unchanged or undecided") ||
		!strings.Contains(all.String(), "cpu full0") || strings.Contains(all.String(), "folded") {
		t.Errorf("folded:\n%s\nall:\n%s", folded.String(), all.String())
	}
	if !strings.Contains(md.String(), "<details><summary>cpu: 1 figure unchanged or undecided</summary>") {
		t.Errorf("markdown without the folded figures collapsed:\n%s", md.String())
	}
	var js strings.Builder
	if err := res.JSON(&js); err != nil || !strings.Contains(js.String(), `"inconclusive": [`) {
		t.Errorf("json: %v\n%s", err, js.String())
	}
	if err := res.Named(map[string]float64{"latency p95": 5}); err == nil || !strings.Contains(err.Error(), `no figure "latency p95"`) {
		t.Errorf("unknown figure in thresholds: %v", err)
	}
	// Only inconclusive: the summary says so.
	res = Compare(base[:1], []Values{v("c", map[string]Sample{"latency p50": {1010, 100, 6}})}, DefaultThreshold, nil)
	var txt strings.Builder
	res.Text(&txt)
	if !strings.Contains(txt.String(), "INCONCLUSIVE: latency p50") || !strings.Contains(txt.String(), "1 vs 1: one run a side cannot show how runs differ") {
		t.Errorf("text:\n%s", txt.String())
	}
	// One run a side of every gated figure: one note names them all.
	res = Compare(base[:1], cand[:1], DefaultThreshold, nil)
	if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], strings.Join(res.Inconclusive, ", ")+": 1 vs 1: one run a side") || len(res.Inconclusive) < 3 {
		t.Errorf("1 vs 1: notes %q for inconclusive %v; want one note naming them all", res.Notes, res.Inconclusive)
	}
}

func TestDifferences(t *testing.T) {
	a := []Values{{Scenario: "default", Kind: "steady", Model: "constant 500 tx/s for 30s", Workload: "kvstore", Shape: "1 full, 4 validator", Status: "complete"}}
	b := []Values{{Scenario: "default", Kind: "steady", Model: "constant 800 tx/s for 30s", Workload: "kvstore", Shape: "1 full, 4 validator", Status: "complete"}}
	d := Differences(a, b)
	if len(d) != 1 || !strings.Contains(d[0], "load: baseline") || !strings.Contains(d[0], "800") {
		t.Errorf("differences %q; want the load named", d)
	}
	if d := Differences(a, a); len(d) != 0 {
		t.Errorf("same runs differ: %q", d)
	}
	c := []Values{a[0]}
	c[0].Shape, c[0].Status, c[0].Run = "1 full, 7 validator", "interrupted", "x"
	d = Differences(a, c)
	if len(d) != 2 || !strings.Contains(d[0], "run x is interrupted") || !strings.Contains(d[1], "testnet: baseline") {
		t.Errorf("differences %q; want the interrupted run and the testnet named", d)
	}
	// A parameter experiment: the same chain, another genesis setting and
	// another application build.
	base := &results.Run{Setup: results.Setup{Versions: results.Versions{Node: "wasmd v0.61.14"},
		Genesis: map[string]any{"consensus.params.block.max_gas": int64(-1)}}}
	cand := &results.Run{Setup: results.Setup{Versions: results.Versions{Node: "wasmd v0.61.14; replaced github.com/cosmos/cosmos-sdk"},
		Genesis: map[string]any{"consensus.params.block.max_gas": int64(3000000)}, App: map[string]any{"mempool.max-txs": int64(5000)}}}
	if d := Differences([]Values{FromRun(base, nil)}, []Values{FromRun(cand, nil)}); len(d) != 0 {
		t.Errorf("a node build and settings keep the sides from comparing: %q", d)
	}
	d = Changes([]Values{FromRun(base, nil)}, []Values{FromRun(cand, nil)})
	if len(d) != 2 || !strings.Contains(d[0], "node: baseline") || !strings.Contains(d[1], `settings: baseline ["genesis.consensus.params.block.max_gas=-1"], candidate ["genesis.consensus.params.block.max_gas=3000000 app.mempool.max-txs=5000"]`) {
		t.Errorf("changes %q; want the node and the settings named", d)
	}
}

// Committed tx/s: batches of blocks, not of seconds. Blocks of 650 txs
// every 1.3 s make seconds of 0 and 650; by blocks the rate is steady and
// its SE small.
func TestCommittedSEByBlocks(t *testing.T) {
	start := time.Unix(1000, 0)
	p := &results.Phase{Start: start, Window: [2]float64{5, 28}}
	for i := 0; i < 25; i++ {
		at := start.Add(time.Duration(i) * 1300 * time.Millisecond)
		p.Blocks = append(p.Blocks, observe.Block{Height: int64(i + 1), Time: at, Seen: at, Ours: 650})
		for len(p.Ledger.PerSecond) <= int(at.Sub(start).Seconds()) {
			p.Ledger.PerSecond = append(p.Ledger.PerSecond, load.Second{})
		}
		p.Ledger.PerSecond[int(at.Sub(start).Seconds())].Committed += 650
	}
	x, ok := blockSE(500, p)
	if !ok || x.DF < 2 || x.SE/x.Value > 0.01 {
		t.Errorf("by blocks: %+v, %v; want an SE under 1 %%", x, ok)
	}
	y := withSE(500, p, func(s load.Second) (float64, bool) { return float64(s.Committed), true })
	if y.SE <= 5*x.SE {
		t.Errorf("by seconds SE %.1f, by blocks %.1f: want the seconds' far larger", y.SE, x.SE)
	}
}

// TestProducerFigures: a producer's figures reach compare as it described
// them (unit, direction, gate), a figure with a limit stays a criterion
// and is not compared, and a regression of a gated one fails the gate.
func TestProducerFigures(t *testing.T) {
	run := func(id string, msgs, p99 float64) *results.Run {
		r := &results.Run{Record: results.Record{ID: id, Status: results.StatusComplete}}
		r.SetFinding(finding.Finding{Source: "chain/test", Title: "test", Figures: []finding.Figure{
			{Name: "msg/s send", Unit: "msg/s", Value: msgs, Better: finding.Higher},
			{Name: "verify ms", Unit: "ms", Value: p99, SE: p99 / 100, DF: 9, Better: finding.Lower, Gate: true},
			{Name: "funds lost", Value: 0, Must: &finding.Limit{Op: "<=", Value: 0}},
		}})
		return r
	}
	base, cand := FromRun(run("a", 30, 100), nil), FromRun(run("b", 15, 200), nil)
	base2, cand2 := FromRun(run("a2", 30, 101), nil), FromRun(run("b2", 15, 201), nil)
	if _, ok := base.first("funds lost"); ok {
		t.Error("a figure with a limit was compared")
	}
	if x := base.Figures["verify ms"]; len(x) != 1 || x[0].SE != 1 || x[0].DF != 9 {
		t.Errorf("verify ms samples %+v; want its SE and DF kept", x)
	}
	if f := DescribeIn([]Values{base}, "msg/s send"); f.Gate || !f.Higher || f.Unit != "msg/s" {
		t.Errorf("msg/s send: %+v", f)
	}
	res := Compare([]Values{base, base2}, []Values{cand, cand2}, DefaultThreshold, nil)
	if len(res.Regressed) != 1 || res.Regressed[0] != "verify ms" {
		t.Fatalf("regressed %v; want verify ms alone (msg/s informs)", res.Regressed)
	}
	same := Compare([]Values{base, base2}, []Values{FromRun(run("c", 30, 100), nil), FromRun(run("c2", 30, 101), nil)}, DefaultThreshold, nil)
	if len(same.Regressed) != 0 {
		t.Errorf("same figures regressed: %v", same.Regressed)
	}
}

// Two QA runs compare cell by cell: the grid is what they ran (their
// steady runs at different saturation points do not make them
// incomparable), each cell's processed share and p99 latency pair up,
// and a cell that lost half its processed txs regresses.
func TestQARunsCompareByCell(t *testing.T) {
	qaRun := func(id string, share float64, steady string) *results.Run {
		r := &results.Run{Record: results.Record{ID: id, Scenario: "qa", Status: results.StatusComplete}}
		r.Sweep = &results.Sweep{}
		for _, c := range []int{1, 2} {
			name := results.CellName("qa", c, 200)
			p := &results.Phase{Name: name, Kind: "qa", Length: 30 * time.Second, Model: "connections", Window: [2]float64{0, 30}}
			sh := 1.0
			if c == 2 {
				sh = share
			}
			for s := 0; s < 30; s++ {
				p.Ledger.PerSecond = append(p.Ledger.PerSecond, load.Second{Committed: int64(float64(200*c)*sh) + int64(s%3), LatencyP99: 800 + float64(s%5)})
			}
			p.Ledger.Fates = map[load.Fate]int64{load.FateCommitted: int64(float64(200*c*29) * sh)}
			p.Figures.LatencyP99 = 800
			r.Phases = append(r.Phases, p)
			r.Sweep.Cells = append(r.Sweep.Cells, results.Cell{Connections: c, Rate: 200, Offered: float64(200 * c), Expected: int64(200 * c * 29), Share: sh})
		}
		r.Phases = append(r.Phases, &results.Phase{Name: "qa steady " + steady, Kind: "qa", Model: "connections " + steady,
			Ledger: load.Summary{Fates: map[load.Fate]int64{}}})
		return r
	}
	base, cand := FromRun(qaRun("a", 1, "c=2 r=200"), nil), FromRun(qaRun("b", 0.5, "c=1 r=200"), nil)
	if d := Differences([]Values{base}, []Values{cand}); len(d) != 0 {
		t.Fatalf("differences %v; want none (same grid)", d)
	}
	base2, cand2 := FromRun(qaRun("a2", 1, "c=2 r=200"), nil), FromRun(qaRun("b2", 0.5, "c=1 r=200"), nil)
	res := Compare([]Values{base, base2}, []Values{cand, cand2}, DefaultThreshold, nil)
	verdicts := map[string]string{}
	for _, row := range res.Rows {
		verdicts[row.Figure] = row.Verdict
	}
	if verdicts["processed share [c=2 r=200]"] != Regressed || verdicts["processed share [c=1 r=200]"] == Regressed {
		t.Errorf("verdicts %v; want c=2 regressed, c=1 not", verdicts)
	}
	if _, ok := verdicts["latency p99 [c=1 r=200]"]; !ok {
		t.Errorf("no per-cell latency: %v", verdicts)
	}
	if verdicts["committed tx/s"] != "" {
		t.Errorf("a QA run's steady figure is compared unnamed: %v", verdicts)
	}
}

// TestKindFigures: find-max's result and a grid's saturation point reach
// compare through the kinds' findings, gated, find-max's with the SE its
// interval implies (95 % CI 1990..2100 over 6 batches: SE = 110 / (2 t(0.975, 5))).
func TestKindFigures(t *testing.T) {
	r := &results.Run{Record: results.Record{ID: "fm"}}
	r.FindMax = &results.FindMax{MaxTPS: 2048, Low: 1990, High: 2100, Batches: 6}
	r.Sweep = &results.Sweep{Saturation: 1600, Cells: []results.Cell{{Connections: 1, Rate: 1600}}}
	v := FromRun(r, nil)
	x := v.Figures["max sustainable tx/s"]
	if len(x) != 1 || x[0].Value != 2048 || x[0].DF != 5 || math.Abs(x[0].SE-110/(2*2.5706)) > 0.01 {
		t.Errorf("max sustainable tx/s %+v", x)
	}
	if y, ok := v.first("saturation tx/s"); !ok || y != 1600 {
		t.Errorf("saturation tx/s %v %v", y, ok)
	}
	for _, name := range []string{"max sustainable tx/s", "saturation tx/s"} {
		if f := DescribeIn([]Values{v}, name); !f.Gate || !f.Higher {
			t.Errorf("%s: %+v; want gated, higher better", name, f)
		}
	}
}

// TestGridOrder: a QA grid's figures come in grid order, numbers by value.
func TestGridOrder(t *testing.T) {
	names := []string{"committed tx/s [qa c=2 r=200]", "committed tx/s [qa c=1 r=1600]", "committed tx/s [qa c=1 r=200]",
		"committed tx/s [qa c=1 r=400]", "committed tx/s [qa c=10 r=200]", "latency p99 [qa c=1 r=1600]", "committed tx/s [qa c=1 r=1600.5]"}
	sort.Slice(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	want := []string{"committed tx/s [qa c=1 r=200]", "committed tx/s [qa c=1 r=400]", "committed tx/s [qa c=1 r=1600]",
		"committed tx/s [qa c=1 r=1600.5]", "committed tx/s [qa c=2 r=200]", "committed tx/s [qa c=10 r=200]", "latency p99 [qa c=1 r=1600]"}
	if !slices.Equal(names, want) {
		t.Errorf("order:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
}

// TestVersionFigures: a mixed network's nodes give each version's mean
// CPU and peak RSS; a run on one version gives none.
func TestVersionFigures(t *testing.T) {
	r := &results.Run{}
	r.Nodes = []results.Node{{Name: "v0", Reported: "0.38.19"}, {Name: "v1", Reported: "0.38.19", ReportedEnd: "0.38.26"}, {Name: "v2", Reported: "0.38.26"}}
	v := Values{Figures: map[string][]Sample{}}
	v.set("cpu v0", 0.2)
	v.set("cpu v1", 0.4)
	v.set("cpu v2", 0.6)
	v.set("rss v1", 100)
	v.set("rss v2", 80)
	versionFigures(v, r)
	for name, want := range map[string]float64{"cpu [0.38.19]": 0.2, "cpu [0.38.26]": 0.5, "rss [0.38.26]": 100} {
		if got, ok := v.first(name); !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (%v); want %v", name, got, ok, want)
		}
	}
	one := Values{Figures: map[string][]Sample{}}
	r.Nodes = r.Nodes[:1]
	versionFigures(one, r)
	if len(one.Figures) != 0 {
		t.Errorf("one version: %v", one.Figures)
	}
}

// TestCoarseFigureNeverReadsUnchanged: runs that agree on a figure whose
// measure is coarser than the threshold do not show it unchanged (the
// block time from metrics read 992 ms on both sides of a +5 % change):
// inconclusive, said coarse, the finer figure named; the same numbers
// from a fine measure read unchanged, and a coarse figure that moved
// still reads regressed.
func TestCoarseFigureNeverReadsUnchanged(t *testing.T) {
	run := func(id string, round int, coarse, fine float64) Values {
		r := &results.Run{Record: results.Record{ID: id, Status: results.StatusComplete, Trial: &results.Trial{Session: "s", Round: round}}}
		r.SetFinding(finding.Finding{Source: "observer/internals", Title: "internals", Figures: []finding.Figure{
			{Name: "block time", Unit: "ms", Value: coarse, Better: finding.Lower, Resolution: 1.0 / 15, Precise: "height time"},
		}})
		r.SetFinding(finding.Finding{Source: "observer/timeline", Title: "timeline", Figures: []finding.Figure{
			{Name: "height time", Unit: "ms", Value: fine, Better: finding.Lower},
		}})
		return FromRun(r, nil)
	}
	judge := func(coarse [2]float64) (Row, Row, *Result) {
		var base, cand []Values
		for i := 1; i <= 6; i++ {
			wobble := 1 + 0.001*float64(i%3)
			base = append(base, run(fmt.Sprint("b", i), i, coarse[0]*wobble, 1000*wobble))
			cand = append(cand, run(fmt.Sprint("c", i), i, coarse[1]*wobble, 1000*wobble))
		}
		res := Compare(base, cand, 2, nil)
		var c, f Row
		for _, r := range res.Rows {
			switch r.Figure {
			case "block time":
				c = r
			case "height time":
				f = r
			}
		}
		return c, f, res
	}
	c, f, res := judge([2]float64{992, 992})
	if f.Verdict != Unchanged {
		t.Errorf("height time (fine) %s; want unchanged", f.Verdict)
	}
	if c.Verdict != Inconclusive || !strings.Contains(c.Coarse, "±7 %") || !strings.Contains(c.Coarse, `"height time" measures it finely`) {
		t.Errorf("block time (coarse, no change seen): %s, %q; want inconclusive, coarse, the finer figure named", c.Verdict, c.Coarse)
	}
	if cells := c.Cells(); cells[len(cells)-1] != "inconclusive (not gated, coarse)" {
		t.Errorf("verdict cell %q", cells[len(cells)-1])
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "block time: coarse: ") {
		t.Errorf("notes do not say block time is coarse: %v", res.Notes)
	}
	if c, _, _ = judge([2]float64{992, 1200}); c.Verdict != Regressed {
		t.Errorf("block time +21 %%: %s; want regressed, coarse or not", c.Verdict)
	}
}
