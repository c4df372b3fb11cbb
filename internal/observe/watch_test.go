package observe

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	httppprof "net/http/pprof"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const exposition = `# HELP cometbft_mempool_size Number of uncommitted transactions in the mempool.
# TYPE cometbft_mempool_size gauge
cometbft_mempool_size{chain_id="chainperf"} 42
# HELP cometbft_p2p_peers Number of peers.
# TYPE cometbft_p2p_peers gauge
cometbft_p2p_peers{chain_id="chainperf"} 4
# HELP cometbft_consensus_block_interval_seconds Time between this and the last block.
# TYPE cometbft_consensus_block_interval_seconds histogram
cometbft_consensus_block_interval_seconds_bucket{chain_id="chainperf",le="1"} 2
cometbft_consensus_block_interval_seconds_bucket{chain_id="chainperf",le="+Inf"} 5
cometbft_consensus_block_interval_seconds_sum{chain_id="chainperf"} 6.5
cometbft_consensus_block_interval_seconds_count{chain_id="chainperf"} 5
# TYPE cometbft_mempool_failed_txs counter
cometbft_mempool_failed_txs{chain_id="chainperf",reason="full"} 7
`

func TestParseMetrics(t *testing.T) {
	at := time.Now()
	all, err := ParseMetrics(strings.NewReader(exposition), "validator0", nil, at)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, s := range all {
		if s.Node != "validator0" || !s.At.Equal(at) {
			t.Errorf("sample %+v: wrong node or time", s)
		}
		got[s.Series] = s.Value
	}
	want := map[string]float64{
		"cometbft_mempool_size":                           42,
		"cometbft_p2p_peers":                              4,
		"cometbft_consensus_block_interval_seconds_sum":   6.5,
		"cometbft_consensus_block_interval_seconds_count": 5,
		`cometbft_mempool_failed_txs{reason="full"}`:      7,
	}
	if len(got) != len(want) {
		t.Errorf("series %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %g, want %g", k, got[k], v)
		}
	}
	// Lines of families not kept are dropped before parsing; what is left
	// still parses to the same samples.
	keep := map[string]bool{"cometbft_consensus_block_interval_seconds": true}
	page, _, _ := keepLines(strings.NewReader(exposition), keep)
	pre, err := ParseMetrics(bytes.NewReader(page), "n", keep, at)
	if err != nil || len(pre) != 2 || pre[0].Series != "cometbft_consensus_block_interval_seconds_count" || pre[1].Value != 6.5 {
		t.Errorf("keepLines then parse = %+v, %v", pre, err)
	}
	kept, err := ParseMetrics(strings.NewReader(exposition), "n", map[string]bool{"cometbft_p2p_peers": true}, at)
	if err != nil || len(kept) != 1 || kept[0].Series != "cometbft_p2p_peers" {
		t.Errorf("allow-list: got %v, %v", kept, err)
	}
	for _, garbage := range []string{"<html>502 Bad Gateway</html>", "metric{ 1", "# TYPE x gauge\nx abc\n"} {
		if _, err := ParseMetrics(strings.NewReader(garbage), "n", nil, at); err == nil {
			t.Errorf("%q parsed without error", garbage)
		}
	}
}

// The watcher keeps going when a node's endpoint returns garbage, tells
// once when it starts and once when it stops failing, and samples its own
// process and the machine.
func TestWatcherSurvivesGarbage(t *testing.T) {
	var bad atomic.Bool
	bad.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if bad.Load() {
			w.Write([]byte("this is not prometheus {{{"))
			return
		}
		w.Write([]byte(exposition))
	}))
	defer srv.Close()

	var mu sync.Mutex
	var rounds [][]Sample
	var changes []string
	w := &Watcher{
		Targets:  []Target{{Node: "validator0", Metrics: srv.URL + "/metrics"}},
		Interval: 20 * time.Millisecond,
		Keep:     []string{"cometbft_mempool_size"},
		Sink:     func(s []Sample) { mu.Lock(); rounds = append(rounds, s); mu.Unlock() },
		OnError: func(node string, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				changes = append(changes, node+" failing")
			} else {
				changes = append(changes, node+" ok")
			}
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	time.Sleep(150 * time.Millisecond)
	bad.Store(false)
	time.Sleep(150 * time.Millisecond)
	cancel()
	<-done

	mu.Lock()
	defer mu.Unlock()
	if strings.Join(changes, ",") != "validator0 failing,validator0 ok" {
		t.Errorf("error changes %v, want one failing then one ok", changes)
	}
	var mempool, self, load1 int
	for _, r := range rounds {
		for _, s := range r {
			switch {
			case s.Node == "validator0" && s.Series == "cometbft_mempool_size" && s.Value == 42:
				mempool++
			case s.Node == Self && s.Series == SeriesRSS && s.Value > 1<<20:
				self++
			case s.Node == Machine && s.Series == SeriesLoad1:
				load1++
			}
		}
	}
	if mempool == 0 || self < len(rounds) || load1 < len(rounds) {
		t.Errorf("%d rounds: mempool samples %d, own RSS samples %d, load1 samples %d", len(rounds), mempool, self, load1)
	}
}

// Top reads a real allocation profile (this test process's) and ranks
// functions by alloc_space.
func TestTopOfAllocsProfile(t *testing.T) {
	keep := make([][]byte, 0, 2000)
	for i := 0; i < 2000; i++ {
		keep = append(keep, allocateForProfile())
	}
	_ = keep
	var buf bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	value, top, err := Top(buf.Bytes(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if value != "alloc_space (bytes)" {
		t.Errorf("ranked by %q, want alloc_space", value)
	}
	if len(top) == 0 || len(top) > 5 {
		t.Fatalf("top has %d entries", len(top))
	}
	found := false
	for _, f := range top {
		found = found || strings.HasSuffix(f.Func, "allocateForProfile")
	}
	if !found {
		t.Errorf("allocateForProfile (about 128 MiB) not in the top 5: %+v", top)
	}
	for i := 1; i < len(top); i++ {
		if top[i].Flat > top[i-1].Flat {
			t.Errorf("top not sorted: %+v", top)
		}
	}
	if _, _, err := Top([]byte("not a profile"), 5); err == nil {
		t.Error("garbage accepted as a profile")
	}
}

//go:noinline
func allocateForProfile() []byte { return make([]byte, 64<<10) }

// CaptureProfile fetches real profiles from net/http/pprof handlers (what
// CometBFT serves), cpu for its seconds included, keeps the file and ranks
// the top functions.
func TestCaptureProfile(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", httppprof.Index)
	mux.HandleFunc("/debug/pprof/profile", httppprof.Profile)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	stop := make(chan struct{})
	go func() { // something for the cpu and allocation profiles to see
		var keep []byte
		for {
			select {
			case <-stop:
				_ = keep
				return
			default:
				keep = make([]byte, 1024+len(keep)%7)
			}
		}
	}()
	defer close(stop)
	dir := t.TempDir()
	for _, tc := range []struct {
		kind, value string
		seconds     int // for allocs: 0 a snapshot, else what was allocated in those seconds
	}{{"allocs", "alloc_space (bytes)", 0}, {"allocs", "alloc_space (bytes)", 1}, {"cpu", "cpu (nanoseconds)", 1}} {
		p, err := CaptureProfile(context.Background(), "validator0", srv.URL+"/debug/pprof", tc.kind, tc.seconds, dir)
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		if p.Value != tc.value || len(p.Top) == 0 || p.Node != "validator0" || p.Kind != tc.kind || p.Seconds != tc.seconds {
			t.Errorf("%s profile = %+v", tc.kind, p)
		}
		if st, err := os.Stat(p.File); err != nil || st.Size() == 0 || filepath.Dir(p.File) != dir {
			t.Errorf("%s profile file %s: %v", tc.kind, p.File, err)
		}
	}
	if _, err := CaptureProfile(context.Background(), "validator0", srv.URL+"/nothing", "heap", 0, dir); err == nil {
		t.Error("a 404 was taken as a profile")
	}
}

// A hostile node's metrics page: one with a thousand series of a kept
// name keeps MaxSeriesPerName of them, the same ones each round, and says
// once how many it dropped; a page over MaxMetricsPage is an error for
// the node, not a page cut and parsed in part.
func TestWatcherBoundsAHostilePage(t *testing.T) {
	var huge atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if huge.Load() {
			line := []byte("cometbft_mempool_size{x=\"" + strings.Repeat("a", 1000) + "\"} 1\n")
			for range MaxMetricsPage/len(line) + 2 {
				w.Write(line)
			}
			return
		}
		fmt.Fprintln(w, "# TYPE cometbft_p2p_message_send_bytes_total counter")
		for i := range 1000 {
			fmt.Fprintf(w, "cometbft_p2p_message_send_bytes_total{message_type=\"m%04d\"} %d\n", i, i)
		}
	}))
	defer srv.Close()
	var mu sync.Mutex
	var rounds [][]Sample
	var drops, errs []string
	w := &Watcher{
		Targets: []Target{{Node: "validator0", Metrics: srv.URL}}, Interval: 20 * time.Millisecond,
		Keep: []string{"cometbft_p2p_message_send_bytes_total", "cometbft_mempool_size"},
		Sink: func(s []Sample) { mu.Lock(); rounds = append(rounds, s); mu.Unlock() },
		OnDrop: func(node, name string, n int) {
			mu.Lock()
			drops = append(drops, fmt.Sprintf("%s %s %d", node, name, n))
			mu.Unlock()
		},
		OnError: func(node string, err error) {
			mu.Lock()
			if err != nil {
				errs = append(errs, err.Error())
			}
			mu.Unlock()
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	time.Sleep(150 * time.Millisecond)
	huge.Store(true)
	// Until the oversized page was refused (16 MiB takes a while to write
	// under the race detector), 10 s at most.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(errs)
		mu.Unlock()
		if n > 0 {
			break
		}
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(drops) != 1 || drops[0] != "validator0 cometbft_p2p_message_send_bytes_total 872" {
		t.Errorf("drops %q; want one report of 872 of 1000 dropped", drops)
	}
	var kept []int
	for _, r := range rounds {
		n, last := 0, ""
		for _, s := range r {
			if strings.HasPrefix(s.Series, "cometbft_p2p_message_send_bytes_total") {
				n++
				last = s.Series
			}
		}
		if n > 0 {
			kept = append(kept, n)
			if last != `cometbft_p2p_message_send_bytes_total{message_type="m0127"}` {
				t.Errorf("a round kept up to %s; want the first 128 by their labels", last)
			}
		}
		for _, s := range r {
			if strings.HasPrefix(s.Series, "cometbft_mempool_size") {
				t.Errorf("a sample of the oversized page was kept: %s", s.Series[:40])
			}
		}
	}
	if len(kept) == 0 || slices.Max(kept) != MaxSeriesPerName {
		t.Errorf("series kept a round %v; want %d", kept, MaxSeriesPerName)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "more than 16 MiB: not read") {
		t.Errorf("errors %q; want the oversized page refused", errs)
	}
}

// Series that differ by a peer or a proposer fold into one a node: the
// bytes pending to every peer summed, the prevote delays after every
// proposer averaged; other series stay as they are.
func TestFold(t *testing.T) {
	at := time.Now()
	var in []Sample
	for i := range 25 {
		in = append(in, Sample{At: at, Node: "v0", Series: fmt.Sprintf(`cometbft_p2p_peer_pending_send_bytes{peer_id="p%02d"}`, i), Value: 100},
			Sample{At: at, Node: "v0", Series: fmt.Sprintf(`cometbft_consensus_quorum_prevote_delay{proposer_address="a%02d"}`, i), Value: float64(i)})
	}
	in = append(in, Sample{At: at, Node: "v0", Series: `cometbft_p2p_message_send_bytes_total{message_type="mempool_Txs"}`, Value: 7})
	sort.Slice(in, func(i, j int) bool { return in[i].Series < in[j].Series })
	got := map[string]float64{}
	for _, s := range Fold(in, Folded) {
		got[s.Series] = s.Value
	}
	want := map[string]float64{"cometbft_p2p_peer_pending_send_bytes": 2500, "cometbft_consensus_quorum_prevote_delay": 12,
		`cometbft_p2p_message_send_bytes_total{message_type="mempool_Txs"}`: 7}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Fold = %v, want %v", got, want)
	}
}

// A real page read through keepLines (the kept families' lines, without
// their histograms' buckets) parses to the same samples as the whole page
// with the same families kept, and none of those buckets is left.
func TestKeepLinesSameSamples(t *testing.T) {
	page, keep := realPage(t)
	at := time.Now()
	whole, err := ParseMetrics(bytes.NewReader(page), "v", keep, at)
	if err != nil {
		t.Fatal(err)
	}
	kept, cut, err := keepLines(bytes.NewReader(page), keep)
	if err != nil || cut != nil {
		t.Fatalf("keepLines: %v, cut %v", err, cut)
	}
	got, err := ParseMetrics(bytes.NewReader(kept), "v", keep, at)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) < 30 || !slices.Equal(got, whole) {
		t.Errorf("filtered page: %d samples, whole page %d; want the same (and 30 or more)", len(got), len(whole))
	}
	if bytes.Contains(kept, []byte("_bucket{")) || len(kept) > len(page)/3 {
		t.Errorf("kept %d of %d bytes, buckets among them: %v", len(kept), len(page), bytes.Contains(kept, []byte("_bucket{")))
	}
}

// BenchmarkScrapePage reads a real page (testdata/cometbft-metrics.txt:
// validator0 of the default testnet, CometBFT's own exposition) as the
// watcher does each interval: the default scenario's families kept,
// their lines filtered, then parsed.
func BenchmarkScrapePage(b *testing.B) {
	page, keep := realPage(b)
	at := time.Now()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		kept, _, err := keepLines(bytes.NewReader(page), keep)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ParseMetrics(bytes.NewReader(kept), "validator0", keep, at); err != nil {
			b.Fatal(err)
		}
	}
}

// realPage reads testdata/cometbft-metrics.txt and the families the
// default scenario keeps from its file (observe.metrics).
func realPage(tb testing.TB) ([]byte, map[string]bool) {
	page, err := os.ReadFile("testdata/cometbft-metrics.txt")
	if err != nil {
		tb.Fatal(err)
	}
	text, err := os.ReadFile("../scenario/default.toml")
	if err != nil {
		tb.Fatal(err)
	}
	_, list, _ := strings.Cut(string(text), "\nmetrics = [")
	list, _, _ = strings.Cut(list, "]")
	keep := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*"([a-z_]+)"`).FindAllStringSubmatch(list, -1) {
		keep[m[1]] = true
	}
	if len(keep) < 20 {
		tb.Fatalf("read %d families from the default scenario's observe.metrics", len(keep))
	}
	return page, keep
}

// labelOf is a transport that notes the chainperf profile label of each
// request's context.
type labelOf struct {
	mu   sync.Mutex
	seen []string
}

func (l *labelOf) RoundTrip(r *http.Request) (*http.Response, error) {
	v, _ := pprof.Label(r.Context(), "chainperf")
	l.mu.Lock()
	l.seen = append(l.seen, v)
	l.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// A round's scrapes count as the scraper's CPU, not the observer's that
// runs the watch (the harness line splits them).
func TestScrapesAreTheScrapers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(exposition)) }))
	defer srv.Close()
	l := &labelOf{}
	w := &Watcher{Targets: []Target{{Node: "validator0", Metrics: srv.URL}, {Node: "validator1", Metrics: srv.URL}},
		client: &http.Client{Transport: l}, failing: map[string]bool{}, dropped: map[string]bool{}}
	pprof.Do(context.Background(), pprof.Labels("chainperf", "observer"), func(ctx context.Context) { w.round(ctx, nil) })
	if fmt.Sprint(l.seen) != "[scraper scraper]" {
		t.Errorf("scrapes labelled %v; want [scraper scraper]", l.seen)
	}
}
