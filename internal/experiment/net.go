// Package experiment composes the pieces into what a user runs: bringing a
// testnet up and down, and the experiments that drive load at it and
// observe it. It is the only package that wires them all.
package experiment

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	"github.com/chainperf/chainperf/internal/netem"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/sdkchain"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/netns"
	"github.com/chainperf/chainperf/internal/testnet/process"
)

// UpOptions say where and how a testnet comes up.
type UpOptions struct {
	Dir    string // "" makes a temp dir that teardown removes
	Detach bool   // nodes outlive the harness
	Exe    string // chainperf binary for embedded nodes
	// Rotating full nodes are set up but not started (the rotate
	// experiment starts them).
	Rotating int
	// Table is the zone table of an emulated WAN (nil: the built-in one).
	Table *netem.Table
	Log   *slog.Logger
}

// A Net is a testnet that runs, with the provider that runs it.
type Net struct {
	Testnet  *testnet.Testnet
	Provider *process.Provider
	State    *testnet.State
	// Shaper applies the emulated WAN's delays (nil: none); WAN says what.
	Shaper netem.Shaper
	WAN    *results.WAN
	// Chain is the Cosmos SDK chain's setup (nil for kvstore).
	Chain *sdkchain.Chain
}

// Up plans, sets up and starts a testnet. On error nothing is left behind:
// no process, no state, no temp dir.
func Up(ctx context.Context, spec scenario.Testnet, o UpOptions) (_ *Net, err error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	temp := o.Dir == ""
	dir := o.Dir
	if temp {
		if dir, err = os.MkdirTemp("", "chainperf-testnet-"); err != nil {
			return nil, fmt.Errorf("temp dir: %w", err)
		}
	} else if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil && temp {
			os.RemoveAll(dir)
		}
	}()
	if err := testnet.CheckDir(dir); err != nil {
		return nil, err
	}
	emulated := spec.Provider == "netns"
	if emulated {
		if err := netns.CheckRoot(); err != nil {
			return nil, err
		}
		if spec.Emulated() && o.Detach && spec.NetemBackend != "tc" {
			return nil, fmt.Errorf("a detached testnet cannot keep an emulated WAN's delays: the nfqueue delay daemon lives in chainperf and ends with it; run it in the foreground")
		}
	}

	var sdkd string
	if spec.Chain == "cosmos" {
		logf := func(format string, args ...any) { o.Log.Info(fmt.Sprintf(format, args...)) }
		if sdkd, err = sdkchain.Find(ctx, spec.Cosmos.Binary, logf); err != nil {
			return nil, err
		}
	}

	unlock, err := testnet.LockPorts()
	if err != nil {
		return nil, err
	}
	id := testnet.NewID()
	probe := testnet.New(spec, id, dir, process.Host, 0)
	probe.AddRotating(o.Rotating)
	base, err := testnet.AllocatePorts(process.Host, spec.BasePort, probe.PortCount())
	if err != nil {
		unlock()
		return nil, err
	}
	t := testnet.New(spec, id, dir, process.Host, base)
	t.AddRotating(o.Rotating)
	if sdkd != "" {
		t.Binary, t.Args = sdkd, spec.Cosmos.StartArgs
	}
	if emulated {
		nw, err := netns.Pick(id, spec.Subnet)
		if err != nil {
			unlock()
			return nil, err
		}
		t.Network = &nw
		for i, n := range t.Nodes {
			n.Host = nw.Address(i).String()
		}
	}
	st := &testnet.State{Testnet: t, Detached: o.Detach, TempDir: temp, Created: time.Now().UTC()}
	if !o.Detach {
		st.HarnessPID = os.Getpid()
		st.HarnessStart, _ = process.StartTime(st.HarnessPID)
	}
	if err := t.Setup(); err != nil {
		unlock()
		return nil, err
	}
	err = st.Save() // holds the ports from here on
	unlock()
	if err != nil {
		process.Remove(st)
		return nil, err
	}
	var chain *sdkchain.Chain
	if sdkd != "" {
		if chain, err = sdkchain.Setup(ctx, t, sdkd, spec.Cosmos); err != nil {
			process.Remove(st)
			return nil, err
		}
	}
	if emulated {
		// Recorded in the state first: `chainperf clean` finds it if the
		// harness dies from here on.
		if err := netns.Create(ctx, *t.Network, len(t.Nodes)); err != nil {
			process.Remove(st)
			return nil, fmt.Errorf("emulated network: %w", err)
		}
	}

	var popts []process.Option
	popts = append(popts, process.WithLogger(o.Log))
	if o.Detach {
		popts = append(popts, process.Detached())
	}
	n := &Net{Testnet: t, Provider: process.New(t, o.Exe, popts...), State: st, Chain: chain}
	defer func() {
		if err != nil {
			n.Down(context.WithoutCancel(ctx))
		}
	}()
	if spec.Emulated() {
		if n.Shaper, n.WAN, err = shape(ctx, spec, t, o.Table); err != nil {
			return nil, err
		}
	}
	if err := n.Provider.Start(ctx, t.Standing()...); err != nil {
		return nil, err
	}
	if err := st.Save(); err != nil { // now with PIDs
		return nil, err
	}
	return n, nil
}

// Down ends every node and removes the state (and the dir if it was a temp
// dir). Logs in a user-chosen dir stay.
func (n *Net) Down(ctx context.Context) {
	_ = n.Provider.Close(ctx)
	if n.Shaper != nil {
		n.Shaper.Close()
	}
	process.Remove(n.State)
}

// shape starts the emulated WAN's delays between t's nodes: zones from
// spec (or one uniform delay) over table.
func shape(ctx context.Context, spec scenario.Testnet, t *testnet.Testnet, table *netem.Table) (netem.Shaper, *results.WAN, error) {
	if table == nil {
		table = netem.Builtin()
	}
	wan := &results.WAN{Zones: map[string]string{}, Jitter: spec.Jitter, Loss: spec.Loss, Table: spec.LatencyTable}
	zoneOf := spec.ZoneOf()
	zones := make([]string, len(t.Nodes))
	for i, n := range t.Nodes {
		zones[i] = zoneOf[n.Name]
	}
	if spec.UniformDelay > 0 || len(spec.Zones) == 0 && len(spec.NodeZones) == 0 {
		// One delay between every pair (0 with a bandwidth cap alone).
		for i := range zones {
			zones[i] = fmt.Sprintf("node%d", i)
		}
		table = netem.Uniform(spec.UniformDelay.D(), len(t.Nodes))
		wan.Table, wan.UniformMS = "uniform", float64(spec.UniformDelay.D().Milliseconds())
	} else {
		for i, n := range t.Nodes {
			if zones[i] != "" {
				wan.Zones[n.Name] = zones[i]
			}
		}
	}
	plan, err := netem.PlanFor(table, zones, spec.Jitter, spec.Loss)
	if err != nil {
		return nil, nil, err
	}
	plan.Bandwidth = spec.BandwidthMbit * 1e6
	wan.BandwidthMbit = spec.BandwidthMbit
	sh, err := netem.Start(ctx, spec.NetemBackend, *t.Network, len(t.Nodes), plan)
	if err != nil {
		return nil, nil, fmt.Errorf("emulated WAN: %w", err)
	}
	wan.Backend = sh.Backend()
	return sh, wan, nil
}

// WaitHeight waits until every standing node has reached height h. It fails when a
// node process exits, or when no node's height rises for stall, naming the
// height and the logs to read; never on a fixed deadline.
func (n *Net) WaitHeight(ctx context.Context, h int64, stall time.Duration) error {
	clients := map[string]*rpchttp.HTTP{}
	for _, nd := range n.Testnet.Standing() {
		c, err := rpchttp.New(nd.Endpoint().RPC, "/websocket")
		if err != nil {
			return err
		}
		clients[nd.Name] = c
	}
	heights := map[string]int64{}
	lastRise := time.Now()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		done := true
		for _, nd := range n.Testnet.Standing() {
			if err, exited := n.Provider.Exited(nd); exited {
				return fmt.Errorf("%s exited (%v): see %s", nd.Name, err, filepath.Join(n.Testnet.LogDir(), nd.Name+".log"))
			}
			qctx, cancel := context.WithTimeout(ctx, time.Second)
			st, err := clients[nd.Name].Status(qctx)
			cancel()
			if err == nil && st.SyncInfo.LatestBlockHeight > heights[nd.Name] {
				heights[nd.Name] = st.SyncInfo.LatestBlockHeight
				lastRise = time.Now()
			}
			if heights[nd.Name] < h {
				done = false
			}
		}
		if done {
			return nil
		}
		if time.Since(lastRise) > stall {
			return fmt.Errorf("testnet stalled: no node's height rose for %s (heights %s); see logs in %s",
				stall, formatHeights(n.Testnet, heights), n.Testnet.LogDir())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Heights returns each node's latest height (0 when it does not answer).
func Heights(ctx context.Context, nodes []*testnet.Node) map[string]int64 {
	out := map[string]int64{}
	for _, nd := range nodes {
		c, err := rpchttp.New(nd.Endpoint().RPC, "/websocket")
		if err != nil {
			continue
		}
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		if st, err := c.Status(qctx); err == nil {
			out[nd.Name] = st.SyncInfo.LatestBlockHeight
		}
		cancel()
	}
	return out
}

func formatHeights(t *testnet.Testnet, h map[string]int64) string {
	var parts []string
	for _, nd := range t.Standing() {
		parts = append(parts, fmt.Sprintf("%s=%d", nd.Name, h[nd.Name]))
	}
	return strings.Join(parts, " ")
}
