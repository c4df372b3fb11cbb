package compare

import (
	"math/rand/v2"
	"strings"
	"testing"
)

var tps = Figure{Name: "committed tx/s", Higher: true, Gate: true}

// draw returns n values around mean with a relative spread cv (normal).
func draw(r *rand.Rand, n int, mean, cv float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = mean * (1 + cv*r.NormFloat64())
	}
	return out
}

// A 15 % drop in throughput with 5 repeats a side is a regression.
func TestFifteenPercentShiftRegresses(t *testing.T) {
	called := 0
	const seeds = 500
	for seed := uint64(0); seed < seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		row := Judge(tps, draw(r, 5, 1000, 0.03), draw(r, 5, 850, 0.03), DefaultThreshold)
		if row.Verdict == Regressed {
			called++
		}
		if !row.Tested {
			t.Fatal("5 runs a side: the U test must run")
		}
	}
	if float64(called)/seeds < 0.95 {
		t.Errorf("15 %% drop called regressed in %d of %d seeds; want at least 95 %%", called, seeds)
	}
}

// Two samples of one distribution are unchanged at least 95 % of the time,
// and never called regressed beyond the test's own error rate.
func TestSameDistributionUnchanged(t *testing.T) {
	unchanged, regressed := 0, 0
	const seeds = 2000
	for seed := uint64(0); seed < seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 2))
		switch Judge(tps, draw(r, 5, 1000, 0.05), draw(r, 5, 1000, 0.05), DefaultThreshold).Verdict {
		case Unchanged:
			unchanged++
		case Regressed:
			regressed++
		}
	}
	if float64(unchanged)/seeds < 0.95 {
		t.Errorf("same distribution called unchanged in %d of %d seeds; want at least 95 %%", unchanged, seeds)
	}
	if float64(regressed)/seeds > 0.025 {
		t.Errorf("same distribution called regressed in %d of %d seeds", regressed, seeds)
	}
}

// A 3 % drop with the default 10 % threshold is not a regression, even
// when the test sees it.
func TestSmallShiftIsNotARegression(t *testing.T) {
	for seed := uint64(0); seed < 500; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		row := Judge(tps, draw(r, 5, 1000, 0.005), draw(r, 5, 970, 0.005), DefaultThreshold)
		if row.Verdict != Unchanged {
			t.Fatalf("seed %d: 3 %% drop called %s (change %.1f %%, p %.3f)", seed, row.Verdict, row.Change, row.P)
		}
	}
}

// Noise: a big move of the medians that the test cannot tell from chance.
func TestWideSpreadIsNoise(t *testing.T) {
	row := Judge(tps, []float64{1000, 600, 1400}, []float64{850, 1300, 500}, DefaultThreshold)
	if row.Verdict != Noise || !row.Tested || row.P <= Alpha {
		t.Errorf("verdict %s, p %.3f; want noise", row.Verdict, row.P)
	}
}

func TestSingleRunsUseTheThreshold(t *testing.T) {
	base := []Values{{Run: "a", Figures: map[string]float64{"committed tx/s": 1000, "latency p99": 2000, "rejected share": 0, "cpu full0": 0.5}}}
	cand := []Values{{Run: "b", Figures: map[string]float64{"committed tx/s": 1020, "latency p99": 2500, "rejected share": 0.02, "cpu full0": 0.9}}}
	res := Compare(base, cand, DefaultThreshold, map[string]float64{"rejected share": 1})
	verdicts := map[string]Row{}
	for _, r := range res.Rows {
		verdicts[r.Figure] = r
	}
	if v := verdicts["committed tx/s"]; v.Verdict != Unchanged || v.Tested {
		t.Errorf("tx/s +2 %%: %+v; want unchanged, untested", v)
	}
	if v := verdicts["latency p99"]; v.Verdict != Regressed || v.Change != 25 {
		t.Errorf("p99 +25 %%: %+v; want regressed (less is better)", v)
	}
	if v := verdicts["rejected share"]; v.Verdict != Regressed || v.ChangeIn != "pp" || v.Change < 1.99 || v.Change > 2.01 {
		t.Errorf("rejected share 0 -> 2 %% with a 1 point threshold: %+v; want regressed by 2 points", v)
	}
	if v := verdicts["cpu full0"]; v.Verdict != Regressed || v.Gated {
		t.Errorf("cpu +80 %%: %+v; want regressed but not gated", v)
	}
	if strings.Join(res.Regressed, ",") != "latency p99,rejected share" {
		t.Errorf("gated regressions %v", res.Regressed)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "no statistical test") {
		t.Errorf("notes %v; want the no-test note", res.Notes)
	}
	var md strings.Builder
	res.Markdown(&md)
	if !strings.Contains(md.String(), "REGRESSED: latency p99, rejected share") || !strings.Contains(md.String(), "| latency p99 (ms) | 2000 | 2500 | +25.0 % | no test | **regressed** |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := res.Named(map[string]float64{"latency p95": 5}); err == nil || !strings.Contains(err.Error(), `no figure "latency p95"`) {
		t.Errorf("unknown figure in thresholds: %v", err)
	}
}

func TestDifferences(t *testing.T) {
	a := []Values{{Scenario: "default", Kind: "steady", Model: "constant 500 tx/s for 30s", Workload: "kvstore"}}
	b := []Values{{Scenario: "default", Kind: "steady", Model: "constant 800 tx/s for 30s", Workload: "kvstore"}}
	d := Differences(a, b)
	if len(d) != 1 || !strings.Contains(d[0], "load: baseline") || !strings.Contains(d[0], "800") {
		t.Errorf("differences %q; want the load named", d)
	}
	if d := Differences(a, a); len(d) != 0 {
		t.Errorf("same runs differ: %q", d)
	}
}
