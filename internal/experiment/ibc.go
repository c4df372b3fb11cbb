package experiment

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chainperf/chainperf/internal/build"
	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/ibc"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/live"
)

// A relay is the run's second chain and the relayer between the two
// ([ibc]): the counterparty's testnet, started after the run's own, and
// Hermes, started once it has opened the channel.
type relay struct {
	peer         *scenario.Scenario
	adapter      chain.Adapter
	a, b         chain.Relayed
	net          *live.Net // the counterparty's, once up
	hermes       *ibc.Hermes
	dir          string
	version      string
	settings     ibc.Settings // [ibc.hermes]
	channel      ibc.Channel
	opened       time.Duration
	fromA, fromB int64 // the heights the relayer started at
	crashed      bool  // the relayer went down during the run
	use          relayerUse
	share        float64   // ibc.back
	back         *backLoad // the counterparty's load; nil without ibc.back
}

// newRelay makes the counterparty's adapter and has both chains fund the
// relayer's key; nil when the scenario names no counterparty. It runs
// before either testnet is prepared.
func newRelay(ctx context.Context, s *scenario.Scenario, o RunOptions, own chain.Adapter) (*relay, error) {
	peer := s.IBC.Peer
	if peer == nil {
		return nil, nil
	}
	a, ok := own.(chain.Relayed)
	if !ok {
		return nil, fmt.Errorf("%s: ibc: a %s testnet cannot be an end of a relayer (a Cosmos SDK chain can)", s.Pos("ibc.counterparty"), s.Testnet.Chain)
	}
	// Its node binary built as the run's own was (a module version, a ref).
	peer, _, err := ResolveNode(ctx, peer, o.Phase)
	if err != nil {
		return nil, fmt.Errorf("ibc.counterparty: %w", err)
	}
	adapter, err := chain.New(ctx, peer, o.Log)
	if err != nil {
		return nil, fmt.Errorf("ibc.counterparty: %w", err)
	}
	b, ok := adapter.(chain.Relayed)
	if !ok {
		return nil, fmt.Errorf("%s: ibc.counterparty: a %s testnet cannot be an end of a relayer (a Cosmos SDK chain can)", s.Pos("ibc.counterparty"), peer.Testnet.Chain)
	}
	a.Relay(chain.RelayerMnemonic())
	b.Relay(chain.RelayerMnemonic())
	v := s.IBC.RelayerVersion
	if v == "" {
		v = build.HermesVersion
	}
	h := s.IBC.Hermes
	settings := ibc.Settings{MaxMsgNum: h.MaxMsgNum, BatchDelay: h.BatchDelay.D(), ClearInterval: h.ClearInterval, SequentialBatchTx: h.SequentialBatchTx}
	return &relay{peer: peer, adapter: adapter, a: a, b: b, version: v, settings: settings, share: s.IBC.Back}, nil
}

// up starts the counterparty, builds the relayer, opens the transfer
// channel between the chains and starts relaying (nil: no relay).
func (rl *relay) up(ctx context.Context, own *live.Net, o RunOptions) error {
	if rl == nil {
		return nil
	}
	o.Phase("counterparty up")
	began := time.Now()
	var err error
	rl.net, err = live.Up(ctx, rl.peer.Testnet, live.UpOptions{Exe: o.Exe, Log: o.Log, Chain: rl.adapter, Provider: o.Provider, Profiling: ProfilingFor(rl.peer.Observe)})
	if err != nil {
		return fmt.Errorf("counterparty: %w", err)
	}
	if err := firstBlocks(ctx, rl.adapter, rl.net, began); err != nil {
		return fmt.Errorf("counterparty: %w", err)
	}
	o.Phase("relayer: build, channel")
	bin, err := build.Hermes(ctx, rl.version, build.CacheDir())
	if err != nil {
		return err
	}
	if rl.dir, err = os.MkdirTemp("", "chainperf-relayer-"); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	cfg := ibc.Config{A: end(own, rl.a.RelayEnd()), B: end(rl.net, rl.b.RelayEnd()), TelemetryHost: "127.0.0.1", TelemetryPort: port, Settings: rl.settings}
	if rl.hermes, err = ibc.New(ctx, bin, rl.dir, cfg, chain.RelayerMnemonic()); err != nil {
		return err
	}
	began = time.Now()
	if rl.channel, err = rl.hermes.OpenChannel(ctx); err != nil {
		return err
	}
	rl.opened = time.Since(began)
	if rl.fromA, err = ibc.Height(ctx, cfg.A.RPC); err != nil {
		return err
	}
	if rl.fromB, err = ibc.Height(ctx, cfg.B.RPC); err != nil {
		return err
	}
	if err := rl.hermes.Start(); err != nil {
		return err
	}
	return rl.startBack(ctx)
}

// end is a testnet's first standing node as the relayer's end of it.
func end(n *live.Net, e chain.RelayEnd) ibc.Chain {
	nd := n.Testnet.Standing()[0]
	rpc := n.Endpoint(nd).RPC
	host := nd.Host
	if u, err := url.Parse(rpc); err == nil {
		host = u.Hostname()
	}
	at := func(port int) string { return "http://" + net.JoinHostPort(host, strconv.Itoa(port)) }
	return ibc.Chain{ID: n.Testnet.ChainID, RPC: rpc, GRPC: at(nd.Ports.GRPC), API: at(nd.Ports.API), Prefix: e.Prefix, Denom: e.Denom, GasPrice: e.GasPrice}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// finish waits up to the drain for the packets in flight, follows every
// packet from both chains' blocks, checks the escrow against the
// vouchers and records the relay's finding and how long after each pause
// of the relayer its packets were through; a relayer that went down
// during the run is a crash in the verdict.
func (rl *relay) finish(ctx context.Context, s *scenario.Scenario, r *results.Run, o RunOptions, rec *recorder) {
	if rl == nil || rl.hermes == nil {
		return
	}
	o.Phase("relayer: packets")
	cfg := rl.hermes.Config
	name := "hermes " + rl.version
	if set := rl.settings.String(); set != "" {
		name += " (" + set + ")"
	}
	rep := ibc.Relay{Relayer: name, Channel: rl.channel, Opened: rl.opened, Denom: cfg.A.Denom}
	select {
	case <-rl.hermes.Done():
		rep.Down, rep.Last = fmt.Sprint(rl.hermes.Err()), rl.hermes.LastLine()
		rl.crashed = true
	default:
	}
	ledger := ibc.NewLedger("transfer", rl.channel.A, rl.channel.B)
	back := ibc.NewLedger("transfer", rl.channel.B, rl.channel.A) // the counterparty's packets
	back.From, back.To = "B", "A"
	readA, readB := rl.fromA, rl.fromB
	follow := func() error {
		var err error
		onA := func(h int64, at time.Time, evs []ibc.Event) { ledger.OnA(h, at, evs); back.OnB(h, at, evs) }
		if readA, err = readBlocks(ctx, cfg.A.RPC, readA, onA); err != nil {
			return err
		}
		onB := func(h int64, at time.Time, evs []ibc.Event) { ledger.OnB(h, at, evs); back.OnA(h, at, evs) }
		readB, err = readBlocks(ctx, cfg.B.RPC, readB, onB)
		return err
	}
	deadline := time.Now().Add(s.IBC.Drain.D())
	err := follow()
	for err == nil && rep.Down == "" && time.Now().Before(deadline) && (settling(ledger) || settling(back)) {
		if !sleepUntil(ctx, time.Now().Add(time.Second)) {
			break
		}
		err = follow()
	}
	// The relayer stops before the last read, so that no refund it brings
	// later makes a wallet hold more than the balance check is told.
	if rep.Last == "" && (settling(ledger) || settling(back)) {
		rep.Last = rl.hermes.LastLine() // its last word on the packets it left
	}
	rl.hermes.Stop(10 * time.Second)
	if err == nil && sleepUntil(ctx, time.Now().Add(2*time.Second)) {
		err = follow()
	}
	if err != nil {
		msg := fmt.Sprintf("the packets could not be followed: %v", err)
		rep.Balances = msg
		o.Log.Warn(msg)
	}
	rep.Ledger = ledger
	// A pause's recovery: every packet sent before the relayer went on
	// was on B this long after (the faults table's "at the tip again"),
	// or not by the end.
	for i, end := range rec.endedFaults("pause", scenario.RelayerNode) {
		if d, ok := ledger.CaughtUp(end); ok {
			rec.caughtUp(i, d)
		} else {
			rec.notCaughtUp(i)
		}
	}
	rl.use.into(&rep)
	if steps := relaySteps(r); len(steps) > 1 {
		pace := ibc.PaceOf(ledger, steps, s.Experiment.LatencyBlowup)
		rep.Pace = &pace
	}
	rl.a.Refunded(ledger.Refunds(cfg.A.Denom))
	if rep.Balances == "" {
		rep.Balances = balances(ctx, &rep, rl.channel, cfg, readA, readB)
	}
	r.SetFinding(rep.Finding())
	if rl.back != nil && err == nil {
		r.SetFinding(rl.finishBack(ctx, rep, back, readA, readB).Finding())
	}
}

// relaySteps are the run's sweep cells as steps of the relayed load,
// each from its phase's start (nil: no sweep ran).
func relaySteps(r *results.Run) []ibc.Step {
	var out []ibc.Step
	for _, p := range r.Phases {
		c, rate, ok := results.CellOf(p.Name)
		if ok && p.Kind == scenario.KindSweep {
			out = append(out, ibc.Step{Name: p.Name, Offered: float64(c) * rate, From: p.Start})
		}
	}
	return out
}

// relayerSeries are what the run keeps of the relayer's scrapes: its CPU
// and RSS (from /proc), its pending packets and what it relayed, by its
// own telemetry.
var relayerSeries = []string{observe.SeriesCPU, observe.SeriesRSS, "backlog_size", "receive_packets_confirmed_total",
	"acknowledgment_packets_confirmed_total", "timeout_packets_confirmed_total"}

// watch scrapes the relayer beside the nodes, as a target named "relayer"
// of the run's series, until the returned func; what it saw of its CPU,
// memory and backlog goes into the relay's finding. The counterparty's
// nodes are watched as the run's are, each named "CHAIN-ID/NODE" in the
// run's series (so "cpu ibcb-1/validator0" among the figures).
func (rl *relay) watch(ctx context.Context, o scenario.Observe, rec *recorder) func() {
	if rl == nil || rl.hermes == nil {
		return func() {}
	}
	orig := map[*testnet.Node]*testnet.Node{}
	var peers []*testnet.Node
	for _, n := range rl.net.Testnet.Standing() {
		named := &testnet.Node{Name: rl.net.Testnet.ChainID + "/" + n.Name, Role: n.Role}
		orig[named] = n
		peers = append(peers, named)
	}
	stopPeers := watchTargets(ctx, peers, func(n *testnet.Node) testnet.Endpoint { return rl.net.Endpoint(orig[n]) },
		func(n *testnet.Node) int { return rl.net.PID(orig[n]) }, o, rec, nil)
	o.Metrics = relayerSeries
	n := &testnet.Node{Name: scenario.RelayerNode}
	endpoint := func(*testnet.Node) testnet.Endpoint { return testnet.Endpoint{Metrics: rl.hermes.MetricsURL()} }
	stop := watchTargets(ctx, []*testnet.Node{n}, endpoint, func(*testnet.Node) int { return rl.hermes.PID() }, o, rec, rl.use.add)
	return func() { stop(); stopPeers() }
}

// relayerUse is what the relayer's scrapes showed: CPU seconds at the
// first and last scrape, its largest RSS and backlog.
type relayerUse struct {
	mu           sync.Mutex
	cpu0, cpu1   float64
	t0, t1       time.Time
	rss, backlog float64
}

func (u *relayerUse) add(samples []observe.Sample) {
	u.mu.Lock()
	defer u.mu.Unlock()
	backlog := 0.0
	for _, x := range samples {
		switch {
		case x.Series == observe.SeriesCPU:
			if u.t0.IsZero() {
				u.cpu0, u.t0 = x.Value, x.At
			}
			u.cpu1, u.t1 = x.Value, x.At
		case x.Series == observe.SeriesRSS:
			u.rss = max(u.rss, x.Value)
		case strings.HasPrefix(x.Series, "backlog_size"):
			backlog += x.Value // one series a channel end
		}
	}
	u.backlog = max(u.backlog, backlog)
}

// into puts what was seen into rep.
func (u *relayerUse) into(rep *ibc.Relay) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if d := u.t1.Sub(u.t0).Seconds(); d > 0 {
		rep.CPU = (u.cpu1 - u.cpu0) / d
	}
	rep.RSS, rep.Backlog = u.rss/(1<<20), u.backlog
}

// crashInto records a relayer that went down as a crash of the run, once
// the chains are checked (a node's crash skips the check; the relayer's
// leaves the chains as they were).
func (rl *relay) crashInto(r *results.Run) {
	if rl != nil && rl.crashed {
		r.Crashed = append(r.Crashed, scenario.RelayerNode)
	}
}

// settling: some packet is on its way (sent, or its acknowledgement).
func settling(l *ibc.Ledger) bool {
	c := l.Count()
	return c[ibc.InFlight]+c[ibc.AckInFlight] > 0
}

// readBlocks gives on each block of the node at rpc after from, up to the
// one below its height now (a node stores block H before its results),
// and returns the last height read.
func readBlocks(ctx context.Context, rpc string, from int64, on func(int64, time.Time, []ibc.Event)) (int64, error) {
	top, err := ibc.Height(ctx, rpc)
	if err != nil {
		return from, err
	}
	top--
	for h := from + 1; h <= top; h++ {
		at, events, err := ibc.BlockEvents(ctx, rpc, h)
		if err != nil {
			return h - 1, err
		}
		on(h, at, events)
	}
	return top, nil
}

// balances reads A's escrow of the channel at height a and B's supply of
// its voucher at b (the last blocks the ledger read: the relayer goes on
// meanwhile) into rep; it says why when it cannot.
func balances(ctx context.Context, rep *ibc.Relay, ch ibc.Channel, cfg ibc.Config, a, b int64) string {
	escrow, err := ibc.EscrowAccount(cfg.A.Prefix, "transfer", ch.A)
	if err == nil {
		rep.Escrowed, err = ibc.Balance(ctx, cfg.A.API, escrow, cfg.A.Denom, a)
	}
	if err == nil {
		rep.Minted, err = ibc.Supply(ctx, cfg.B.API, ibc.VoucherDenom("transfer", ch.B, cfg.A.Denom), b)
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// fault is a perturbation of the relayer: a kill (it stays down: the run
// says which packets it left) or a pause (SIGSTOP, SIGCONT after the
// duration: the packets it held up are relayed late).
func (rl *relay) fault(p scenario.Perturbation) (*fault, error) {
	if rl == nil || rl.hermes == nil {
		return nil, fmt.Errorf("no relayer runs to %s", p.Kind)
	}
	f := &fault{names: scenario.RelayerNode, began: p.Kind}
	switch p.Kind {
	case "kill":
		f.begin = func(context.Context) error { return rl.hermes.Signal(syscall.SIGKILL) }
	case "pause":
		f.ended = "continue"
		f.begin = func(context.Context) error { return rl.hermes.Signal(syscall.SIGSTOP) }
		f.end = func(context.Context) error { return rl.hermes.Signal(syscall.SIGCONT) }
	default:
		return nil, fmt.Errorf("the relayer is killed or paused, not %s", p.Kind)
	}
	return f, nil
}

// down stops the relayer and takes the counterparty down, its nodes' logs
// and the relayer's kept with the run first (named "CHAIN-ID/NODE" and
// "relayer").
func (rl *relay) down(ctx context.Context, o RunOptions, rec *recorder, r *results.Run) {
	if rl == nil {
		return
	}
	if rl.hermes != nil {
		rl.hermes.Stop(10 * time.Second)
		if rec.store != nil {
			text, size, err := live.HeadAndTail(rl.hermes.LogPath(), store.MaxLog)
			if err != nil {
				rec.storeOnly("log", "the relayer's log not kept: "+err.Error())
			} else {
				rec.keepLog(store.NodeLog{Node: scenario.RelayerNode, Size: size, Text: text})
			}
		}
	}
	if rl.net != nil {
		o.Phase("counterparty down")
		keepLogs(ctx, rl.net, rl.net.Testnet.ChainID+"/", rec, r)
		rl.net.Down(ctx)
	}
	if rl.dir != "" {
		os.RemoveAll(rl.dir)
	}
}
