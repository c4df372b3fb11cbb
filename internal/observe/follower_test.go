package observe

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/nodehttp"
	cmtjson "github.com/cometbft/cometbft/libs/json"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	"github.com/cometbft/cometbft/types"
)

// chainServer answers /status with latest and /block with a block of the
// height asked (up to latest).
func chainServer(t *testing.T, latest func() int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/status":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":-1,"result":{"sync_info":{"latest_block_height":"%d"}}}`, latest())
		case "/block":
			h, _ := strconv.ParseInt(r.URL.Query().Get("height"), 10, 64)
			if h < 1 || h > latest() {
				fmt.Fprint(w, `{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"no block"}}`)
				return
			}
			blk := types.MakeBlock(h, nil, &types.Commit{Height: h - 1}, nil)
			blk.Time = time.Now()
			data, _ := cmtjson.Marshal(&ctypes.ResultBlock{Block: blk})
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":-1,"result":%s}`, data)
		case "/block_results":
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":-1,"result":{"txs_results":null}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// One node's word that the chain is 50,000 heights past the start does
// not make the follower read 50,000 blocks: it is said, and the follower
// reads from the tip. A chain whose heights then go back is said too.
func TestFollowerDoesNotBelieveAFarTip(t *testing.T) {
	var mu sync.Mutex
	tip := int64(50_000)
	srv := chainServer(t, func() int64 { mu.Lock(); defer mu.Unlock(); return tip })
	var said []string
	var smu sync.Mutex
	f := NewFollower([]string{srv.URL}, 2, nil, nil, nil)
	f.OnProblem = func(kind, detail string) { smu.Lock(); said = append(said, kind+": "+detail); smu.Unlock() }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	time.Sleep(500 * time.Millisecond)
	mu.Lock()
	tip = 10 // backwards
	mu.Unlock()
	time.Sleep(300 * time.Millisecond)
	cancel()
	<-done
	blocks := f.Flush()
	if len(blocks) > 10 || f.Next() < 50_000 {
		t.Errorf("read %d blocks, next %d; want a few, from the tip", len(blocks), f.Next())
	}
	all := strings.Join(said, "\n")
	for _, want := range []string{"the start height is not believed", "height does not go backwards", srv.URL} {
		if !strings.Contains(all, want) {
			t.Errorf("nothing said %q:\n%s", want, all)
		}
	}
}

// A chain that goes on while its node stops giving blocks: the follower
// says it stalled, and says so once.
func TestFollowerSaysItStalled(t *testing.T) {
	blocks := chainServer(t, func() int64 { return 3 }).Config.Handler
	// Once stalled, the node says 100 and serves no block (its store
	// closed): a flag the server reads, not a handler swapped while it
	// serves.
	var stalled atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !stalled.Load():
			blocks.ServeHTTP(w, r)
		case r.URL.Path == "/status":
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":-1,"result":{"sync_info":{"latest_block_height":"100"}}}`)
		case r.URL.Path == "/block":
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"store closed"}}`)
		default:
			blocks.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	var said []string
	f := NewFollower([]string{srv.URL}, 1, nil, nil, nil)
	f.StallAfter = 300 * time.Millisecond
	var smu sync.Mutex
	f.OnProblem = func(kind, detail string) { smu.Lock(); said = append(said, kind); smu.Unlock() }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	time.Sleep(200 * time.Millisecond)
	stalled.Store(true)
	time.Sleep(1200 * time.Millisecond)
	cancel()
	<-done
	if got := strings.Join(said, ","); got != "follower_stalled" {
		t.Errorf("said %q; want one follower_stalled", got)
	}
	if from, to := f.Unread(); from != 4 || to != 100 {
		t.Errorf("unread %d-%d; want 4-100", from, to)
	}
}

// A start height far past what the node says (one bad answer at the
// start) is not believed either: the follower reads from the node's tip.
func TestFollowerDoesNotBelieveAFarStart(t *testing.T) {
	srv := chainServer(t, func() int64 { return 20 })
	f, said := followBriefly(srv.URL, 9_000_000_000)
	if f.Next() != 21 || strings.Join(said, ",") != "height_far_behind" {
		t.Errorf("next %d, said %v; want 21 and height_far_behind", f.Next(), said)
	}
}

// Woken by the nodes' events, the follower reads a new height at once and
// asks /status only every wokenPoll besides; with no news for wokenFor
// it polls every 50 ms again.
func TestFollowerWokenByEvents(t *testing.T) {
	var mu sync.Mutex
	tip := int64(1)
	srv, statuses := statusCounted(t, func() int64 { mu.Lock(); defer mu.Unlock(); return tip })
	count := func(d time.Duration) int {
		before := statuses()
		time.Sleep(d)
		return statuses() - before
	}
	seen := map[int64]time.Time{}
	f := NewFollower([]string{srv.URL}, 1, nil, func(b Block) { mu.Lock(); seen[b.Height] = b.Seen; mu.Unlock() }, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	if n := count(time.Second); n < 12 {
		t.Errorf("not woken: %d /status a second; want about 20 (a poll every 50 ms)", n)
	}
	// A height every 250 ms, each told by Wake as it comes.
	raised := map[int64]time.Time{}
	stop := make(chan struct{})
	go func() {
		for range 4 {
			time.Sleep(250 * time.Millisecond)
			mu.Lock()
			tip++
			raised[tip] = time.Now()
			h := tip
			mu.Unlock()
			f.Wake(h)
			f.Wake(h - 1) // a height read already: no news
		}
		close(stop)
	}()
	n := count(time.Second)
	<-stop
	time.Sleep(100 * time.Millisecond)
	if n > 10 {
		t.Errorf("woken: %d /status in a second with 4 new heights; want at most 10 (the wakes and a poll every %s)", n, wokenPoll)
	}
	mu.Lock()
	for h, at := range raised {
		// A block is handed on when the next one is read (its commit
		// round is in the next): the last one raised is not yet.
		if s, ok := seen[h]; h < tip && (!ok || s.Sub(at) > 100*time.Millisecond) {
			t.Errorf("height %d read %s after the node had it and said so (read: %v); want at once", h, s.Sub(at), ok)
		}
	}
	if f.Next() != tip+1 {
		t.Errorf("next %d; want %d", f.Next(), tip+1)
	}
	mu.Unlock()
	// The events stopped long ago: polls every 50 ms again.
	f.woke.Store(time.Now().Add(-wokenFor - time.Second).UnixNano())
	time.Sleep(wokenPoll)
	if n := count(time.Second); n < 12 {
		t.Errorf("events gone: %d /status a second; want about 20 again", n)
	}
}

// A node that sends header events without end (a height far ahead, over
// and over) makes the follower ask /status no more often than it polls.
func TestFollowerWakesBounded(t *testing.T) {
	srv, statuses := statusCounted(t, func() int64 { return 1 })
	f := NewFollower([]string{srv.URL}, 2, nil, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			f.Wake(1_000_000)
			time.Sleep(100 * time.Microsecond)
		}
	}()
	f.Run(ctx)
	if n := statuses(); n > 25 {
		t.Errorf("%d /status in a second of endless wakes; want at most about 20 (a poll every 50 ms)", n)
	}
}

// statusCounted is chainServer with a count of the /status asked so far.
func statusCounted(t *testing.T, latest func() int64) (*httptest.Server, func() int) {
	var n atomic.Int64
	srv := chainServer(t, latest)
	h := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/status" {
			n.Add(1)
		}
		h.ServeHTTP(w, r)
	})
	return srv, func() int { return int(n.Load()) }
}

// A node at int64's edge (2^63-1) is not believed: no height wraps to
// a negative one, no block is read, and the bad height is said.
func TestFollowerRefusesAHeightAtTheEdge(t *testing.T) {
	for _, latest := range []int64{math.MaxInt64, math.MaxInt64 - 1, nodehttp.MaxHeight + 1} {
		srv := chainServer(t, func() int64 { return latest })
		f, said := followBriefly(srv.URL, 2)
		if blocks := f.Flush(); len(blocks) != 0 || f.Next() != 2 || len(said) == 0 || said[0] != "bad_height" {
			t.Errorf("latest %d: read %d blocks, next %d, said %v; want none read, next 2, bad_height", latest, len(blocks), f.Next(), said)
		}
	}
}

// followBriefly runs a follower of one node from start for 300 ms and
// returns it, stopped, with the kinds of problem it said.
func followBriefly(rpc string, start int64) (*Follower, []string) {
	var said []string
	var mu sync.Mutex
	f := NewFollower([]string{rpc}, start, nil, nil, nil)
	f.OnProblem = func(kind, detail string) { mu.Lock(); said = append(said, kind); mu.Unlock() }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	time.Sleep(300 * time.Millisecond)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return f, said
}

// A node that holds a block (or a block's results) back for longer than
// the run has left: the follower's end cuts the read short, and Cut names
// the read, the node and how long it waited, whatever the run's length
// (StallAfter, 10 s, passes only in longer runs). Reads that answer are
// not named.
func TestFollowerNamesTheReadItsEndCut(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/block", "block 3 from "},
		{"/block_results", "the results of block 1 from "},
	} {
		t.Run(c.path, func(t *testing.T) {
			blocks := chainServer(t, func() int64 { return 5 }).Config.Handler
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h := r.URL.Query().Get("height")
				if r.URL.Path == c.path && (c.path == "/block_results" || h == "3") {
					<-r.Context().Done() // held until the reader goes
					return
				}
				blocks.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			f := NewFollower([]string{srv.URL}, 1, nil, nil, nil)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { f.Run(ctx); close(done) }()
			time.Sleep(1500 * time.Millisecond)
			cancel()
			<-done
			cut := strings.Join(f.Cut(), "; ")
			if !strings.Contains(cut, c.want+srv.URL+" was still unanswered after 1.") {
				t.Errorf("cut %q; want %q named with its wait", cut, c.want)
			}
			if strings.Count(cut, "unanswered") != 1 {
				t.Errorf("cut %q: want only the held read", cut)
			}
		})
	}
	// Every read answered: nothing cut.
	srv := chainServer(t, func() int64 { return 5 })
	if f, _ := followBriefly(srv.URL, 1); len(f.Cut()) != 0 {
		t.Errorf("a node that answers: cut %q", f.Cut())
	}
}

// FuzzHeights drives the follower's height logic with any four heights
// (a node's latest, what it said before, the next height to read, the
// tip): the next height is never below 1 and never wraps, the tip never
// goes down, and, before a tip is believed, the heights it will read are
// at most MaxBehind+1 unless it said why.
func FuzzHeights(f *testing.F) {
	const top = math.MaxInt64
	for _, s := range [][4]int64{{5, 0, 1, 0}, {top, 0, 1, 0}, {top, top, top, 0}, {1, 5, 3, 5}, {0, 0, top, 0}, {-1, 0, -5, 0},
		{1 << 53, 0, 1, 0}, {20, 0, 9_000_000_000, 0}, {top, 0, 2, 10}} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, latest, before, next, tip int64) {
		tip = max(tip, 0) // the follower's tip starts at 0 and only takes heights it believed
		n, tp, kind, detail := heights(latest, before, next, tip)
		if n < 1 {
			t.Fatalf("heights(%d, %d, %d, %d): next %d", latest, before, next, tip, n)
		}
		if tp < tip {
			t.Fatalf("heights(%d, %d, %d, %d): the tip went from %d down to %d", latest, before, next, tip, tip, tp)
		}
		if kind == "" && tip == 0 && latest > n && latest-n > MaxBehind {
			t.Fatalf("heights(%d, %d, %d, %d): would read %d..%d in silence", latest, before, next, tip, n, latest)
		}
		if (kind == "") != (detail == "") {
			t.Fatalf("kind %q with detail %q", kind, detail)
		}
	})
}
