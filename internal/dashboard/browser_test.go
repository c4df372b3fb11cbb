package dashboard

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/browser"
	"github.com/chainperf/chainperf/internal/browser/browsertest"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
)

// TestPagesDrawInABrowser opens every page in headless Chromium: each
// draws its charts (canvases with painted pixels), shows the stored
// numbers, and logs no console error, exception or CSP violation.
func TestPagesDrawInABrowser(t *testing.T) {
	b := browsertest.Start(t)
	st, path := newDB(t)
	t0 := time.Now().Add(-time.Hour)
	for i, tps := range []float64{100, 101, 99, 60} {
		fakeRun(t, st, fmt.Sprintf("r%d", i), "nightly", map[string]string{"branch": "main"}, t0.Add(time.Duration(i)*time.Minute), tps)
	}
	ts := testServer(t, path)
	for _, c := range []struct {
		path   string
		charts int
		sel    string
		text   string
	}{
		{"/", 0, `tr[data-run="r3"] td.committed`, "60.00"},
		{"/runs/r1", 9, "#criteria td.num", "101"}, // 8 over time, 1 over heights
		{"/compare?base=r0,r1,r2&cand=r3", 1, "#verdict", "REGRESSED: committed tx/s"},
		{"/trends?scenario=nightly", 1, "#regressions td a", "r3"},
	} {
		if _, err := b.Open(ts.URL+c.path, 20*time.Second); err != nil {
			t.Fatalf("%s: %v (errors: %v)", c.path, err, b.Errors())
		}
		if got, err := b.Text(c.sel); err != nil || got != c.text {
			t.Errorf("%s: %s shows %q (%v), want %q", c.path, c.sel, got, err, c.text)
		}
		painted, err := b.Painted()
		if err != nil {
			t.Fatal(err)
		}
		if len(painted) < c.charts {
			t.Errorf("%s: %d charts drawn, want at least %d", c.path, len(painted), c.charts)
		}
		for i, n := range painted {
			if n == 0 {
				t.Errorf("%s: chart %d is blank", c.path, i)
			}
		}
		if errs := b.Errors(); len(errs) > 0 {
			t.Errorf("%s: console errors: %v", c.path, errs)
		}
	}
}

// The runs list picks two runs to compare: its form sends the baseline
// and the candidate picked to the compare page, which compares them.
func TestRunsListPicksTwoToCompare(t *testing.T) {
	b := browsertest.Start(t)
	st, path := newDB(t)
	t0 := time.Now().Add(-time.Hour)
	for i, tps := range []float64{100, 60} {
		fakeRun(t, st, fmt.Sprintf("r%d", i), "nightly", nil, t0.Add(time.Duration(i)*time.Minute), tps)
	}
	ts := testServer(t, path)
	if _, err := b.Open(ts.URL+"/", 20*time.Second); err != nil {
		t.Fatal(err)
	}
	query, err := browser.Eval[string](b, `(function () {
		document.querySelector('input[name=base][value=r0]').click();
		document.querySelector('input[name=cand][value=r1]').click();
		var f = document.getElementById('pick');
		return f.getAttribute('action') + '?' + new URLSearchParams(new FormData(f)).toString();
	})()`)
	u, perr := url.Parse(query)
	if err != nil || perr != nil || u.Path != "/compare" || u.Query().Get("base") != "r0" || u.Query().Get("cand") != "r1" {
		t.Fatalf("the runs list's form sends %q (%v); want /compare with base=r0 and cand=r1", query, err)
	}
	if _, err := b.Open(ts.URL+query, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Text("#verdict"); err != nil || !strings.Contains(got, "committed tx/s") {
		t.Errorf("compare of the picked runs: verdict %q (%v)", got, err)
	}
}

// TestChartsShowTheTruth opens the pages in Chromium and fails on each way
// a chart misled before: a trend of one run drew an empty chart over
// years; compare drew both sides at x = 1; committed tx/s in 1 s buckets
// swung between 0 and a block's worth; the pause between phases looked
// like a stall; latency had no percentile plot on a log scale.
func TestChartsShowTheTruth(t *testing.T) {
	b := browsertest.Start(t)
	st, path := newDB(t)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	fakeRun(t, st, "base", "pair", nil, t0, 100)
	// Two phases 5 s apart; blocks every 2 s, so each other second
	// commits 200 and the seconds between none.
	lonely := fakeRun(t, st, "lonely", "alone", nil, t0.Add(time.Minute), 100, func(r *results.Run) {
		steady := r.Phases[0]
		warm := &results.Phase{Name: "warm-up", Kind: "warmup", Start: steady.Start, End: steady.Start.Add(10 * time.Second)}
		warm.Ledger.PerSecond = steady.Ledger.PerSecond[:10]
		steady.Start, steady.End = warm.End.Add(5*time.Second), warm.End.Add(25*time.Second)
		for i := range steady.Ledger.PerSecond {
			steady.Ledger.PerSecond[i].Committed = int64(200 * (i % 2))
		}
		steady.Ledger.LatencyCurve = []load.Quantile{{Percent: 0, MS: 400}, {Percent: 90, MS: 900}, {Percent: 99, MS: 1500}, {Percent: 100, MS: 4000}}
		r.Phases = []*results.Phase{warm, steady}
	})
	fakeRun(t, st, "cand", "pair", nil, t0.Add(2*time.Minute), 60)
	ts := testServer(t, path)
	open := func(path string) {
		t.Helper()
		if _, err := b.Open(ts.URL+path, 20*time.Second); err != nil {
			t.Fatalf("%s: %v (errors: %v)", path, err, b.Errors())
		}
		if errs := b.Errors(); len(errs) > 0 {
			t.Errorf("%s: console errors: %v", path, errs)
		}
	}
	eval := func(js string) []float64 {
		t.Helper()
		v, err := browser.Eval[[]float64](b, js)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}

	open("/trends?scenario=alone")
	x := eval(`(function () { const u = chainperfPlots.trend; return [u.scales.x.min, u.scales.x.max, u.data[1].length]; })()`)
	start := float64(lonely.Start.Unix())
	if x[2] != 1 || x[0] > start || x[1] < start || x[1]-x[0] > 2*86400 {
		t.Errorf("trend of one run: axis %s .. %s (%v points); want about a day around %s",
			time.Unix(int64(x[0]), 0).UTC(), time.Unix(int64(x[1]), 0).UTC(), x[2], lonely.Start.UTC())
	}

	open("/compare?base=base&cand=cand")
	x = eval(`(function () {
		const u = chainperfPlots['figure-0'], at = function (s) { return u.data[0][u.data[s].findIndex(function (v) { return v != null; })]; };
		return [at(1), at(2), u.scales.x.min, u.scales.x.max, chainperfPlots['overlay-committed'].data.length];
	})()`)
	if math.Abs(x[0]-1) > 0.25 || math.Abs(x[1]-2) > 0.25 || x[2] != 0.5 || x[3] != 2.5 {
		t.Errorf("compare: baseline at x=%v, candidate at x=%v on %v..%v; want 1 and 2 on 0.5..2.5", x[0], x[1], x[2], x[3])
	}
	if x[4] != 3 { // x and a line a run
		t.Errorf("compare: the overlay has %v columns; want x and the two runs", x[4])
	}

	open("/runs/lonely")
	mean := eval(`(function () {
		const u = chainperfPlots.throughput, k = u.series.findIndex(function (s) { return s.label === 'committed, 5 s mean'; });
		return u.data[k].filter(function (v) { return v != null; });
	})()`)
	steady := mean[len(mean)-20:]
	for i := 3; i < 17; i++ { // the steady phase's seconds away from its ends
		if steady[i] < 75 || steady[i] > 125 {
			t.Errorf("committed at second %d of the steady phase: %.0f tx/s; want the 100 it averages (the chart saws)", i, steady[i])
		}
	}
	rates := eval(`chainperfPlots['block-rate'].data[1]`)
	if len(rates) != 19 || rates[5] != 100 {
		t.Errorf("per-block rates %v: want 19 blocks at 100 tx/s", rates)
	}
	if d := eval(`[chainperfPlots['latency-curve'].scales.y.distr]`); d[0] != 3 {
		t.Errorf("latency curve's y scale distr %v; want 3 (log)", d)
	}
	// The pause (10-15 s) is shaded grey on the throughput chart.
	px := eval(fmt.Sprintf(`(function () {
		const u = chainperfPlots.throughput, x = Math.round(u.valToPos(%d, 'x', true)), out = [];
		[0.3, 0.5, 0.7].forEach(function (f) {
			const y = Math.round(u.bbox.top + f * u.bbox.height), d = u.ctx.getImageData(x, y, 1, 1).data;
			out.push(d[0], d[1], d[2], d[3]);
		});
		return out;
	})()`, lonely.Start.Unix()+12))
	// The canvas is transparent over the page's white: a shaded pixel is
	// grey with some alpha, an unshaded one has none.
	for i := 0; i < len(px); i += 4 {
		if px[i] != px[i+1] || px[i+1] != px[i+2] || px[i+3] < 30 || px[i+3] > 120 {
			t.Errorf("the pause's pixel (RGBA %v) is not shaded grey", px[i:i+4])
		}
	}
}
