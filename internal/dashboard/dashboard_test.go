package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/chainperf/chainperf/internal/finding"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/store"
)

// fakeRun is a stored run made by hand: n seconds of a steady phase at
// committed tx/s, with blocks, node samples and an event.
func fakeRun(t *testing.T, st *store.Store, id, scenario string, labels map[string]string, start time.Time, committed float64, mods ...func(*results.Run)) *results.Run {
	t.Helper()
	ctx := context.Background()
	r := &results.Run{}
	r.ID, r.Scenario, r.Text, r.Labels, r.Start = id, scenario, "name = \""+scenario+"\"", labels, start
	if err := st.Begin(ctx, r, store.Owner{}); err != nil {
		t.Fatal(err)
	}
	const secs = 20
	p := &results.Phase{Name: "steady 1/1", Kind: "steady", Start: start, End: start.Add(secs * time.Second)}
	p.Ledger.Fates = map[load.Fate]int64{load.FateCommitted: int64(committed * secs)}
	for i := 0; i < secs; i++ {
		// A little noise, so that a run's own SE is not zero.
		c := int64(committed) + int64(i%3) - 1
		p.Ledger.PerSecond = append(p.Ledger.PerSecond, load.Second{Sent: c, Accepted: c, Committed: c, LatencyP50: 500, LatencyP99: 900 + float64(i%2)})
	}
	p.Window = [2]float64{2, secs}
	p.Figures = results.Figures{OfferedTPS: committed, SentTPS: committed, CommittedTPS: committed, LatencyP50: 500, LatencyP99: 900, Blocks: secs}
	for h := int64(1); h <= secs; h++ {
		b := observe.Block{Height: h, Time: start.Add(time.Duration(h) * time.Second), Seen: start.Add(time.Duration(h)*time.Second + 50*time.Millisecond),
			Txs: int(committed), Ours: int(committed), Round: 0, Proposer: "v0", LatencyMean: 500, LatencyMax: 950}
		p.Blocks = append(p.Blocks, b)
	}
	var samples []observe.Sample
	for i := 0; i < secs; i++ {
		at := start.Add(time.Duration(i) * time.Second)
		for _, n := range []string{"validator0", "validator1"} {
			samples = append(samples,
				observe.Sample{At: at, Node: n, Series: "cometbft_mempool_size", Value: float64(10 * i)},
				observe.Sample{At: at, Node: n, Series: observe.SeriesCPU, Value: 0.5 * float64(i)},
				observe.Sample{At: at, Node: n, Series: observe.SeriesRSS, Value: 100 << 20})
		}
	}
	if err := st.Samples(ctx, id, samples); err != nil {
		t.Fatal(err)
	}
	if err := st.Event(ctx, id, "perturbation", "kill validator1"); err != nil {
		t.Fatal(err)
	}
	r.Phases = []*results.Phase{p}
	r.Faults = []results.Fault{{What: "kill", Nodes: "validator1", Begin: start.Add(5 * time.Second), End: start.Add(10 * time.Second)}}
	r.Checks = []results.Check{{Name: "min committed tx/s", Op: ">=", Limit: 50, Value: committed, Pass: committed >= 50}}
	r.Passed = committed >= 50
	r.SetFinding(finding.Finding{Source: "observer/timeline", Title: "Where each height's time went",
		Charts: []finding.Chart{{Title: "Each node's commit after the first node's", XName: "height", Unit: "ms", X: []float64{3, 4, 5},
			Lines: []finding.ChartLine{{Label: "validator0", Values: []float64{0, 2, 1}}, {Label: "validator1", Values: []float64{12, math.NaN(), 30}}}}}})
	r.Status, r.End = results.StatusComplete, start.Add(secs*time.Second)
	for _, m := range mods {
		m(r)
	}
	for i, p := range r.Phases { // as a run records them: by phase, as they come
		for _, b := range p.Blocks {
			if err := st.Block(ctx, id, i, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.Finish(ctx, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// testServer serves a database the caller filled, opened read-only as
// `chainperf serve` opens it.
func testServer(t *testing.T, path string) *httptest.Server {
	t.Helper()
	ro, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	s, err := New(ro, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts
}

func newDB(t *testing.T) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runs.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

func get(t *testing.T, ts *httptest.Server, path string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header
}

func TestRunsListFiltersSortsAndPages(t *testing.T) {
	st, path := newDB(t)
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 120; i++ {
		branch := "main"
		if i%2 == 1 {
			branch = "dev"
		}
		fakeRun(t, st, fmt.Sprintf("run-%03d", i), "steady", map[string]string{"branch": branch}, t0.Add(time.Duration(i)*time.Minute), float64(100+i))
	}
	ts := testServer(t, path)

	code, body, _ := get(t, ts, "/")
	if code != 200 || !strings.Contains(body, "120 of 120 runs · page 1 of 3") {
		t.Fatalf("list: %d\n%s", code, body)
	}
	if got := strings.Count(body, `<tr data-run=`); got != pageSize {
		t.Fatalf("page 1 shows %d runs, want %d", got, pageSize)
	}
	// Newest first: run-119 at 219 tx/s leads.
	if i := strings.Index(body, `data-run="run-119"`); i < 0 || !strings.Contains(body[i:i+800], ">219<") {
		t.Fatalf("newest run or its committed tx/s not first:\n%s", body)
	}
	code, body, _ = get(t, ts, "/?label=branch%3Ddev&sort=committed&dir=asc&page=2")
	if code != 200 || !strings.Contains(body, "60 of 120 runs · page 2 of 2") {
		t.Fatalf("filtered list: %d\n%s", code, body)
	}
	// Page 2 of the dev runs by committed ascending starts at the 51st: run-101.
	first := strings.Index(body, `<tr data-run=`)
	if first < 0 || !strings.HasPrefix(body[first:], `<tr data-run="run-101"`) {
		t.Fatalf("page 2 sorted by committed should start at run-101:\n%s", body[first:first+200])
	}
	code, body, _ = get(t, ts, "/?from=2026-11-21")
	if code != 200 || !strings.Contains(body, "0 of 120 runs") {
		t.Fatalf("date filter: %d %s", code, body)
	}
}

func TestBadInputIsRefusedClearly(t *testing.T) {
	st, path := newDB(t)
	fakeRun(t, st, "r1", "steady", nil, time.Now().Add(-time.Hour), 100)
	ts := testServer(t, path)
	for _, c := range []struct {
		path string
		code int
		says string
	}{
		{"/runs/nope", 404, "no such run"},
		{"/runs/..%2f..%2fetc", 400, "not one chainperf makes"},
		{"/api/runs/nope", 404, "no such run"},
		{"/?sort=evil", 400, "sort by one of"},
		{"/?page=abc", 400, "a whole number"},
		{"/?page=0", 400, "a whole number"},
		{"/?status=weird", 400, "use one of"},
		{"/?from=yesterday", 400, "write a date"},
		{"/?label=novalue", 400, "KEY=VALUE"},
		{"/?x=1", 400, "unknown parameter"},
		{"/runs/r1?x=1", 400, "take no parameters"}, {"/api/runs/r1?x=1", 400, "take no parameters"},
		{"/runs/r1/files/..%2fsecret", 404, "no file"},
		{"/runs/r1/files/report.html", 404, "report folder is not here"},
		{"/compare?threshold=NaN&base=r1&cand=r1", 400, "a percentage above 0"},
		{"/compare?threshold=-5&base=r1&cand=r1", 400, "a percentage above 0"},
		{"/trends?figure=bogus", 400, "use one of"},
		{"/trends?window=0", 400, "1 to 50"},
		{"/nowhere", 404, "no page at"},
	} {
		code, body, h := get(t, ts, c.path)
		if code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %q, want %d saying %q", c.path, code, body, c.code, c.says)
		}
		if strings.Contains(body, "goroutine") || strings.Contains(body, ".go:") {
			t.Errorf("%s: a stack trace reached the page", c.path)
		}
		if h.Get("Content-Security-Policy") != csp {
			t.Errorf("%s: CSP %q", c.path, h.Get("Content-Security-Policy"))
		}
	}
	// No endpoint changes data: other methods are refused.
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		req, _ := http.NewRequest(m, ts.URL+"/runs/r1", strings.NewReader("x"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, resp.StatusCode)
		}
	}
}

func TestUserTextIsEscaped(t *testing.T) {
	st, path := newDB(t)
	evil := `<script>alert(1)</script>`
	fakeRun(t, st, "r1", "x"+evil, map[string]string{"who": evil}, time.Now().Add(-time.Hour), 100)
	ts := testServer(t, path)
	for _, p := range []string{"/", "/runs/r1", "/trends?label=who%3D" + url.QueryEscape(evil), "/compare?base=r1&cand=" + url.QueryEscape(evil)} {
		code, body, _ := get(t, ts, p)
		if strings.Contains(body, evil) {
			t.Errorf("%s (%d): unescaped user text in the page", p, code)
		}
		if !strings.Contains(body, "&lt;script&gt;") {
			t.Errorf("%s (%d): the user text is not shown escaped", p, code)
		}
	}
}

func TestServerWritesNothing(t *testing.T) {
	st, path := newDB(t)
	fakeRun(t, st, "r1", "steady", nil, time.Now().Add(-time.Hour), 100)
	fakeRun(t, st, "r2", "steady", nil, time.Now().Add(-time.Minute), 90)
	st.Close()
	before := snapshot(t, path)
	ts := testServer(t, path)
	for _, p := range []string{"/", "/runs/r1", "/api/runs/r1", "/compare?base=r1&cand=r2", "/api/compare?base=r1&cand=r2", "/trends", "/api/trends"} {
		if code, body, _ := get(t, ts, p); code != 200 {
			t.Fatalf("%s: %d %s", p, code, body)
		}
	}
	if after := snapshot(t, path); after != before {
		t.Fatalf("the database files changed under the dashboard:\nbefore %s\nafter  %s", before, after)
	}
	// And the store it holds cannot write: the read-only open is real.
	ro, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Event(context.Background(), "r1", "x", "y"); err == nil {
		t.Fatal("a write through the read-only store succeeded")
	}
}

// snapshot is the database file's size and contents hash (its -wal file
// too, when it holds anything: a WAL reader may make an empty one).
func snapshot(t *testing.T, path string) string {
	t.Helper()
	var out []string
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s:%d:%x", filepath.Base(p), len(b), hash(b)))
	}
	return strings.Join(out, " ")
}

func hash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

func TestRunDataHasTheRunsNumbers(t *testing.T) {
	st, path := newDB(t)
	r := fakeRun(t, st, "r1", "steady", nil, time.Now().Add(-time.Hour), 100)
	ts := testServer(t, path)
	code, body, _ := get(t, ts, "/api/runs/r1")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var tl struct {
		Status string
		Faults []span
		Charts []struct {
			ID    string
			X     []*float64
			Lines []struct {
				Label  string
				Values []*float64
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &tl); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for i, c := range tl.Charts {
		ids[c.ID] = i
		for _, l := range c.Lines {
			if len(l.Values) != len(c.X) {
				t.Errorf("chart %s line %s: %d values for %d x", c.ID, l.Label, len(l.Values), len(c.X))
			}
		}
	}
	for _, want := range []string{"throughput", "latency", "block-rate", "block-latency", "block-interval", "block-txs", "mempool", "cpu", "rss"} {
		if _, ok := ids[want]; !ok {
			t.Errorf("no %s chart (have %v)", want, ids)
		}
	}
	tp := tl.Charts[ids["throughput"]]
	committed := tp.Lines[2]
	for i, want := range observe.WindowRates(r.Phases[0].Blocks, r.Phases[0].Start, len(r.Phases[0].Ledger.PerSecond), rateWindow) {
		if v := committed.Values[i]; (v == nil) != math.IsNaN(want) || v != nil && *v != want {
			t.Fatalf("second %d: committed %v, the stored blocks' rate over 5 s %v", i, v, want)
		}
	}
	if len(tl.Faults) != 1 || tl.Faults[0].Label != "kill validator1" {
		t.Fatalf("faults %+v", tl.Faults)
	}
	// CPU is a rate: 0.5 s a second is 50 % of a core.
	cpu := tl.Charts[ids["cpu"]]
	if v := cpu.Lines[0].Values[1]; v == nil || *v != 50 {
		t.Fatalf("cpu %v, want 50 %%", v)
	}
}

func TestReportFilesOnlyFromTheRunsFolder(t *testing.T) {
	st, path := newDB(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "r1")
	os.MkdirAll(good, 0o755)
	os.WriteFile(filepath.Join(good, "summary.json"), []byte(`{"id":"r1"}`), 0o644)
	os.WriteFile(filepath.Join(good, "report.html"), []byte(`<html><body>report of r1</body></html>`), 0o644)
	os.MkdirAll(filepath.Join(good, "logs"), 0o755)
	os.WriteFile(filepath.Join(good, "logs", "validator0.log.gz"), []byte("log of r1"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(good, "logs", "passwd.log.gz"))
	// A crafted record naming a folder that is not the run's.
	other := filepath.Join(dir, "r2")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "report.html"), []byte("secret"), 0o644)

	in := func(dir string) func(*results.Run) { return func(r *results.Run) { r.ReportDir = dir } }
	fakeRun(t, st, "r1", "steady", nil, time.Now().Add(-time.Hour), 100, in(good))
	fakeRun(t, st, "r2", "steady", nil, time.Now().Add(-time.Hour), 100, in(other)) // holds no summary.json of r2
	fakeRun(t, st, "r3", "steady", nil, time.Now().Add(-time.Hour), 100, in(good))  // r1's folder
	ts := testServer(t, path)

	code, body, h := get(t, ts, "/runs/r1/files/report.html")
	if code != 200 || !strings.Contains(body, "report of r1") || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("r1 report: %d %q %v", code, body, h)
	}
	if _, body, _ := get(t, ts, "/runs/r1"); !strings.Contains(body, `href="/runs/r1/files/report.html"`) {
		t.Fatal("the run page does not link its report")
	}
	// The node logs report.html links, as downloads; nothing else from there.
	if code, body, h := get(t, ts, "/runs/r1/files/logs/validator0.log.gz"); code != 200 || body != "log of r1" || h.Get("Content-Disposition") != "attachment" {
		t.Errorf("r1's log: %d %q %v", code, body, h)
	}
	for _, p := range []string{"/runs/r2/files/report.html", "/runs/r3/files/report.html", "/runs/r1/files/passwd",
		"/runs/r1/files/logs/passwd.log.gz", "/runs/r1/files/logs/summary.json", "/runs/r3/files/logs/validator0.log.gz"} {
		if code, body, _ := get(t, ts, p); code != 404 || strings.Contains(body, "secret") || strings.Contains(body, "report of") {
			t.Errorf("%s: %d %q, want 404", p, code, body)
		}
	}
}

func TestTrendMarksARegression(t *testing.T) {
	st, path := newDB(t)
	t0 := time.Now().Add(-time.Hour)
	for i, tps := range []float64{100, 101, 99, 100, 60, 61} {
		fakeRun(t, st, fmt.Sprintf("n%d", i), "nightly", map[string]string{"branch": "main"}, t0.Add(time.Duration(i)*time.Minute), tps)
	}
	fakeRun(t, st, "other", "nightly", map[string]string{"branch": "dev"}, t0.Add(10*time.Minute), 10)
	ts := testServer(t, path)
	code, body, _ := get(t, ts, "/api/trends?scenario=nightly&label=branch%3Dmain&figure=committed+tx%2Fs")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var tr struct {
		Points []struct {
			Run     string
			Value   float64
			Verdict string
		}
	}
	json.Unmarshal([]byte(body), &tr)
	if len(tr.Points) != 6 {
		t.Fatalf("points %+v", tr.Points)
	}
	for i, p := range tr.Points {
		want := p.Verdict != "regressed"
		if i == 4 {
			want = p.Verdict == "regressed"
		}
		if !want {
			t.Errorf("run %s (%v tx/s): verdict %s", p.Run, p.Value, p.Verdict)
		}
	}
	code, body, _ = get(t, ts, "/trends?scenario=nightly&label=branch%3Dmain")
	if code != 200 || !strings.Contains(body, `href="/runs/n4"`) || strings.Contains(body, `href="/runs/n5"`) {
		t.Fatalf("trends page should list n4 (and only it) as a regression: %d\n%s", code, body)
	}
}

// TestTrendMarksANewLevel: nightly runs that drop from 100 to 80 tx/s
// after commit c4 show one change point, from run n5, between commits
// c4 and c5, in the page's table and the API's shifts; a steady series
// shows none.
func TestTrendMarksANewLevel(t *testing.T) {
	st, path := newDB(t)
	t0 := time.Now().Add(-time.Hour)
	for i, tps := range []float64{100, 101, 99, 100, 101, 80, 81, 79, 80, 81} {
		fakeRun(t, st, fmt.Sprintf("n%d", i), "nightly", map[string]string{"commit": fmt.Sprintf("c%d", i)}, t0.Add(time.Duration(i)*time.Minute), tps)
		fakeRun(t, st, fmt.Sprintf("s%d", i), "steady", nil, t0.Add(time.Duration(i)*time.Minute), 100+float64(i%2))
	}
	ts := testServer(t, path)
	code, body, _ := get(t, ts, "/trends?scenario=nightly")
	if code != 200 || !strings.Contains(body, `id="shifts"`) || !strings.Contains(body, `<code>c4</code>..<code>c5</code>`) || !strings.Contains(body, `href="/runs/n5"`) {
		t.Fatalf("trends page should mark the new level from n5 (c4..c5): %d\n%s", code, body)
	}
	var tr struct {
		Shifts []struct{ Run, Verdict string }
	}
	_, body, _ = get(t, ts, "/api/trends?scenario=nightly")
	if err := json.Unmarshal([]byte(body), &tr); err != nil || len(tr.Shifts) != 1 || tr.Shifts[0].Run != "n5" || tr.Shifts[0].Verdict != "regressed" {
		t.Errorf("api shifts %+v (%v)", tr.Shifts, err)
	}
	if _, body, _ = get(t, ts, "/trends?scenario=steady"); strings.Contains(body, `id="shifts"`) {
		t.Errorf("a steady series shows a new level:\n%s", body)
	}
}

func TestComparePageGivesCompareVerdicts(t *testing.T) {
	st, path := newDB(t)
	t0 := time.Now().Add(-time.Hour)
	for i, tps := range []float64{100, 101, 99} {
		fakeRun(t, st, fmt.Sprintf("a%d", i), "x", map[string]string{"side": "a"}, t0.Add(time.Duration(i)*time.Minute), tps)
	}
	for i, tps := range []float64{50, 51, 49} {
		fakeRun(t, st, fmt.Sprintf("b%d", i), "x", map[string]string{"side": "b"}, t0.Add(time.Duration(10+i)*time.Minute), tps)
	}
	ts := testServer(t, path)
	code, body, _ := get(t, ts, "/compare?base="+url.QueryEscape("label:side=a latest:3")+"&cand="+url.QueryEscape("label:side=b latest:3"))
	if code != 200 || !strings.Contains(body, "REGRESSED: committed tx/s") || !strings.Contains(body, `class="verdict-regressed gated"`) {
		t.Fatalf("compare page: %d\n%s", code, body)
	}
	// The same runs on both sides decide nothing: the page says so.
	code, body, _ = get(t, ts, "/compare?base=a0,a1,a2&cand=a0,a2")
	if code != 200 || strings.Contains(body, "REGRESSED") || !strings.Contains(body, `id="problem"`) || !strings.Contains(body, "runs a0, a2 are on both sides") {
		t.Fatalf("same runs: %d\n%s", code, body)
	}
	code, body, _ = get(t, ts, "/compare?base=nosuch&cand=a0")
	if code != 200 || !strings.Contains(body, `id="problem"`) || !strings.Contains(body, "no such run") {
		t.Fatalf("unknown side: %d\n%s", code, body)
	}
}

// TestADownNodeIsAGap: a node that stops answering for longer than a few
// scrapes shows a gap on the per-node charts, not a line drawn across
// its silence; a node sampled a moment after another holds its value.
func TestADownNodeIsAGap(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	var a, b []observe.Sample
	for s := 0; s < 12; s++ {
		a = append(a, observe.Sample{At: t0.Add(time.Duration(s) * time.Second), Value: 1})
		if s < 3 || s > 8 { // b down from 3 s to 8 s
			b = append(b, observe.Sample{At: t0.Add(time.Duration(s)*time.Second + 100*time.Millisecond), Value: 2})
		}
	}
	c := perNode("x", "x", "x", map[string][]observe.Sample{"a": a, "b": b}, 1, false)
	for i, x := range c.X {
		at := time.Unix(0, int64(float64(x)*1e9))
		got := float64(c.Lines[1].Values[i])
		// No value before its first sample (0.1 s), nor from 3 s after
		// its last before the silence (2.1 s) to its next (9.1 s).
		down := at.Before(t0.Add(100*time.Millisecond)) || at.After(t0.Add(5100*time.Millisecond)) && at.Before(t0.Add(9100*time.Millisecond))
		if down != math.IsNaN(got) {
			t.Errorf("node b at %v: %v (down %v)", at.Sub(t0), got, down)
		}
		if !down && got != 2 {
			t.Errorf("node b at %v: %v, want its value 2 held", at.Sub(t0), got)
		}
	}
}

// TestVerdictColumn: a run that met its criteria shows PASS, one that
// did not FAIL, one that is still going its status.
func TestVerdictColumn(t *testing.T) {
	st, path := newDB(t)
	t0 := time.Now().Add(-time.Hour)
	fakeRun(t, st, "good", "x", nil, t0, 100)
	fakeRun(t, st, "bad", "x", nil, t0.Add(time.Minute), 10) // below its 50 tx/s criterion
	going := &results.Run{Record: results.Record{ID: "going", Scenario: "x", Status: results.StatusRunning, Start: t0.Add(2 * time.Minute)}}
	if err := st.Begin(context.Background(), going, store.Owner{}); err != nil {
		t.Fatal(err)
	}
	ts := testServer(t, path)
	_, body, _ := get(t, ts, "/")
	for id, want := range map[string]string{"good": "PASS", "bad": "FAIL", "going": "running"} {
		i := strings.Index(body, `data-run="`+id+`"`)
		if i < 0 {
			t.Fatalf("no row for %s", id)
		}
		row := body[i : i+strings.Index(body[i:], "</tr>")]
		if !strings.Contains(row, `class="verdict verdict-`+want+`">`+want+`<`) {
			t.Errorf("%s: row %s, want verdict %s", id, row, want)
		}
	}
}

// A QA run's page shows its grid in the QA report's format with the
// saturation cell marked; a sweep run's page does not.
func TestQAPageShowsTheProcessedTable(t *testing.T) {
	st, path := newDB(t)
	grid := func(kind string) func(*results.Run) {
		return func(r *results.Run) {
			r.Phases[0].Kind = kind
			r.Sweep = &results.Sweep{Cells: []results.Cell{
				{Connections: 1, Rate: 200, Expected: 5800, Committed: 6000, Share: 1.03},
				{Connections: 1, Rate: 400, Expected: 11600, Committed: 7000, Share: 0.6, Saturated: true},
			}, Evidence: "200 tx/s held"}
			r.Sweep.At = &r.Sweep.Cells[0]
		}
	}
	fakeRun(t, st, "qa1", "qa", nil, time.Now().Add(-time.Hour), 100, grid(scenario.KindQA))
	fakeRun(t, st, "sw1", "sweep", nil, time.Now().Add(-time.Hour), 100, grid(scenario.KindSweep))
	ts := testServer(t, path)
	_, body, _ := get(t, ts, "/runs/qa1")
	for _, want := range []string{`id="qa"`, "6000 / 5800 &lt;- saturation", "7000 / 11600 (saturated)", "r=400", "c=1"} {
		if !strings.Contains(body, want) {
			t.Fatalf("the QA run's page has no %q", want)
		}
	}
	if _, body, _ = get(t, ts, "/runs/sw1"); strings.Contains(body, `id="qa"`) {
		t.Fatal("a sweep run's page shows the QA table")
	}
}

// TestServeAnswersOnlyItsOwnHost: on loopback the dashboard refuses a
// request whose Host is another name (DNS rebinding), and answers its own
// address by IP or as localhost.
func TestServeAnswersOnlyItsOwnHost(t *testing.T) {
	_, path := newDB(t)
	ro, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	s, err := New(ro, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, l) }()
	defer func() { cancel(); <-done }()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	for host, want := range map[string]int{
		"127.0.0.1:" + port:        200,
		"localhost:" + port:        200,
		"LOCALHOST:" + port:        200,
		"rebind.example:" + port:   http.StatusMisdirectedRequest,
		"127.0.0.1.nip.io:" + port: http.StatusMisdirectedRequest,
		"127.0.0.1:1":              http.StatusMisdirectedRequest,
	} {
		req, _ := http.NewRequest("GET", "http://"+l.Addr().String()+"/", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d; want %d", host, resp.StatusCode, want)
		}
	}
}
