package dashboard

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/browser"
	"github.com/chainperf/chainperf/internal/browser/browsertest"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
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
	// Two phases 5 s apart; in the second, 100 tx/s in blocks of 1.4 s
	// (so the seconds seen commit 140, 280 or none) and no block from
	// 11.2 s to 18.2 s; then a drain of a second at the end.
	lonely := fakeRun(t, st, "lonely", "alone", nil, t0.Add(time.Minute), 100, func(r *results.Run) {
		steady := r.Phases[0]
		warm := &results.Phase{Name: "warm-up", Kind: "warmup", Start: steady.Start, End: steady.Start.Add(10 * time.Second)}
		warm.Ledger.PerSecond = steady.Ledger.PerSecond[:10]
		steady.Start, steady.End = warm.End.Add(5*time.Second), warm.End.Add(30*time.Second)
		steady.Blocks, steady.Ledger.PerSecond = blocksEvery(steady.Start, 1400*time.Millisecond, 25, 9, 12)
		steady.Ledger.LatencyCurve = []load.Quantile{{Percent: 0, MS: 400}, {Percent: 90, MS: 900}, {Percent: 99, MS: 1500}, {Percent: 100, MS: 4000}}
		drain := &results.Phase{Name: "drain", Kind: "drain", Start: steady.End, End: steady.End.Add(time.Second)}
		drain.Ledger.PerSecond = steady.Ledger.PerSecond[:1]
		r.Phases = []*results.Phase{warm, steady, drain}
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
	line := func(chart, label string) []float64 {
		t.Helper()
		return eval(fmt.Sprintf(`(function () {
			const u = chainperfPlots[%q], k = u.series.findIndex(function (s) { return s.label === %q; });
			return k < 0 ? [] : u.data[k].map(function (v, i) { return u.data[0][i] > %d ? (v == null ? -1 : v) : -2; }).filter(function (v) { return v !== -2; });
		})()`, chart, label, lonely.Phases[1].Start.Unix()))
	}
	// Over 5 s of whole blocks the steady phase's 100 tx/s is flat (a 5 s
	// mean of its seconds sawed between 84 and 112), and the stall falls.
	committed := line("throughput", committedLabel)
	for i := 7; i <= 12 && i < len(committed); i++ {
		if math.Abs(committed[i]-100) > 1 {
			t.Errorf("committed at second %d of the steady phase: %.1f tx/s; want a flat 100 (the chart saws)", i, committed[i])
		}
	}
	if len(committed) < 18 || committed[17] < 0 || committed[17] > 60 {
		t.Errorf("committed in the stall (second 17): %v; want a fall below 60", committed[min(17, len(committed)):])
	}
	// Latency goes on over the seconds without a block between blocks
	// (no null before the stall) and breaks in the stall.
	lat := line("latency", "p50")
	gaps := 0
	for i, v := range lat {
		if v == -1 {
			gaps++
			if i < 8 {
				t.Errorf("latency: a gap at point %d, before the stall (%v): the line breaks into fragments", i, lat)
			}
		}
	}
	if gaps == 0 {
		t.Errorf("latency %v: no gap in the 7 s stall", lat)
	}
	rates := eval(`chainperfPlots['block-rate'].data[1]`)
	if len(rates) != 12 || rates[3] != 100 {
		t.Errorf("per-block rates %v: want 12 blocks at 100 tx/s", rates)
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

// blocksEvery is a phase's blocks from start, one each every, holding
// 100 tx/s (each one's latency 500 ms), but none of the ks in skip's
// range (a stall), and the ledger's n seconds that go with them: each
// second's txs of the blocks seen in it, its latency when it has any.
func blocksEvery(start time.Time, every time.Duration, n, skipFrom, skipTo int) ([]observe.Block, []load.Second) {
	var blocks []observe.Block
	secs := make([]load.Second, n)
	per := int(100 * every.Seconds())
	for k := 1; time.Duration(k)*every < time.Duration(n)*time.Second; k++ {
		if k >= skipFrom && k <= skipTo {
			continue
		}
		at := start.Add(time.Duration(k) * every)
		b := observe.Block{Height: int64(len(blocks) + 1), Time: at, Seen: at.Add(50 * time.Millisecond), Txs: per, Ours: per, LatencyMean: 500, LatencyMax: 900}
		blocks = append(blocks, b)
		if sec := int(b.Seen.Sub(start) / time.Second); sec < n {
			secs[sec].Committed += int64(per)
			secs[sec].LatencyP50, secs[sec].LatencyP99 = 500, 900
		}
	}
	for i := range secs {
		secs[i].Sent, secs[i].Accepted = 100, 100
	}
	return blocks, secs
}

// TestChartsKeepTheirPromises opens a find-max run's page in Chromium and
// fails on each way its charts misled before: y axes that started near
// the data (RSS of a constant 100 MiB drawn as a cliff), a node's colour
// that changed between charts (validator1 is first of one line on the
// peers chart), phase labels clipped at the plot's edge or over one
// another, times without their zone, offered load drawn as the phase's
// mean, and no sign of the latency find-max held.
func TestChartsKeepTheirPromises(t *testing.T) {
	b := browsertest.Start(t)
	st, path := newDB(t)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	offered := make([]float64, 20)
	for i := range offered {
		offered[i] = 50 + 5*float64(i)
	}
	fm := fakeRun(t, st, "fm", "findmax", nil, t0, 100, func(r *results.Run) {
		p := r.Phases[0]
		p.Name, p.Kind, p.Offered = "find-max", "find-max", offered
		r.FindMax = &results.FindMax{Hold: "latency", TargetMS: 1200, MaxTPS: 100}
		for _, name := range []string{"drain after the find-max phase", "cool-down"} {
			last := r.Phases[len(r.Phases)-1]
			q := &results.Phase{Name: name, Kind: "steady", Start: last.End, End: last.End.Add(time.Second)}
			q.Ledger.PerSecond = p.Ledger.PerSecond[:1]
			r.Phases = append(r.Phases, q)
		}
	})
	// Two runs of a trend, five days apart.
	fakeRun(t, st, "d0", "days", nil, t0.Add(-5*24*time.Hour), 100)
	fakeRun(t, st, "d1", "days", nil, t0, 100)
	var peers []observe.Sample
	for i := range 20 {
		peers = append(peers, observe.Sample{At: t0.Add(time.Duration(i) * time.Second), Node: "validator1", Series: "cometbft_p2p_peers", Value: 3})
	}
	if err := st.Samples(context.Background(), "fm", peers); err != nil {
		t.Fatal(err)
	}
	ts := testServer(t, path)
	if _, err := b.Open(ts.URL+"/runs/fm", 20*time.Second); err != nil {
		t.Fatalf("%v (errors: %v)", err, b.Errors())
	}
	type look struct {
		NotFromZero, Clipped, Overlapping, Labels []string
		Colours                                   map[string]string
		Axis, Unzoned                             string
		Offered, Held                             []float64
	}
	got, err := browser.Eval[look](b, `(function () {
		const out = {NotFromZero: [], Clipped: [], Overlapping: [], Labels: [], Colours: {}, Offered: [], Held: []};
		const stroke = function (u, k) { const s = u.series[k].stroke; return typeof s === 'function' ? s(u, k) : s; };
		Object.keys(chainperfPlots).forEach(function (id) {
			const u = chainperfPlots[id];
			if (u.scales.y.distr !== 3 && u.scales.y.min !== 0) out.NotFromZero.push(id + ' from ' + u.scales.y.min);
			u.series.forEach(function (s, k) { if (s.label === 'validator1') out.Colours[id] = stroke(u, k); });
		});
		const u = chainperfPlots.throughput, bb = u.bbox, boxes = u.labelBoxes || [];
		boxes.forEach(function (x, i) {
			out.Labels.push(x.label);
			// The label's own dark grey pixels are in its box.
			const d = u.ctx.getImageData(x.left, x.top, x.right - x.left, x.bottom - x.top).data;
			let ink = 0;
			for (let j = 0; j < d.length; j += 4) if (d[j] < 90 && d[j] === d[j + 1] && d[j + 1] === d[j + 2] && d[j + 3] > 100) ink++;
			if (ink < 20) out.Clipped.push(x.label + ' (' + ink + ' pixels of ink)');
			if (x.left < bb.left || x.right > bb.left + bb.width || x.bottom > bb.top + bb.height) out.Clipped.push(x.label);
			boxes.slice(0, i).forEach(function (y) {
				if (x.left < y.right && y.left < x.right && x.top < y.bottom && y.top < x.bottom) out.Overlapping.push(y.label + ' / ' + x.label);
			});
		});
		out.Axis = u.axes[0].label;
		const k = u.series.findIndex(function (s) { return s.label === 'offered'; });
		out.Offered = u.data[k].slice(0, 20);
		const l = chainperfPlots['block-latency'], h = l.series.findIndex(function (s) { return s.label === 'find-max target (block max held)'; });
		out.Held = h < 0 ? [] : l.data[h].filter(function (v) { return v != null; });
		const text = document.body.innerText, re = /\d\d:\d\d:\d\d(\.\d+)?/g;
		out.Unzoned = '';
		for (let m = re.exec(text); m && !out.Unzoned; m = re.exec(text)) {
			if (text.substr(m.index + m[0].length, 4) !== ' UTC') out.Unzoned = text.substr(m.index, 30);
		}
		return out;
	})()`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.NotFromZero) > 0 {
		t.Errorf("y axes not from zero: %v", got.NotFromZero)
	}
	if c := got.Colours; c["peers"] == "" || c["peers"] != c["cpu"] || c["cpu"] != c["rss"] {
		t.Errorf("validator1's colour by chart: %v; want one colour", c)
	}
	if len(got.Labels) != len(fm.Phases) || len(got.Clipped) > 0 || len(got.Overlapping) > 0 {
		t.Errorf("phase labels %v: clipped %v, over one another %v", got.Labels, got.Clipped, got.Overlapping)
	}
	if !strings.HasPrefix(got.Axis, "time (UTC, ") || got.Unzoned != "" {
		t.Errorf("time axis %q; a time without its zone on the page: %q", got.Axis, got.Unzoned)
	}
	if fmt.Sprint(got.Offered) != fmt.Sprint(offered) {
		t.Errorf("offered %v; want the model's per second %v", got.Offered, offered)
	}
	if len(got.Held) < 15 || slices.ContainsFunc(got.Held, func(v float64) bool { return v != 1200 }) {
		t.Errorf("find-max's held latency on the block latency chart: %v; want 1200 ms over the phase's blocks", got.Held)
	}
	// A trend over days reads dates on its axis, not hours alone.
	if _, err := b.Open(ts.URL+"/trends?scenario=days", 20*time.Second); err != nil {
		t.Fatal(err)
	}
	ticks, err := browser.Eval[[]string](b, `chainperfPlots.trend.axes[0]._values.filter(function (v) { return v; })`)
	if err != nil || len(ticks) < 2 || !regexp.MustCompile(`^\d{4}-\d\d-\d\d$`).MatchString(ticks[0]) || len(slices.Compact(slices.Clone(ticks))) != len(ticks) {
		t.Errorf("a trend over five days: axis labels %q (%v); want dates, each once", ticks, err)
	}
}

// TestLogPaneFollowsTheCharts: a run's page shows the first node's kept
// log, as text (a line of markup shows its tags); zooming a chart to a
// few seconds shows only that node's lines written then; another node
// picked shows its own; a run that kept no logs says so.
func TestLogPaneFollowsTheCharts(t *testing.T) {
	b := browsertest.Start(t)
	st, path := newDB(t)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	fakeRun(t, st, "logged", "logs", nil, t0, 100)
	fakeRun(t, st, "quiet", "logs", nil, t0.Add(time.Minute), 100)
	line := func(sec int, msg string) string {
		return "I[" + t0.Add(time.Duration(sec)*time.Second).Local().Format("2006-01-02|15:04:05.000") + "] " + msg
	}
	for _, node := range []string{"validator0", "validator1"} {
		var text []string
		for sec := 1; sec <= 9; sec += 2 {
			text = append(text, line(sec, fmt.Sprintf("%s committed state at %d s", node, sec)))
		}
		text = append(text, line(9, "<b>bold</b> from "+node))
		if err := st.Log(context.Background(), "logged", store.NodeLog{Node: node, Text: []byte(strings.Join(text, "\n") + "\n")}); err != nil {
			t.Fatal(err)
		}
	}
	ts := testServer(t, path)
	shown := func(want string) (string, string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			got, err := browser.Eval[[]string](b, `[document.getElementById('logs').dataset.shown || '', document.getElementById('log-lines').innerHTML]`)
			if err == nil && got[0] == want && got[1] != "" || time.Now().After(deadline) {
				if err != nil {
					t.Fatal(err)
				}
				return got[0], got[1]
			}
		}
	}
	if _, err := b.Open(ts.URL+"/runs/logged", 20*time.Second); err != nil {
		t.Fatal(err)
	}
	q, html := shown("")
	if strings.Count(html, "validator0 committed state") != 5 || !strings.Contains(html, "&lt;b&gt;bold&lt;/b&gt;") || strings.Contains(html, "validator1") {
		t.Errorf("the pane at first (%q): %s; want validator0's 6 lines, the markup as text", q, html)
	}
	// 2.5-5.5 s, which the axis pads a little and the pane takes whole.
	from, to := t0.Add(2*time.Second).Unix(), t0.Add(6*time.Second).Unix()
	browser.Eval[bool](b, fmt.Sprintf(`chainperfPlots.throughput.setScale('x', {min: %d.5, max: %d.5}) || true`, from, to-1))
	want := fmt.Sprintf("from=%d&to=%d", from, to)
	q, html = shown("node=validator0&" + want) // the first node, now picked in the list
	if q != "node=validator0&"+want || strings.Count(html, "committed state") != 2 || !strings.Contains(html, "at 3 s") || !strings.Contains(html, "at 5 s") {
		t.Errorf("zoomed to 2-6 s (%q): %s; want the lines at 3 and 5 s", q, html)
	}
	browser.Eval[bool](b, `(function () { const s = document.getElementById('log-node'); s.value = 'validator1'; s.dispatchEvent(new Event('change')); return true; })()`)
	q, html = shown("node=validator1&" + want)
	if !strings.Contains(html, "validator1 committed state at 3 s") || strings.Contains(html, "validator0") {
		t.Errorf("validator1 picked (%q): %s", q, html)
	}
	if _, err := b.Open(ts.URL+"/runs/quiet", 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, html = shown(""); !strings.Contains(html, "no logs kept") {
		t.Errorf("a run that kept no logs: %q", html)
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
