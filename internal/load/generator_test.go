package load

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

func startSink(t testing.TB) (*Sink, string) {
	t.Helper()
	l, url, err := ListenSink("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Sink{}
	go s.Serve(ctx, l)
	t.Cleanup(cancel)
	return s, url
}

// TestGeneratorAgainstSink: the generator sends exactly what the model
// asks for, single and batched, and the sink receives every tx.
func TestGeneratorAgainstSink(t *testing.T) {
	for _, batch := range []int{1, 20} {
		sink, url := startSink(t)
		l := NewLedger(time.Now().Add(10*time.Millisecond), false)
		g, err := NewGenerator(Config{
			Model: Constant{R: 2000, D: 2 * time.Second}, Workload: KVStore{RunID: "t", Size: 128},
			Targets: []string{url}, Method: "sync", Batch: batch, MaxInFlight: 32,
		}, l)
		if err != nil {
			t.Fatal(err)
		}
		n, err := g.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		s := l.Summary()
		if n != 4000 || s.Sent != 4000 || s.Accepted != 4000 || sink.Txs.Load() != 4000 {
			t.Errorf("batch %d: dispatched %d, sent %d, accepted %d, sink got %d; want 4000 each", batch, n, s.Sent, s.Accepted, sink.Txs.Load())
		}
		if !s.Balanced() {
			t.Errorf("batch %d: conservation law broken: %+v", batch, s.Fates)
		}
	}
}

// TestGeneratorRefusedConnections: a node that refuses connections costs
// send errors, recorded with their reason; the run goes on.
func TestGeneratorRefusedConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, s := runGen(t, Config{
		Model: Constant{R: 200, D: 500 * time.Millisecond}, Workload: KVStore{RunID: "t", Size: 100},
		Targets: []string{"http://" + addr}, Method: "sync", MaxInFlight: 8,
	}, true)
	if s.Sent != 100 || s.Fates[FateSendError] != 100 || !s.Balanced() {
		t.Errorf("sent %d, fates %v; want 100 send errors", s.Sent, s.Fates)
	}
	if len(s.TopReasons()) == 0 || !strings.Contains(s.TopReasons()[0], "send error") {
		t.Errorf("reasons = %v; want the send error's reason", s.Reasons)
	}
}

func TestCheckTargets(t *testing.T) {
	_, url := startSink(t)
	if err := CheckTargets(context.Background(), []string{url}); err != nil {
		t.Errorf("CheckTargets(sink) = %v", err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String()
	ln.Close()
	err := CheckTargets(context.Background(), []string{url, dead})
	if err == nil || !strings.Contains(err.Error(), "RPC node "+dead+" is unreachable") {
		t.Errorf("CheckTargets(dead) = %v; want it named unreachable", err)
	}
	if err := CheckTargets(context.Background(), []string{"127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "http://host:port") {
		t.Errorf("CheckTargets(no scheme) = %v", err)
	}
}

func TestParseReplies(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want []Outcome
	}{
		// The fast path: accepted, single and batched.
		{"sync ok", `{"jsonrpc":"2.0","id":7,"result":{"code":0,"data":"","log":"","codespace":"","hash":"AB"}}`, []Outcome{Accepted}},
		{"batch ok", `[{"jsonrpc":"2.0","id":7,"result":{"code":0,"data":"","log":"","codespace":"","hash":"AB"}},{"jsonrpc":"2.0","id":8,"result":{"code":0,"data":"","log":"","codespace":"","hash":"CD"}}]`, []Outcome{Accepted, Accepted}},
		// CheckTx said no.
		{"checktx code", `{"jsonrpc":"2.0","id":7,"result":{"code":2,"data":"","log":"bad tx","codespace":"","hash":"AB"}}`, []Outcome{Rejected}},
		// The node refused: mempool full.
		{"mempool full", `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error","data":"mempool is full: number of txs 5000 (max: 5000)"}}`, []Outcome{Rejected}},
		// One of a batch rejected, one accepted.
		{"batch mixed", `[{"jsonrpc":"2.0","id":7,"result":{"code":0,"data":"","log":"","codespace":"","hash":"AB"}},{"jsonrpc":"2.0","id":8,"error":{"code":-32603,"message":"Internal error","data":"mempool is full"}}]`, []Outcome{Accepted, Rejected}},
		// broadcast_tx_commit: CheckTx code inside check_tx.
		{"commit rejected", `{"jsonrpc":"2.0","id":7,"result":{"check_tx":{"code":3,"log":"no"},"tx_result":{"code":0},"hash":"AB","height":"0"}}`, []Outcome{Rejected}},
		{"commit ok", `{"jsonrpc":"2.0","id":7,"result":{"check_tx":{"code":0,"log":""},"tx_result":{"code":0},"hash":"AB","height":"5"}}`, []Outcome{Accepted}},
	} {
		replies, err := parseReplies([]byte(tc.body), nil)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(replies) != len(tc.want) {
			t.Errorf("%s: %d replies; want %d", tc.name, len(replies), len(tc.want))
			continue
		}
		for i, r := range replies {
			if o, _ := r.outcome(); o != tc.want[i] || r.ID != uint64(7+i) {
				t.Errorf("%s: reply %d = id %d outcome %d; want id %d outcome %d", tc.name, i, r.ID, o, 7+i, tc.want[i])
			}
		}
	}
}

// failing is a kvstore workload whose tx number at cannot be made.
type failing struct {
	KVStore
	at uint64
}

func (f failing) Append(ctx context.Context, buf []byte, seq uint64) ([]byte, error) {
	if seq == f.at {
		return buf, errors.New("key cannot sign")
	}
	return f.KVStore.Append(ctx, buf, seq)
}

// A tx the workload cannot make ends the run with that error (no panic);
// every tx recorded before has its fate, none is half recorded. A
// workload that makes every tx ends the run without error (the row above).
func TestGeneratorStopsOnWorkloadError(t *testing.T) {
	_, url := startSink(t)
	l := NewLedger(time.Now().Add(10*time.Millisecond), false)
	g, err := NewGenerator(Config{
		Model: Constant{R: 1000, D: 2 * time.Second}, Workload: failing{KVStore{RunID: "t", Size: 128}, 300},
		Targets: []string{url}, Method: "sync", MaxInFlight: 8,
	}, l)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = g.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "workload: tx 300: key cannot sign") {
		t.Fatalf("Run = %v; want the workload's error", err)
	}
	if time.Since(start) > time.Second {
		t.Errorf("the run went on for %s after the error at tx 300 (0.3 s)", time.Since(start))
	}
	l.Close()
	if s := l.Summary(); s.Sent < 290 || s.Sent >= 2000 || !s.Balanced() {
		t.Errorf("sent %d, fates %v; want the txs before 300, all with a fate", s.Sent, s.Fates)
	}
}

// slowSink answers every request after delay.
func slowSink(t *testing.T, delay time.Duration) string {
	return waitingSink(t, func() { time.Sleep(delay) })
}

// waitingSink serves a Sink whose broadcast requests call wait first.
func waitingSink(t *testing.T, wait func()) string {
	t.Helper()
	l, url, err := ListenSink("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Sink{}
	srv := &fasthttp.Server{Handler: func(c *fasthttp.RequestCtx) {
		if string(c.Path()) == "/" {
			wait()
		}
		s.Handle(c)
	}, Concurrency: 10000}
	go srv.Serve(l)
	t.Cleanup(func() { _ = srv.Shutdown() })
	return url
}

// runGen runs a generator to its end with a ledger (tracking each tx's
// fate when track) and returns its report and the ledger's summary.
func runGen(t *testing.T, cfg Config, track bool) (Report, Summary) {
	t.Helper()
	_, r, s := runGenerator(t, cfg, track)
	return r, s
}

// runGenerator is runGen that also gives the generator, for its senders.
func runGenerator(t *testing.T, cfg Config, track bool) (*Generator, Report, Summary) {
	t.Helper()
	l := NewLedger(time.Now().Add(10*time.Millisecond), track)
	g, err := NewGenerator(cfg, l)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.Close()
	s := l.Summary()
	return g, g.Report(s), s
}

// A node that answers in 25 ms with 2 requests allowed in flight cannot
// take 200 tx/s (80 a second at most): the run is bound, by the node,
// though every tx was sent in the end.
func TestSlowNodeIsNodeBound(t *testing.T) {
	url := slowSink(t, 25*time.Millisecond)
	r, s := runGen(t, Config{Model: Constant{R: 200, D: time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 2}, false)
	if s.Sent != 200 {
		t.Errorf("sent %d; want all 200 (late, not lost)", s.Sent)
	}
	if !r.Bound || r.BoundBy != BoundByNode || !strings.Contains(r.Why, "node-bound") {
		t.Errorf("report %+v; want bound by the node", r)
	}
	// A slower node with room to grow: senders are added past the first
	// 32 and the rate stays open loop (40 in flight needed). Growth
	// compares the answered rates of two windows, which a busy moment of a
	// 2-core machine can blur (CI saw connections held at 24 twice in a
	// day, at 148 and 158 tx/s, and twice in one run whose disk was
	// throttled): the claim must hold in one of three tries.
	var reports []Report
	for range 3 {
		url = slowSink(t, 100*time.Millisecond)
		r, _ = runGen(t, Config{Model: Constant{R: 400, D: 2 * time.Second}, Workload: KVStore{RunID: "t", Size: 64},
			Targets: []string{url}, Method: "sync", MaxInFlight: 256}, false)
		if !r.Bound && r.Senders > firstSenders {
			return
		}
		reports = append(reports, r)
	}
	t.Errorf("reports %+v; want not bound, more than %d senders", reports, firstSenders)
}

// stallingSink answers the requests that come in during the first stall
// of its life after stall, the rest at once.
func stallingSink(t *testing.T, stall time.Duration) string {
	born := time.Now()
	return waitingSink(t, func() {
		if time.Since(born) < stall {
			time.Sleep(stall)
		}
	})
}

// A stall in answers grows the senders (a workload that hears its sends
// takes them at any rate) past the first ones; once answers
// are quick again the extra senders are retired, and the report still
// gives the most that ran.
func TestSendersRetiredAfterAStall(t *testing.T) {
	defer func(w time.Duration) { senderWindow = w }(senderWindow)
	senderWindow = 200 * time.Millisecond
	url := stallingSink(t, 400*time.Millisecond)
	g, r, s := runGenerator(t, Config{Model: Constant{R: 400, D: 3 * time.Second}, Workload: &observed{KVStore{RunID: "t", Size: 64}},
		Targets: []string{url}, Method: "sync", MaxInFlight: 512}, false)
	// 400 tx/s waiting 0.4 s: about 160 in flight at the stall's height.
	if r.Senders < 100 {
		t.Errorf("report says %d senders at most; want the stall's (~160)", r.Senders)
	}
	if n := g.senders.Load(); n != firstSenders {
		t.Errorf("%d senders at the end, %d at most; want the extra ones retired, %d left", n, r.Senders, firstSenders)
	}
	if s.Sent != 1200 || s.Accepted != 1200 {
		t.Errorf("sent %d, accepted %d; want all 1200", s.Sent, s.Accepted)
	}
}

// A stall that grows the senders by releaseAfter or more has their memory
// given back once, a window after they are retired; a run whose node
// never stalls, and one that stalls less, give back nothing.
func TestMemoryReleasedAfterABurst(t *testing.T) {
	defer func(w time.Duration, f func()) { senderWindow, releaseMemory = w, f }(senderWindow, releaseMemory)
	senderWindow = 200 * time.Millisecond
	var releases atomic.Int64
	releaseMemory = func() { releases.Add(1) }
	for _, c := range []struct {
		name  string
		stall time.Duration
		rate  float64
		want  int64
	}{
		// 1,000 tx/s waiting 0.4 s: ~400 senders, ~370 of them retired.
		{"a burst", 400 * time.Millisecond, 1000, 1},
		// 200 tx/s waiting 0.4 s: ~80 senders, ~50 retired.
		{"a small one", 400 * time.Millisecond, 200, 0},
		{"no stall", 0, 1000, 0},
	} {
		releases.Store(0)
		url := stallingSink(t, c.stall)
		_, r, _ := runGenerator(t, Config{Model: Constant{R: c.rate, D: 2 * time.Second}, Workload: &observed{KVStore{RunID: "t", Size: 64}},
			Targets: []string{url}, Method: "sync", MaxInFlight: 1024}, false)
		if n := releases.Load(); n != c.want {
			t.Errorf("%s: memory given back %d times (senders %d at most); want %d", c.name, n, r.Senders, c.want)
		}
	}
}

// Trimming every 200 ms retires senders (a workload that hears its sends
// takes them) while the node is still slow
// without costing the run its schedule: after a 0.4 s stall the node
// answers in 50 ms (~20 in flight at 400 tx/s), the extra senders go, and
// every tx is still sent on time.
func TestTrimmingKeepsTheSchedule(t *testing.T) {
	defer func(w time.Duration) { senderWindow = w }(senderWindow)
	senderWindow = 200 * time.Millisecond
	born := time.Now()
	url := waitingSink(t, func() {
		if time.Since(born) < 400*time.Millisecond {
			time.Sleep(400 * time.Millisecond)
		} else {
			time.Sleep(50 * time.Millisecond)
		}
	})
	g, r, s := runGenerator(t, Config{Model: Constant{R: 400, D: 3 * time.Second}, Workload: &observed{KVStore{RunID: "t", Size: 64}},
		Targets: []string{url}, Method: "sync", MaxInFlight: 512}, false)
	if r.Bound || s.Sent != 1200 || r.OnTime != 1200 {
		t.Errorf("report %+v, sent %d; want not bound, all 1200 sent on time", r, s.Sent)
	}
	if n := g.senders.Load(); n >= r.Senders || r.Senders < 100 {
		t.Errorf("%d senders at the end, %d at most; want the stall's extra ones retired while answers still took 50 ms", n, r.Senders)
	}
}

// slowWorkload takes d to build each tx: chainperf's own work.
type slowWorkload struct {
	KVStore
	d time.Duration
}

func (w slowWorkload) Append(ctx context.Context, buf []byte, seq uint64) ([]byte, error) {
	time.Sleep(w.d)
	return w.KVStore.Append(ctx, buf, seq)
}

// A sender starved by its own work (tx building slower than the rate,
// one sender allowed) is generator-bound: the node answers at once.
func TestStarvedSenderIsGeneratorBound(t *testing.T) {
	_, url := startSink(t)
	r, _ := runGen(t, Config{Model: Constant{R: 400, D: 1 * time.Second}, Workload: slowWorkload{KVStore{RunID: "t", Size: 64}, 5 * time.Millisecond},
		Targets: []string{url}, Method: "sync", MaxInFlight: 1}, false)
	if !r.Bound || r.BoundBy != BoundByGenerator {
		t.Errorf("report %+v; want bound by the generator", r)
	}
	if r.OnTime >= int64(r.Due) {
		t.Errorf("on time %d of %.0f due; want fewer", r.OnTime, r.Due)
	}
}

// Open loop: txs go out at their intended times, not all at once. Each
// second of a 3 s run at 300 tx/s holds its 300 sends (a generator that
// sent everything at t=0 fails this), and lag stays small.
func TestPacingSpreadsSends(t *testing.T) {
	_, url := startSink(t)
	r, s := runGen(t, Config{Model: Constant{R: 300, D: 3 * time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 16}, false)
	if len(s.PerSecond) < 3 {
		t.Fatalf("per second %+v", s.PerSecond)
	}
	for i, sec := range s.PerSecond[:3] {
		if sec.Sent < 270 || sec.Sent > 330 {
			t.Errorf("second %d: %d sends; want about 300", i, sec.Sent)
		}
	}
	if r.Bound || r.OnTime < 891 {
		t.Errorf("report %+v; want on schedule", r)
	}
}

// A cancelled run owes only the txs due before it stopped.
func TestCancelledRunDueUpToTheStop(t *testing.T) {
	_, url := startSink(t)
	l := NewLedger(time.Now().Add(10*time.Millisecond), false)
	g, err := NewGenerator(Config{Model: Constant{R: 200, D: 10 * time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 8}, l)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = g.Run(ctx)
	l.Close()
	r := g.Report(l.Summary())
	if r.Due < 150 || r.Due > 250 {
		t.Errorf("due %.0f after 1 s of 200 tx/s; want about 200", r.Due)
	}
}

// The sink counts what arrives, by second, and says so at StatsPath.
func TestSinkStats(t *testing.T) {
	sink, url := startSink(t)
	runGen(t, Config{Model: Constant{R: 500, D: time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 8}, false)
	var sum int64
	for _, n := range sink.Stats().PerSecond {
		sum += n
	}
	code, body, err := fasthttp.Get(nil, url+StatsPath)
	if err != nil || code != 200 || sum != 500 || !strings.Contains(string(body), `"txs":500`) {
		t.Errorf("stats: %d %s %v; per-second sum %d; want 500", code, body, err, sum)
	}
}

// Users model: a tx's intended time is the end of its user's think time,
// so waiting for a free sender shows as lag (and latency). Ten users with
// no think time share one sender to a node that answers in 20 ms: each
// waits for the nine before it.
func TestUsersWaitForASenderCounts(t *testing.T) {
	url := slowSink(t, 20*time.Millisecond)
	_, s := runGen(t, Config{Model: Users{N: 10, Think: time.Millisecond, D: time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 1}, false)
	if s.Lag.P50 < 100 {
		t.Errorf("lag p50 %.1f ms; want the wait for the one sender (~180 ms)", s.Lag.P50)
	}
}

// A node that takes txs and never commits them fills the ledger to its
// cap; the run then stops with that reason instead of growing.
func TestGeneratorStopsAtThePendingCap(t *testing.T) {
	_, url := startSink(t)
	l := NewLedger(time.Now().Add(10*time.Millisecond), true)
	g, err := NewGenerator(Config{Model: Constant{R: 2000, D: 3 * time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 8, MaxPending: 1000}, l)
	if err != nil {
		t.Fatal(err)
	}
	n, err := g.Run(context.Background())
	if !errors.Is(err, ErrTooManyPending) || n > 1500 {
		t.Errorf("dispatched %d, err %v; want a stop near 1000 with too many unresolved", n, err)
	}
	l.Close()
	if s := l.Summary(); !s.Balanced() {
		t.Errorf("fates %v of %d sent: conservation broken", s.Fates, s.Sent)
	}
}

// A generator far behind still ends its phase at its length and the
// grace: 1 s of 1000 tx/s, each tx 10 ms to build with one sender, would
// take 10 s to hand out.
func TestPhaseEndsAtLengthAndGrace(t *testing.T) {
	_, url := startSink(t)
	began := time.Now()
	r, _ := runGen(t, Config{Model: Constant{R: 1000, D: time.Second}, Workload: slowWorkload{KVStore{RunID: "t", Size: 64}, 10 * time.Millisecond},
		Targets: []string{url}, Method: "sync", MaxInFlight: 1}, false)
	if took := time.Since(began); took > time.Second+PhaseGrace+2*time.Second || r.Dispatched >= 1000 {
		t.Errorf("took %s, dispatched %d of 1000; want the phase ended near %s", took, r.Dispatched, time.Second+PhaseGrace)
	}
	if !r.Bound {
		t.Errorf("report %+v; want bound", r)
	}
}

// TestStopEndsRequestsInFlight: a run stopped while its node sits on
// every request (30 s here, the timeout 20 s) returns at once; the txs
// in flight get their fate (send errors) instead of waiting out the
// timeout.
func TestStopEndsRequestsInFlight(t *testing.T) {
	l0, url, err := ListenSink("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	srv := &fasthttp.Server{Handler: func(c *fasthttp.RequestCtx) {
		select {
		case <-release:
		case <-time.After(30 * time.Second):
		}
	}}
	go srv.Serve(l0)
	t.Cleanup(func() { close(release); _ = srv.Shutdown() })
	l := NewLedger(time.Now(), true)
	g, err := NewGenerator(Config{Model: Constant{R: 100, D: 10 * time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 16, Timeout: 20 * time.Second}, l)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	g.Run(ctx)
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("a stopped run took %v to return: its requests waited for their timeout", took)
	}
	l.Close()
	s := l.Summary()
	if s.Sent == 0 || s.SendErrors != s.Sent || !s.Balanced() {
		t.Fatalf("summary %+v: want every tx sent and ended as a send error", s)
	}
}

// stamps records the time the generator gives each tx.
type stamps struct {
	KVStore
	mu sync.Mutex
	at map[uint64]time.Time
}

func (s *stamps) AppendAt(ctx context.Context, buf []byte, seq uint64, at time.Time) ([]byte, error) {
	s.mu.Lock()
	s.at[seq] = at
	s.mu.Unlock()
	return s.KVStore.Append(ctx, buf, seq)
}

// TestStamperGetsIntendedTimes: a Stamper's txs carry their intended send
// times from the schedule (seq / rate after the phase start), single and
// batched, not the moment they were made.
func TestStamperGetsIntendedTimes(t *testing.T) {
	for _, batch := range []int{1, 10} {
		_, url := startSink(t)
		start := time.Now().Add(10 * time.Millisecond)
		l := NewLedger(start, false)
		w := &stamps{KVStore: KVStore{RunID: "t", Size: 64}, at: map[uint64]time.Time{}}
		g, err := NewGenerator(Config{Model: Constant{R: 500, D: 400 * time.Millisecond}, Workload: w,
			Targets: []string{url}, Method: "sync", Batch: batch, MaxInFlight: 8}, l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(w.at) != 200 {
			t.Fatalf("batch %d: %d txs stamped; want 200", batch, len(w.at))
		}
		for seq, at := range w.at {
			want, _ := IntendedTime(Constant{R: 500, D: 400 * time.Millisecond}, float64(seq), 0)
			if d := at.Sub(l.Start()) - want; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("batch %d: tx %d stamped %s after the start; intended %s", batch, seq, at.Sub(l.Start()), want)
				break
			}
		}
	}
}

// A schedule in bursts goes out as asked: every tx at its burst's time,
// none late, through the pipelined path (a burst is one write a
// connection).
func TestBurstsSentOnTime(t *testing.T) {
	url := slowSink(t, 0)
	r, s := runGen(t, Config{Model: Bursts{M: Constant{R: 2000, D: 2 * time.Second}, Every: 250 * time.Millisecond},
		Workload: KVStore{RunID: "t", Size: 64}, Targets: []string{url}, Method: "sync", MaxInFlight: 1024}, false)
	if r.Bound || s.Sent != 4000 || s.Accepted != 4000 || r.OnTime != 4000 || r.Conns < 1 {
		t.Errorf("report %+v, summary sent %d accepted %d; want 4000 sent on time, pipelined, not bound", r, s.Sent, s.Accepted)
	}
	if !strings.Contains(r.Model, "in bursts every 250ms") {
		t.Errorf("model %q; want the bursts said", r.Model)
	}
}
