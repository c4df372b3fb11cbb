package providertest

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/files"
	"github.com/chainperf/chainperf/internal/netem"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	"github.com/chainperf/chainperf/internal/testnet"
)

// A Subject is a provider under the conformance checks: made for T, a
// testnet of 4 validators of equal power and 1 full node whose homes are
// written, not yet opened.
type Subject struct {
	Provider testnet.Provider
	Testnet  *testnet.Testnet
	// Patience is how long a node may take to answer, reach the tip or
	// make a block (a real chain's block takes a second or more).
	Patience time.Duration
	// Block is about one block interval.
	Block time.Duration
	// Gone, if set, checks after Close that nothing the provider made is
	// left (processes, namespaces).
	Gone func(t *testing.T)
}

// hasWAN: the provider emulates delays to scale (netns and kubernetes
// without zone_label; on real links there is none, and scenario check
// refuses a latency fault).
func hasWAN(p testnet.Provider) bool {
	w, ok := p.(interface{ WAN() *netem.WAN })
	return !ok || w.WAN() != nil
}

func canTail(p testnet.Provider) bool {
	_, ok := p.(testnet.LogTailer)
	return ok
}

// Conformance runs the same table of checks against a provider: the base
// contract (open, start, endpoints, stop and start again, close) and each
// fault capability it has. The fake, the process and the netns providers
// all pass it.
func Conformance(t *testing.T, s Subject) {
	ctx := context.Background()
	p, tn := s.Provider, s.Testnet
	val := tn.ByRole(testnet.RoleValidator)
	full := tn.ByRole(testnet.RoleFull)
	if len(val) != 4 || len(full) != 1 {
		t.Fatalf("the subject needs 4 validators and 1 full node; has %d and %d", len(val), len(full))
	}
	if err := p.Open(ctx); err != nil {
		t.Fatalf("Open: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			_ = p.Close(context.Background())
		}
	}()
	steps := []struct {
		name string
		can  bool
		run  func(*checker)
	}{
		// Every standing node answers and the chain makes blocks.
		{"start", true, func(c *checker) {
			c.must(p.Start(ctx, tn.Standing()...), "Start")
			for _, n := range tn.Standing() {
				c.waitHeight(n, 2)
			}
		}},
		// Each node has its own endpoint, whose health answers.
		{"endpoints", true, func(c *checker) {
			seen := map[string]bool{}
			for _, n := range tn.Standing() {
				e := p.Endpoint(n)
				if seen[e.RPC] || e.RPC == "" || e.Metrics == "" {
					c.t.Errorf("%s: endpoint %+v empty or shared", n.Name, e)
				}
				seen[e.RPC] = true
				resp, err := http.Get(e.RPC + "/health")
				if err != nil || resp.StatusCode != http.StatusOK {
					c.t.Errorf("%s: GET /health: %v %v", n.Name, err, resp)
				}
				if resp != nil {
					resp.Body.Close()
				}
			}
		}},
		// A provider that keeps the logs itself gives a node's log's end.
		{"log tail", canTail(p), func(c *checker) {
			raw, err := p.(testnet.LogTailer).LogTail(ctx, val[0], 2048)
			c.must(err, "LogTail")
			if len(raw) == 0 || len(raw) > 2048 || !strings.Contains(string(raw), "height") {
				c.t.Errorf("%s's log ends (%d bytes): %q; want up to 2048 bytes of a node that made blocks", val[0].Name, len(raw), raw)
			}
		}},
		// A stopped node stops answering and is not reported as exited; it
		// starts again and gets back to the tip.
		{"stop and start", true, func(c *checker) {
			c.must(p.Stop(ctx, full[0]), "Stop")
			c.unreachable(full[0])
			if _, exited := p.Exited(full[0]); exited {
				c.t.Errorf("a node the harness stopped is reported exited")
			}
			c.must(p.Stop(ctx, full[0]), "Stop of a stopped node")
			c.must(p.Start(ctx, full[0]), "Start again")
			c.waitTip(full[0])
		}},
		// A killed validator: the rest (3 of 4) go on; it comes back.
		{"kill", testnet.Can(p, testnet.FaultKill), func(c *checker) {
			c.must(p.(testnet.Killer).Kill(ctx, val[3]), "Kill")
			c.unreachable(val[3])
			if _, exited := p.Exited(val[3]); exited {
				c.t.Errorf("a node the harness killed is reported exited")
			}
			c.rises(val[0])
			c.must(p.Start(ctx, val[3]), "Start after Kill")
			c.waitTip(val[3])
		}},
		// A paused node holds requests; resumed, it answers.
		{"pause", testnet.Can(p, testnet.FaultPause), func(c *checker) {
			c.must(p.(testnet.Pauser).Pause(ctx, full[0]), "Pause")
			c.unreachable(full[0])
			c.must(p.(testnet.Pauser).Resume(ctx, full[0]), "Resume")
			c.waitTip(full[0])
		}},
		// A disconnected node is cut off while the validators go on; it
		// comes back.
		{"disconnect", testnet.Can(p, testnet.FaultDisconnect), func(c *checker) {
			d := p.(testnet.Disconnecter)
			c.must(d.Disconnect(ctx, full[0]), "Disconnect")
			c.unreachable(full[0])
			c.rises(val[0])
			c.must(d.Reconnect(ctx, full[0]), "Reconnect")
			c.waitTip(full[0])
		}},
		// Two validators against two: no side has 2/3, no block; healed,
		// the chain goes on. The full node is on one side: left outside, it
		// would relay the votes between them (CometBFT gossips through any
		// peer) and the chain would go on.
		{"partition", testnet.Can(p, testnet.FaultPartition), func(c *checker) {
			pt := p.(testnet.Partitioner)
			groups := [][]*testnet.Node{{val[0], val[1], full[0]}, val[2:]}
			c.must(pt.Partition(ctx, groups), "Partition")
			time.Sleep(2 * s.Block) // a block under way may still land
			h0 := c.tip()
			time.Sleep(4 * s.Block)
			if h1 := c.tip(); h1 > h0+1 {
				c.t.Errorf("partitioned 2|2, the tip rose from %d to %d", h0, h1)
			}
			c.must(pt.Heal(ctx, groups), "Heal")
			c.rises(val[0])
		}},
		// The delays change and come back; the chain goes on.
		{"latency", testnet.Can(p, testnet.FaultLatency) && hasWAN(p), func(c *checker) {
			ls := p.(testnet.LatencyShaper)
			c.must(ls.ScaleLatency(ctx, 2), "ScaleLatency")
			c.rises(val[0])
			c.must(ls.RestoreLatency(ctx), "RestoreLatency")
		}},
		// Close ends every node.
		{"close", true, func(c *checker) {
			c.must(p.Close(ctx), "Close")
			closed = true
			for _, n := range tn.Standing() {
				c.unreachable(n)
			}
			if s.Gone != nil {
				s.Gone(c.t)
			}
		}},
	}
	for _, st := range steps {
		if !st.can {
			t.Logf("%s: %q cannot; skipped", st.name, p.Name())
			continue
		}
		if !t.Run(st.name, func(t *testing.T) { st.run(&checker{t: t, p: p, tn: tn, s: s}) }) && st.name == "start" {
			return
		}
	}
}

type checker struct {
	t  *testing.T
	p  testnet.Provider
	tn *testnet.Testnet
	s  Subject
}

func (c *checker) must(err error, what string) {
	c.t.Helper()
	if err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
}

// status asks n for its height, within a second.
func (c *checker) status(n *testnet.Node) (int64, bool, error) {
	cl, err := rpchttp.New(c.p.Endpoint(n).RPC, "/websocket")
	if err != nil {
		return 0, false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st, err := cl.Status(ctx)
	if err != nil {
		return 0, false, err
	}
	return st.SyncInfo.LatestBlockHeight, st.SyncInfo.CatchingUp, nil
}

// tip is the highest height a validator answers with.
func (c *checker) tip() int64 {
	var h int64
	for _, v := range c.tn.ByRole(testnet.RoleValidator) {
		if x, _, err := c.status(v); err == nil {
			h = max(h, x)
		}
	}
	return h
}

// waitHeight waits, at most Patience, for n to answer with height h.
func (c *checker) waitHeight(n *testnet.Node, h int64) {
	c.t.Helper()
	var last int64
	var lastErr error
	for end := time.Now().Add(c.s.Patience); time.Now().Before(end); time.Sleep(c.s.Block / 4) {
		x, _, err := c.status(n)
		if lastErr = err; err == nil {
			if last = x; x >= h {
				return
			}
		}
	}
	c.t.Fatalf("%s: height %d after %s; want %d (last status error: %v)%s", n.Name, last, c.s.Patience, h, lastErr, c.logEnd(n))
}

// logEnd is the end of n's log, when the provider keeps it in the
// testnet's log dir or tails it itself: a node that never made a block
// says why there (a port taken, a peer refused).
func (c *checker) logEnd(n *testnet.Node) string {
	tail := files.Tail(filepath.Join(c.tn.LogDir(), n.Name+".log"), 3000)
	if lt, ok := c.p.(testnet.LogTailer); ok && len(tail) == 0 {
		tail, _ = lt.LogTail(context.Background(), n, 3000)
	}
	if len(tail) == 0 {
		return ""
	}
	return "\n" + n.Name + "'s log ends:\n" + string(tail)
}

// waitTip waits for n to answer, done syncing, at the tip it had.
func (c *checker) waitTip(n *testnet.Node) {
	c.t.Helper()
	tip := c.tip()
	var last int64
	var lastErr error
	for end := time.Now().Add(2 * c.s.Patience); time.Now().Before(end); time.Sleep(c.s.Block / 4) {
		x, syncing, err := c.status(n)
		if lastErr = err; err == nil {
			if last = x; x >= tip && !syncing {
				return
			}
		}
	}
	c.t.Fatalf("%s: height %d after %s; want the tip %d (last status error: %v)%s", n.Name, last, 2*c.s.Patience, tip, lastErr, c.logEnd(n))
}

// rises checks that n's height goes up by 2 within Patience.
func (c *checker) rises(n *testnet.Node) {
	c.t.Helper()
	h, _, err := c.status(n)
	if err != nil {
		c.t.Fatalf("%s: %v", n.Name, err)
	}
	c.waitHeight(n, h+2)
}

// unreachable checks that n stops answering within a few seconds.
func (c *checker) unreachable(n *testnet.Node) {
	c.t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if _, _, err := c.status(n); err != nil {
			return
		}
	}
	c.t.Errorf("%s still answers", n.Name)
}
