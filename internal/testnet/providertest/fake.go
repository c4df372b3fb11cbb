// Package providertest holds the in-memory twin of a testnet provider and
// the conformance checks every provider passes. The twin's nodes are HTTP
// servers on 127.0.0.1 that answer the RPC calls chainperf makes (status,
// block, block_results, broadcast_tx_sync/async, health) and /metrics,
// over one in-memory chain: experiment, perturbation and criteria logic
// is tested on it in well under a second a test.
package providertest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/chainperf/chainperf/internal/latency"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// Config shapes the fake chain.
type Config struct {
	// Interval between blocks (0: 100ms); a latency change scales it.
	Interval time.Duration
	// MaxTxs a block holds (0: 10,000).
	MaxTxs int
	// SyncTime is how long a node started from nothing block-syncs before
	// it is caught up (0: 2 intervals).
	SyncTime time.Duration
	// Reject, if set, refuses a tx at CheckTx with its log (nil: accept).
	Reject func(tx []byte) string
}

// Fake is the in-memory twin of a provider. It can do every fault.
type Fake struct {
	cfg Config
	t   *testnet.Testnet

	mu      sync.Mutex
	nodes   map[string]*node
	chain   []block
	mempool [][]byte
	groups  map[string]int // partition side of each node; absent: reaches all
	scale   float64        // latency factor (block interval x scale)
	opened  bool
	stop    chan struct{}
	done    chan struct{}
}

var (
	_ testnet.Provider      = (*Fake)(nil)
	_ testnet.Killer        = (*Fake)(nil)
	_ testnet.Pauser        = (*Fake)(nil)
	_ testnet.Disconnecter  = (*Fake)(nil)
	_ testnet.Partitioner   = (*Fake)(nil)
	_ testnet.LatencyShaper = (*Fake)(nil)
)

type block struct {
	time  time.Time
	txs   [][]byte
	codes []uint32
}

// node is one fake node: its server and what it knows.
type node struct {
	n            *testnet.Node
	addr         string       // 127.0.0.1:port, the same over restarts
	held         net.Listener // addr's listener from Open to the first start
	srv          *http.Server
	running      bool
	paused       chan struct{} // non-nil while paused; closed on resume
	disconnected bool
	height       int64     // the last block it has
	syncedAt     time.Time // a node started from nothing catches up then
	crashed      error     // set by Crash: Exited reports it
	pending      [][]byte  // txs it took while it could not gossip them
}

// New returns a fake provider for t. Its nodes take free loopback ports
// when Open runs.
func New(t *testnet.Testnet, cfg Config) *Fake {
	if cfg.Interval <= 0 {
		cfg.Interval = 100 * time.Millisecond
	}
	if cfg.MaxTxs <= 0 {
		cfg.MaxTxs = 10_000
	}
	if cfg.SyncTime <= 0 {
		cfg.SyncTime = 2 * cfg.Interval
	}
	return &Fake{cfg: cfg, t: t, nodes: map[string]*node{}, scale: 1}
}

// Factory returns a constructor in the shape experiment takes, and a
// func that returns the last fake it made (for the test to inspect).
func Factory(cfg Config) (func(*testnet.Testnet, scenario.Testnet, *latency.Table, testnet.ProviderOptions) (testnet.Provider, error), func() *Fake) {
	var (
		mu   sync.Mutex
		last *Fake
	)
	newFake := func(t *testnet.Testnet, _ scenario.Testnet, _ *latency.Table, _ testnet.ProviderOptions) (testnet.Provider, error) {
		f := New(t, cfg)
		mu.Lock()
		last = f
		mu.Unlock()
		return f, nil
	}
	return newFake, func() *Fake { mu.Lock(); defer mu.Unlock(); return last }
}

// Name is "fake".
func (f *Fake) Name() string { return "fake" }

// Open takes a port for every node and starts the chain's clock.
func (f *Fake) Open(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.opened {
		return errors.New("opened twice")
	}
	for _, n := range f.t.Nodes {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		// Held until the node first starts: a port closed here could be
		// taken meanwhile (an outgoing connection's ephemeral port, a
		// parallel test's listener).
		f.nodes[n.Name] = &node{n: n, addr: ln.Addr().String(), held: ln}
	}
	f.opened = true
	f.stop, f.done = make(chan struct{}), make(chan struct{})
	go f.produce()
	return nil
}

// Endpoint is n's server: RPC, metrics and (absent) pprof on one port.
func (f *Fake) Endpoint(n *testnet.Node) testnet.Endpoint {
	f.mu.Lock()
	defer f.mu.Unlock()
	nd := f.nodes[n.Name]
	if nd == nil {
		return testnet.Endpoint{}
	}
	return testnet.Endpoint{RPC: "http://" + nd.addr, Metrics: "http://" + nd.addr + "/metrics",
		Pprof: "http://" + nd.addr + "/debug/pprof", P2P: n.ID + "@" + nd.addr}
}

// Start serves each node; a node that never ran syncs from genesis first.
func (f *Fake) Start(_ context.Context, nodes ...*testnet.Node) error {
	for _, n := range nodes {
		if err := f.start(n); err != nil {
			return fmt.Errorf("start %s: %w", n.Name, err)
		}
	}
	return nil
}

func (f *Fake) start(n *testnet.Node) error {
	f.mu.Lock()
	nd := f.nodes[n.Name]
	if nd == nil {
		f.mu.Unlock()
		return errors.New("not opened")
	}
	if nd.running {
		f.mu.Unlock()
		return errors.New("already running")
	}
	addr, ln := nd.addr, nd.held
	nd.held = nil
	f.mu.Unlock()
	if ln == nil {
		var err error
		if ln, err = listenAgain(addr); err != nil {
			return err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	nd.srv = &http.Server{Handler: &handler{f: f, nd: nd}, ReadHeaderTimeout: 5 * time.Second}
	go nd.srv.Serve(ln)
	nd.running, nd.crashed, nd.paused = true, nil, nil
	nd.syncedAt = time.Now().Add(f.cfg.SyncTime)
	return nil
}

// listenAgain listens on addr, waiting up to 2 s while the address is
// still held by the node's last server (its connections closing): a
// restart on a made-up clock comes right after the kill.
func listenAgain(addr string) (net.Listener, error) {
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ln, err := net.Listen("tcp", addr)
		if err == nil || !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			return ln, err
		}
	}
}

// Stop ends each node's server; its chain state stays (as a node's data
// dir does).
func (f *Fake) Stop(_ context.Context, nodes ...*testnet.Node) error {
	for _, n := range nodes {
		f.halt(n, nil)
	}
	return nil
}

// Kill ends nodes as Stop does: the fake has nothing to flush.
func (f *Fake) Kill(ctx context.Context, nodes ...*testnet.Node) error { return f.Stop(ctx, nodes...) }

// Crash ends n as if it died by itself: Exited reports err.
func (f *Fake) Crash(n *testnet.Node, err error) { f.halt(n, err) }

func (f *Fake) halt(n *testnet.Node, crash error) {
	f.mu.Lock()
	nd := f.nodes[n.Name]
	if nd == nil || !nd.running {
		f.mu.Unlock()
		return
	}
	nd.running, nd.crashed = false, crash
	if nd.paused != nil {
		close(nd.paused)
		nd.paused = nil
	}
	srv := nd.srv
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if srv.Shutdown(ctx) != nil {
		srv.Close()
	}
}

// Exited reports a crash (Crash), not a stop or a kill.
func (f *Fake) Exited(n *testnet.Node) (error, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if nd := f.nodes[n.Name]; nd != nil && !nd.running && nd.crashed != nil {
		return nd.crashed, true
	}
	return nil, false
}

// Pause makes each node's server hold every request until Resume.
func (f *Fake) Pause(_ context.Context, nodes ...*testnet.Node) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range nodes {
		nd := f.nodes[n.Name]
		if nd == nil || !nd.running {
			return fmt.Errorf("%s does not run", n.Name)
		}
		if nd.paused == nil {
			nd.paused = make(chan struct{})
		}
	}
	return nil
}

// Resume lets paused nodes answer again.
func (f *Fake) Resume(_ context.Context, nodes ...*testnet.Node) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range nodes {
		if nd := f.nodes[n.Name]; nd != nil && nd.paused != nil {
			close(nd.paused)
			nd.paused = nil
		}
	}
	return nil
}

// Disconnect cuts nodes off: they neither gossip nor get blocks, and the
// harness cannot reach them (requests fail).
func (f *Fake) Disconnect(_ context.Context, nodes ...*testnet.Node) error {
	return f.setLink(nodes, true)
}

// Reconnect brings nodes back.
func (f *Fake) Reconnect(_ context.Context, nodes ...*testnet.Node) error {
	return f.setLink(nodes, false)
}

func (f *Fake) setLink(nodes []*testnet.Node, cut bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range nodes {
		if nd := f.nodes[n.Name]; nd != nil {
			nd.disconnected = cut
		}
	}
	return nil
}

// Partition puts each group on its own side.
func (f *Fake) Partition(_ context.Context, groups [][]*testnet.Node) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.groups = map[string]int{}
	for i, g := range groups {
		for _, n := range g {
			f.groups[n.Name] = i
		}
	}
	return nil
}

// Heal joins the sides again.
func (f *Fake) Heal(context.Context, [][]*testnet.Node) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.groups = nil
	return nil
}

// ScaleLatency makes blocks come scale times slower (the fake has one
// delay for the whole network, so nodes are not told apart).
func (f *Fake) ScaleLatency(_ context.Context, scale float64, _ ...*testnet.Node) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scale = max(scale, 0.1)
	return nil
}

// RestoreLatency puts the block interval back.
func (f *Fake) RestoreLatency(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scale = 1
	return nil
}

// Close stops every node and the chain's clock.
func (f *Fake) Close(ctx context.Context) error {
	_ = f.Stop(ctx, f.t.Nodes...)
	f.mu.Lock()
	opened := f.opened
	f.opened = false
	for _, nd := range f.nodes {
		if nd.held != nil { // never started
			nd.held.Close()
			nd.held = nil
		}
	}
	f.mu.Unlock()
	if opened {
		close(f.stop)
		<-f.done
	}
	return nil
}

// Height is the chain's height.
func (f *Fake) Height() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(len(f.chain))
}

// produce makes a block every interval (x the latency scale) while the
// validators on one side hold more than 2/3 of the power; the nodes that
// reach that side get it.
func (f *Fake) produce() {
	defer close(f.done)
	for {
		f.mu.Lock()
		wait := time.Duration(float64(f.cfg.Interval) * f.scale)
		f.mu.Unlock()
		select {
		case <-f.stop:
			return
		case <-time.After(wait):
		}
		f.tick(time.Now())
	}
}

func (f *Fake) tick(now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	side, ok := f.quorum()
	if !ok {
		return
	}
	for _, nd := range f.nodes {
		if f.reaches(nd, side) && len(nd.pending) > 0 {
			f.mempool = append(f.mempool, nd.pending...)
			nd.pending = nil
		}
	}
	take := min(len(f.mempool), f.cfg.MaxTxs)
	b := block{time: now.UTC(), txs: f.mempool[:take:take], codes: make([]uint32, take)}
	f.mempool = append([][]byte(nil), f.mempool[take:]...)
	f.chain = append(f.chain, b)
	h := int64(len(f.chain))
	for _, nd := range f.nodes {
		if f.reaches(nd, side) && now.After(nd.syncedAt) {
			nd.height = h
		}
	}
}

// whole is the quorum of a network with no split: the up validators'
// power over 2/3 of all.
func (f *Fake) whole() (int, bool) {
	var total, up int64
	for _, nd := range f.nodes {
		if nd.n.Role == testnet.RoleValidator {
			total += nd.n.Power
			if nd.up() {
				up += nd.n.Power
			}
		}
	}
	return -1, up*3 > total*2
}

// up says whether nd takes part: running, not paused, linked.
func (nd *node) up() bool { return nd.running && nd.paused == nil && !nd.disconnected }

// reaches says whether nd is up and on side (-1: no partition).
func (f *Fake) reaches(nd *node, side int) bool {
	if !nd.up() {
		return false
	}
	g, split := f.groups[nd.n.Name]
	return side < 0 || !split || g == side
}

// quorum finds the side whose up validators hold more than 2/3 of the
// power (-1 when the network is whole). A node that is up and on no side
// joins the sides: it relays votes between them, as CometBFT's gossip does.
func (f *Fake) quorum() (int, bool) {
	for _, nd := range f.nodes {
		if _, split := f.groups[nd.n.Name]; f.groups != nil && !split && nd.up() {
			return f.whole()
		}
	}
	if f.groups == nil {
		return f.whole()
	}
	var total int64
	power := map[int]int64{}
	for _, nd := range f.nodes {
		if nd.n.Role != testnet.RoleValidator {
			continue
		}
		total += nd.n.Power
		if !nd.up() {
			continue
		}
		g, split := f.groups[nd.n.Name]
		if !split {
			g = -1
		}
		power[g] += nd.n.Power
	}
	for side := range power {
		if side >= 0 && (power[side]+power[-1])*3 > total*2 {
			return side, true
		}
	}
	return 0, false
}

// Testnet is the testnet the fake runs.
func (f *Fake) Testnet() *testnet.Testnet { return f.t }
