package load

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// pipelineAll makes every schedule of the test take the pipelined path.
func pipelineAll(t *testing.T) {
	old := pipelineAbove
	pipelineAbove = 0
	t.Cleanup(func() { pipelineAbove = old })
}

func serveFast(t *testing.T, srv *fasthttp.Server) string {
	t.Helper()
	pipelineAll(t)
	l, url, err := ListenSink("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { _ = srv.Shutdown() })
	return url
}

var idRe = regexp.MustCompile(`"id":(\d+)`)

// oddRejected answers like a node that accepts even ids and rejects odd
// ones, single or batched.
func oddRejected(body []byte) []byte {
	var out bytes.Buffer
	ids := idRe.FindAllSubmatch(body, -1)
	batch := bytes.HasPrefix(body, []byte("["))
	if batch {
		out.WriteByte('[')
	}
	for i, m := range ids {
		id, _ := strconv.Atoi(string(m[1]))
		if i > 0 {
			out.WriteByte(',')
		}
		fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%d,"result":{"code":%d,"data":"","log":"odd","codespace":"","hash":""}}`, id, id%2)
	}
	if batch {
		out.WriteByte(']')
	}
	return out.Bytes()
}

// Pipelined answers come back in order and each reaches its own request:
// against a node that rejects odd ids, exactly the odd txs are rejected
// (an answer matched to the wrong request would make a send error: its
// id is not the request's), single and batched, through fasthttp's server
// and through net/http's (CometBFT's), whose longer answers are chunked.
func TestPipelinedAnswersReachTheirRequests(t *testing.T) {
	fast := serveFast(t, &fasthttp.Server{Handler: func(c *fasthttp.RequestCtx) {
		c.SetContentType("application/json")
		c.SetBody(oddRejected(c.PostBody()))
	}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		_, _ = body.ReadFrom(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, _ = w.Write(oddRejected(body.Bytes())) // no Content-Length: chunked past 2 KiB
	})}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	std := "http://" + l.Addr().String()
	for _, url := range []string{fast, std} {
		for _, batch := range []int{1, 10} {
			r, s := runGen(t, Config{Model: Constant{R: 2000, D: time.Second}, Workload: KVStore{RunID: "t", Size: 64},
				Targets: []string{url}, Method: "sync", Batch: batch, MaxInFlight: 64}, false)
			if s.Sent != 2000 || s.Accepted != 1000 || s.Rejected != 1000 || s.SendErrors != 0 {
				t.Errorf("%s batch %d: %+v; want 2000 sent, 1000 accepted, 1000 rejected, no send error", url, batch, s)
			}
			if r.Conns < 1 {
				t.Errorf("%s batch %d: report %+v; want the pipelined path (connections counted)", url, batch, r)
			}
		}
	}
}

// A node that closes the connection after a few answers (Connection:
// close) loses the requests pipelined behind them: they are send errors,
// named, and the run goes on on new connections to its end.
func TestPipelinedNodeClosesConnection(t *testing.T) {
	s := &Sink{}
	url := serveFast(t, &fasthttp.Server{Handler: s.Handle, MaxRequestsPerConn: 5})
	_, sum := runGen(t, Config{Model: Constant{R: 2000, D: time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 64}, false)
	if sum.Sent != 2000 || sum.Accepted+sum.SendErrors != 2000 || sum.Accepted < 1000 {
		t.Fatalf("summary %+v; want all 2000 sent, most accepted, the rest send errors", sum)
	}
	// The node may have taken txs whose answers its close erased: a
	// server that closes with requests unread sends a reset, and the reset
	// may drop answers not yet read (RFC 9112 9.6). They are send errors
	// that wait for a block (Ledger.Sent), never accepted.
	if took := s.Txs.Load(); took < sum.Accepted || took > sum.Accepted+sum.SendErrors {
		t.Errorf("the node took %d txs, %d accepted, %d send errors", took, sum.Accepted, sum.SendErrors)
	}
	for why := range sum.Reasons {
		if !strings.Contains(why, "closed the connection") {
			t.Errorf("send error %q; want the node's close named", why)
		}
	}
}

// A node that never answers: every request fails at its timeout, named,
// and the run ends then, not later.
func TestPipelinedTimeout(t *testing.T) {
	release := make(chan struct{})
	url := serveFast(t, &fasthttp.Server{Handler: func(c *fasthttp.RequestCtx) { <-release }})
	defer close(release)
	start := time.Now()
	_, sum := runGen(t, Config{Model: Constant{R: 100, D: 500 * time.Millisecond}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 64, Timeout: 300 * time.Millisecond}, false)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the run took %v; want its end soon after the last timeout", took)
	}
	if sum.Sent != 50 || sum.SendErrors != 50 {
		t.Fatalf("summary %+v; want 50 sent, 50 send errors", sum)
	}
	for why := range sum.Reasons {
		if !strings.Contains(why, "no answer within 300ms") {
			t.Errorf("send error %q; want the timeout named", why)
		}
	}
}

// An endpoint that answers each request 2 ms late, one at a time a
// connection (as HTTP/1.1 does), holds 5,000 tx/s only with ~10 requests
// in flight on as many connections: the run opens them and is not bound.
func TestPipelinedSlowEndpointHeld(t *testing.T) {
	s := &Sink{Delay: 2 * time.Millisecond}
	url := serveFast(t, &fasthttp.Server{Handler: s.Handle, Concurrency: 10000})
	r, sum := runGen(t, Config{Model: Constant{R: 5000, D: 2 * time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 1024}, false)
	if r.Bound || sum.Accepted != 10000 {
		t.Fatalf("report %+v, summary %+v; want 10000 accepted, not bound", r, sum)
	}
	if r.Conns < 10 {
		t.Errorf("%d connections; want 10 or more for 5000 tx/s at 2 ms each", r.Conns)
	}
}

// Schedules of plain txs over http:// take the pipelined path at any
// rate, feedback ones above 20,000 tx/s only; an https target, a closed
// loop and a workload that hears its sends go through senders (the
// pipelined path speaks plain HTTP).
func TestPipelinedOnlyWhereItFits(t *testing.T) {
	l := NewLedger(time.Now(), false)
	for _, c := range []struct {
		cfg  Config
		want bool
	}{
		{Config{Model: Constant{R: 20001, D: time.Second}, Workload: KVStore{}, Targets: []string{"http://127.0.0.1:1"}, Method: "sync"}, true},
		{Config{Model: Constant{R: 20000, D: time.Second}, Workload: KVStore{}, Targets: []string{"http://127.0.0.1:1"}, Method: "sync"}, true},
		{Config{Model: Constant{R: 10, D: time.Second}, Workload: KVStore{}, Targets: []string{"http://127.0.0.1:1"}, Method: "sync"}, true},
		{Config{Model: NewPID(PIDConfig{Max: 20001, D: time.Second}, 500), Workload: KVStore{}, Targets: []string{"http://127.0.0.1:1"}, Method: "sync"}, true},
		{Config{Model: Ramp{From: 1000, To: 30000, D: time.Second}, Workload: KVStore{}, Targets: []string{"http://127.0.0.1:1"}, Method: "sync"}, true},
		{Config{Model: NewPID(PIDConfig{Max: 20000, D: time.Second}, 500), Workload: KVStore{}, Targets: []string{"http://127.0.0.1:1"}, Method: "sync"}, false},
		{Config{Model: Constant{R: 30000, D: time.Second}, Workload: KVStore{}, Targets: []string{"https://127.0.0.1:1"}, Method: "sync"}, false},
		{Config{Model: Max{D: time.Second}, Workload: KVStore{}, Targets: []string{"http://127.0.0.1:1"}, Method: "sync"}, false},
		{Config{Model: Constant{R: 30000, D: time.Second}, Workload: &observed{}, Targets: []string{"http://127.0.0.1:1"}, Method: "sync"}, false},
	} {
		g, err := NewGenerator(c.cfg, l)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.pipelined(); got != c.want {
			t.Errorf("%+v: pipelined %v, want %v", c.cfg, got, c.want)
		}
	}
}

type observed struct{ KVStore }

func (observed) Sent(uint64, Outcome, string) {}

// The pipelined path says who held the load back as the senders do: a
// node that answers in 25 ms with 2 requests allowed in flight is the
// node's bound; a workload slower than the rate, with the node answering
// at once, is chainperf's.
func TestPipelinedBoundBy(t *testing.T) {
	pipelineAll(t)
	url := slowSink(t, 25*time.Millisecond)
	r, s := runGen(t, Config{Model: Constant{R: 200, D: time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 2}, false)
	if r.Conns == 0 || s.Sent != 200 || !r.Bound || r.BoundBy != BoundByNode {
		t.Errorf("slow node: report %+v, %d sent; want pipelined, all 200 sent, bound by the node", r, s.Sent)
	}
	_, url = startSink(t)
	r, _ = runGen(t, Config{Model: Constant{R: 400, D: time.Second}, Workload: slowWorkload{KVStore{RunID: "t", Size: 64}, 5 * time.Millisecond},
		Targets: []string{url}, Method: "sync", MaxInFlight: 1}, false)
	if r.Conns == 0 || !r.Bound || r.BoundBy != BoundByGenerator {
		t.Errorf("slow workload: report %+v; want pipelined, bound by the generator", r)
	}
}

// Growth is held only when connections were added, the node fell behind
// what it was sent and its answered rate did not rise in the window after
// (where they answer): then for growHold,
// twice as long after a second failed try; after a hold a try adds a
// quarter of the connections at most. A node that keeps up, or answers
// faster with more connections, gets them.
func TestGrowthOnlyWhileItRaisesTheRate(t *testing.T) {
	var tg pipeTarget
	now := time.Unix(0, 0)
	conns := 0
	// window ends a window in which the target was handed handed txs and
	// answered answered, then asks for k connections; it returns how many
	// it got.
	window := func(handed, answered int64, k int) int {
		now = now.Add(growWindow)
		tg.handed += handed
		tg.answers.Add(answered)
		tg.judge(now, conns)
		got := 0
		for range k {
			if !tg.mayGrow(now, conns, false) {
				break
			}
			conns++
			got++
		}
		return got
	}
	tg.mayGrow(now, 0, false)
	conns = 1
	if got := window(100, 100, 20); got != 4 {
		t.Fatalf("the first window: %d of 20; want 4 (to growFree, then double the 1 there was)", got)
	}
	// Behind, and the rate rose with the connections: double.
	if got := window(2000, 1000, 20); got != 5 {
		t.Fatalf("behind with the rate rising: %d of 20; want 5 (double)", got)
	}
	if got := window(4000, 2000, 20); got != 10 {
		t.Fatalf("behind with the rate rising: %d of 20; want 10 (double)", got)
	}
	// Keeping up, the rate flat: no hold (and none asked for).
	if got := window(2000, 2000, 0); got != 0 || tg.grow.held != 0 {
		t.Fatalf("keeping up: %+v; want no hold", tg.grow)
	}
	// Behind, with the rate flat after the last window's growth (10 to
	// 20, answering in this one): held.
	if got := window(6000, 2000, 5); got != 0 || tg.grow.held != 20 || tg.grow.heldRate != 80000 || tg.grow.hold != growHold {
		t.Fatalf("behind with the rate flat: %d opened, %+v; want none, held at 20", got, tg.grow)
	}
	// The hold passes, the node answering at the same rate.
	now = now.Add(growHold)
	tg.handed += 6000 * 40
	tg.answers.Add(2000 * 40)
	// A try after the hold adds a quarter (20/4 = 5), ...
	if got := window(6000, 2000, 50); got != 5 {
		t.Fatalf("a try after the hold: %d; want 5", got)
	}
	// ... which did not raise the rate in the window after either (it
	// is judged at that window's end): held twice as long.
	window(6000, 2000, 0)
	if got := window(6000, 2000, 5); got != 0 || tg.grow.hold != 2*growHold {
		t.Fatalf("a second failed try: %d opened, hold %s; want none, %s", got, tg.grow.hold, 2*growHold)
	}
}

// The free connections (growFree, opened as the run begins) are no try:
// in the window after they open the node is behind and its rate barely
// rose (their first answers only beginning), which held growth for a
// second and left TestPipelinedSlowEndpointHeld late 1 run in 15. The
// connections opened beyond them are judged as any.
func TestGrowthFreeConnectionsAreNoTry(t *testing.T) {
	var tg pipeTarget
	now := time.Unix(0, 0)
	conns := 0
	tg.judge(now, conns)
	for i, c := range []struct{ handed, answered int64 }{{120, 16}, {120, 21}, {120, 21}} {
		for range growFree {
			if tg.mayGrow(now, conns, false) {
				conns++
			}
		}
		now = now.Add(growWindow)
		tg.handed += c.handed
		tg.answers.Add(c.answered)
		tg.judge(now, conns)
		if held := tg.grow.held > 0; held != (i == 2) {
			t.Fatalf("window %d (%d connections): held %v (%+v); want a hold only after the try beyond the free ones", i, conns, held, tg.grow)
		}
	}
}

// A node that keeps up (answers all it is sent, the pacer on time) but
// whose every connection answered slower in proportion to how many there
// are after a try is crowded: its CPU is full, more connections only cost
// it; held. One whose time an answer a connection stayed the same (slow
// per request, as behind a delay) is not.
func TestGrowthHeldWhenConnectionsCrowdTheNode(t *testing.T) {
	for _, c := range []struct {
		name       string
		eachAfter  int64 // ns an answer a connection once they doubled
		wantHolded bool
	}{{"crowded", 2000, true}, {"slow per request", 1000, false}} {
		var tg pipeTarget
		now := time.Unix(0, 0)
		conns := 8
		tg.each.Store(1000)
		tg.judge(now, conns)
		// Windows keeping up at 8 connections, one in which 8 more are
		// opened (all were stale), then the one in which they answer.
		for i, opened := range []int{0, 8, 0, 0} {
			now = now.Add(growWindow)
			tg.handed += 1000
			tg.answers.Add(1000)
			if i == 3 {
				tg.each.Store(c.eachAfter)
			}
			for range opened {
				if tg.mayGrow(now, conns, false) {
					conns++
				}
			}
			tg.judge(now, conns)
		}
		if held := tg.grow.held > 0; held != c.wantHolded {
			t.Errorf("%s: held %v (%+v); want %v", c.name, held, tg.grow, c.wantHolded)
		}
	}
}

// A node whose answers come one at a time whatever the connections (one
// lock, 1 ms each: 1,000 tx/s at most) asked for 3,000 tx/s: chainperf
// does not open connection after connection (they would not raise what
// it answers); the run is node-bound and says the connections were held.
// (Sleeps under a lock: no CPU, so a busy machine does not change it.)
func TestNoConnectionStormAgainstASaturatedNode(t *testing.T) {
	var one sync.Mutex
	url := waitingSink(t, func() {
		one.Lock()
		time.Sleep(time.Millisecond)
		one.Unlock()
	})
	r, _ := runGen(t, Config{Model: Constant{R: 3000, D: time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 1024}, false)
	if !r.Bound || r.BoundBy != BoundByNode || !strings.Contains(r.Why, "connections held at") {
		t.Errorf("report %+v; want node-bound, the connections held", r)
	}
	// Doubling to 32 while the rate rose from nothing, then tries of a
	// quarter; the build before opened 850 (every connection looked slow).
	t.Logf("%d connections, %s", r.Conns, r.Why)
	if r.Conns > 64 {
		t.Errorf("%d connections to a node that answers one request at a time; want 64 at most", r.Conns)
	}
}
