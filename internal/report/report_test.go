package report

import (
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
)

// TestWriteRendersEveryChart renders a run with blocks, node series and a
// perturbation, and checks the four files and the HTML's charts: inline
// SVG only, nothing fetched from a network, the perturbation shaded.
func TestWriteRendersEveryChart(t *testing.T) {
	r, series := fixture()
	dir := t.TempDir()
	paths, err := Write(dir, r, series)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 4 {
		t.Fatalf("paths %v", paths)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(html)
	// 10 s of blocks: no whole minute, so no blocks/min or txs/min.
	for _, title := range []string{"Offered, sent and committed tx/s", "Commit latency per block", "Commit latency by percentile (HDR, log scales)", "Block interval",
		"Txs per block", "Block size", "Rounds per height", "Mempool size", "Peers per node", "RSS per node", "CPU per node", "Machine load"} {
		if !strings.Contains(doc, "<figcaption>"+title+"</figcaption><svg") {
			t.Errorf("chart %q missing", title)
		}
	}
	if n := strings.Count(doc, "<svg"); n != 12 {
		t.Errorf("%d SVGs; want 12", n)
	}
	for _, remote := range []string{"<script src", "<link ", "http://", "https://"} {
		if strings.Contains(strings.ReplaceAll(doc, "http://www.w3.org/", ""), remote) {
			t.Errorf("report fetches something: %q", remote)
		}
	}
	for _, want := range []string{"<h2>Steady: 3 repeats</h2>", "<h2>Find-max</h2>", "<td>max sustainable tx/s</td><td>2048</td>",
		"<h2>Rotating nodes</h2>", "1 of 2 rotating nodes caught up", "FAILED: not caught up within 30s"} {
		if !strings.Contains(doc, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(md), "| max sustainable tx/s | 2048 |") || !strings.Contains(string(md), "| rotate1 |") {
		t.Errorf("report.md lacks the find-max or rotation tables:\n%s", md)
	}
	if !strings.Contains(doc, "pause validator0") {
		t.Error("perturbation not listed")
	}
	// One orange band on each of the 7 time charts (throughput, latency
	// per block, mempool, peers, RSS, CPU, load).
	if n := strings.Count(doc, `style="fill:#FE8B00;fill-opacity:0.19608"`); n != 7 {
		t.Errorf("%d perturbation bands drawn; want 7", n)
	}
}

// Bands span each fault; one that did not end lasts to the end.
func TestBandsSpanFaults(t *testing.T) {
	o := time.Unix(0, 0)
	at := func(s float64) time.Time { return o.Add(time.Duration(s * float64(time.Second))) }
	got := bands([]results.Fault{{What: "kill", Nodes: "validator3", Begin: at(2), End: at(9)},
		{What: "pause", Nodes: "full0", Begin: at(4), End: at(6)}, {What: "kill", Nodes: "validator1", Begin: at(10)}}, o, 20)
	want := []band{{2, 9, "kill validator3"}, {4, 6, "pause full0"}, {10, 20, "kill validator1"}}
	if len(got) != len(want) {
		t.Fatalf("bands %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("band %d = %v; want %v", i, got[i], want[i])
		}
	}
}

// fixture is a run with one phase of blocks, node series, a perturbation
// and the experiment summaries (steady spread, find-max, rotations).
func fixture() (*results.Run, []observe.Sample) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	ph := &results.Phase{Model: "constant 100 tx/s for 10s", Start: start, End: start.Add(12 * time.Second),
		Ledger: load.Summary{Sent: 1000, Fates: map[load.Fate]int64{load.FateCommitted: 1000},
			Latency:     load.Percentiles{Count: 1000, P50: 900, P99: 1800},
			LatencyHist: []load.Bucket{{UpToMS: 500, Count: 100}, {UpToMS: 1000, Count: 800}, {UpToMS: 2000, Count: 100}}}}
	for i := 0; i < 10; i++ {
		ph.Ledger.PerSecond = append(ph.Ledger.PerSecond, load.Second{Sent: 100, Committed: 100})
		at := start.Add(time.Duration(i+1) * time.Second)
		ph.Blocks = append(ph.Blocks, observe.Block{Height: int64(10 + i), Time: at, Seen: at, Txs: 100, Ours: 100, Bytes: 30000, LatencyMean: 900, LatencyMax: 1500})
	}
	r := &results.Run{Record: results.Record{ID: "r1", Scenario: "t", Status: results.StatusComplete, Start: start, End: start.Add(20 * time.Second)},
		Outcome: results.Outcome{Passed: true, Phases: []*results.Phase{ph}},
		Findings: results.Findings{Events: []results.Event{{At: start.Add(3 * time.Second), Kind: "perturbation", Detail: "pause validator0"},
			{At: start.Add(5 * time.Second), Kind: "perturbation", Detail: "continue validator0"}},
			Faults: []results.Fault{{What: "pause", Nodes: "validator0", Begin: start.Add(3 * time.Second), End: start.Add(5 * time.Second), CatchUp: -1}}}}
	var series []observe.Sample
	for i := 0; i < 10; i++ {
		at := start.Add(time.Duration(i) * time.Second)
		for _, n := range []string{"validator0", "full0"} {
			series = append(series,
				observe.Sample{At: at, Node: n, Series: "cometbft_mempool_size", Value: float64(10 * i)},
				observe.Sample{At: at, Node: n, Series: "cometbft_p2p_peers", Value: 4},
				observe.Sample{At: at, Node: n, Series: observe.SeriesRSS, Value: 40 << 20},
				observe.Sample{At: at, Node: n, Series: observe.SeriesCPU, Value: float64(i) * 0.3})
		}
		series = append(series, observe.Sample{At: at, Node: observe.Machine, Series: observe.SeriesLoad1, Value: 1.5})
	}
	r.Steady = &results.Steady{Repeats: 3, CommittedTPS: results.SpreadOf([]float64{99, 100, 101})}
	r.FindMax = &results.FindMax{Hold: "latency", TargetMS: 3000, MaxTPS: 2048, Low: 1990, High: 2100, Batches: 6, BatchSeconds: 5, HeldMS: 2575, Evidence: "2048 tx/s committed"}
	r.Rotations = []results.Rotation{{Node: "rotate0", Started: start, Tip: 40, Height: 41, CatchUp: 3.5, BlocksPer: 11.7, CaughtUp: true},
		{Node: "rotate1", Started: start, Tip: 80, Height: 12, Error: "not caught up within 30s: height 12 of tip 80"}}
	return r, series
}

// The QA table: a row per c, a column per r, processed / expected, the
// saturation cell marked and the cells past it.
func TestProcessedTable(t *testing.T) {
	sw := &results.Sweep{Cells: []results.Cell{
		{Connections: 1, Rate: 200, Committed: 17800, Expected: 17800},
		{Connections: 1, Rate: 400, Committed: 35600, Expected: 35600},
		{Connections: 2, Rate: 200, Committed: 35600, Expected: 35600},
		{Connections: 2, Rate: 400, Committed: 40000, Expected: 71200, Saturated: true},
	}}
	sw.At = &sw.Cells[2]
	got := sw.ProcessedTable()
	want := [][]string{
		{`c \ r`, "r=200", "r=400"},
		{"c=1", "17800 / 17800", "35600 / 35600"},
		{"c=2", "35600 / 35600 <- saturation", "40000 / 71200 (saturated)"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("table\n%q\nwant\n%q", got, want)
	}
}

// Blocks every second with 10 txs each: 60 blocks/min and 600 txs/min at
// every block once a whole minute is behind it (none before: a part of a
// minute is not scaled up); half as many blocks in a later minute halve
// both.
func TestPerMinute(t *testing.T) {
	o := time.Unix(1000, 0)
	var blocks []observe.Block
	for s := 0; s <= 120; s++ {
		blocks = append(blocks, observe.Block{Height: int64(s + 1), Time: o.Add(time.Duration(s) * time.Second), Txs: 10})
	}
	for s := 122; s <= 240; s += 2 {
		blocks = append(blocks, observe.Block{Height: int64(len(blocks) + 1), Time: o.Add(time.Duration(s) * time.Second), Txs: 10})
	}
	bpm, tpm := perMinute(blocks, o)
	for i, p := range bpm {
		want := 60.0
		if p.X >= 180 {
			want = 30
		}
		if (p.X <= 120 || p.X >= 180) && (math.Abs(p.Y-want) > 1e-9 || math.Abs(tpm[i].Y-10*want) > 1e-9) {
			t.Errorf("at %gs: %g blocks/min, %g txs/min; want %g and %g", p.X, p.Y, tpm[i].Y, want, 10*want)
		}
	}
	if len(bpm) == 0 || bpm[0].X != 60 {
		t.Errorf("first point %v; want at 60 s, a whole minute in", bpm[:min(len(bpm), 3)])
	}
}

// Heights are whole: the ticks of a finding's chart are whole numbers a
// round step apart.
func TestWholeTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     string
	}{{5, 23, "5 10 15 20"}, {3, 9, "3 4 5 6 7 8 9"}, {100, 1500, "200 400 600 800 1000 1200 1400"}, {7, 7, "7"}} {
		var got []string
		for _, tk := range (wholeTicks{}).Ticks(tc.min, tc.max) {
			got = append(got, tk.Label)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("ticks %g..%g = %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

// The summary names every criterion judged with its mark, and says when
// none was set (a PASS then means only that the run completed).
func TestSummarySaysWhichCriteriaWereJudged(t *testing.T) {
	r := &results.Run{}
	r.Status = results.StatusComplete
	r.Checks = []results.Check{
		{Name: "committed tx/s", Op: ">=", Limit: 100, Value: 120, Pass: true},
		{Name: "latency p99 ms", Op: "<=", Limit: 500, Value: 900, Pass: false},
	}
	var b strings.Builder
	Summary(&b, r, nil)
	for _, want := range []string{"passed:     1 of 2 criteria: committed tx/s", "failed:     latency p99 ms = 900 (limit <= 500)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "none set") {
		t.Errorf("says no criteria were set:\n%s", b.String())
	}
	b.Reset()
	none := &results.Run{}
	none.Status = results.StatusComplete
	Summary(&b, none, nil)
	if !strings.Contains(b.String(), "criteria:   none set") {
		t.Errorf("a run with no criteria does not say so:\n%s", b.String())
	}
}

// A phase whose sends repeated a tx in flight says so beside its fates;
// one without says nothing of it.
func TestSummarySaysRepeats(t *testing.T) {
	for _, n := range []int64{0, 2} {
		r := &results.Run{Outcome: results.Outcome{Phases: []*results.Phase{{Name: "steady", Kind: "steady", Followed: true,
			Ledger: load.Summary{Sent: 10, Repeats: n, Fates: map[load.Fate]int64{load.FateCommitted: 10 - n}}}}}}
		r.Status = results.StatusComplete
		var b strings.Builder
		Summary(&b, r, nil)
		if got := strings.Contains(b.String(), "repeats:    2 sends carried the same bytes as a tx still without a fate"); got != (n > 0) {
			t.Errorf("%d repeats: said %v:\n%s", n, got, b.String())
		}
	}
}

// The nodes' kept logs go beside report.html, compressed, secrets masked,
// and report.html links each; a node name that cannot be a file name is
// left out.
func TestReportLinksTheNodeLogs(t *testing.T) {
	r, series := fixture()
	dir := t.TempDir()
	written, err := WriteLogs(dir, []Log{{Node: "validator0", Text: []byte("I[2026-11-22|10:00:01.000] dialing postgres://u:s3cret@db:5432/x\n")},
		{Node: "../escape", Text: []byte("x")}})
	if err != nil || len(written) != 1 {
		t.Fatalf("wrote %v: %v", written, err)
	}
	if _, err := Write(dir, r, series); err != nil {
		t.Fatal(err)
	}
	html := string(mustReadFile(t, filepath.Join(dir, "report.html")))
	if !strings.Contains(html, `<a href="logs/validator0.log.gz">validator0</a>`) || strings.Contains(html, "escape") {
		t.Errorf("report.html does not link validator0's log alone")
	}
	f, err := os.Open(filepath.Join(dir, "logs", "validator0.log.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(zr)
	if !strings.Contains(string(text), "dialing postgres://db:5432/x") || strings.Contains(string(text), "s3cret") {
		t.Errorf("the kept log: %q", text)
	}
}
