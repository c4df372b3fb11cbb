package experiment

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/live"
)

// perturb does the scenario's perturbations to net, each `at` after start
// by clk, recording each as a fault. The returned func waits for them all
// to end (cancelling what has not begun) and returns the first error.
func perturb(ctx context.Context, net *live.Net, rl *relay, start time.Time, ps []scenario.Perturbation, rec *recorder, clk clock) func() error {
	pctx, cancel := context.WithCancel(ctx)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	// launch does faults one after the other from at: each lasts d, and
	// the next begins gap after the one before is done (its nodes back at
	// the tip: a rolling upgrade takes one node at a time).
	launch := func(kind string, faults []*fault, at, d, gap time.Duration) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := start.Add(at)
			for _, f := range faults {
				if !clk.SleepUntil(pctx, next) {
					return
				}
				if err := f.do(context.WithoutCancel(pctx), pctx, net, d, rec, clk); err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("perturbation %s %s: %w", kind, f.names, err)
					}
					mu.Unlock()
					return
				}
				next = clk.Now().Add(gap)
			}
		}()
	}
	for _, p := range ps {
		if p.Coordinated() {
			f, err := coordinatedUpgrade(net, p)
			if err != nil {
				first = err
				continue
			}
			launch(p.Kind, []*fault{f}, 0, p.Duration.D(), 0)
			continue
		}
		if isUpgrade(p) {
			steps, err := upgradeSteps(net, p)
			if err != nil {
				first = err
				continue
			}
			launch(p.Kind, steps, p.At.D(), p.Duration.D(), p.Gap.D())
			continue
		}
		f, err := faultOf(net, p)
		if slices.Equal(p.Nodes, []string{scenario.RelayerNode}) {
			f, err = rl.fault(p)
		}
		if err != nil {
			first = err
			continue
		}
		launch(p.Kind, []*fault{f}, p.At.D(), p.Duration.D(), 0)
	}
	return func() error {
		cancel()
		wg.Wait()
		return first
	}
}

// A fault is one perturbation made concrete for a provider: what its
// beginning and its end are called in the record, and what they do.
type fault struct {
	names        string // "validator3", "validator0,validator1|validator2,validator3", "all"
	nodes        []*testnet.Node
	began, ended string
	begin, end   func(context.Context) error // end nil: nothing undoes it
	stopsNodes   bool                        // the nodes must catch up after it
	restarts     bool                        // it ends the nodes' processes (their mempools go with them)
	// wait, when set, holds the fault's beginning until the chain is
	// ready for it (a coordinated upgrade: every node halted); backAt is
	// the height its nodes are back at, at the least.
	wait   func(context.Context) error
	backAt int64
}

// faultOf finds in net's provider the capability that does p. A
// scenario check refuses what the provider cannot do; this says so too.
func faultOf(net *live.Net, p scenario.Perturbation) (*fault, error) {
	t, pv := net.Testnet, net.Provider
	f := &fault{names: strings.Join(p.Nodes, ","), stopsNodes: true}
	for _, name := range p.Nodes {
		f.nodes = append(f.nodes, t.Node(name))
	}
	if f.names == "" {
		f.names = "all"
	}
	if !testnet.Can(pv, testnet.Fault(p.Kind)) {
		return nil, fmt.Errorf("the %q provider cannot do a %s", pv.Name(), p.Kind)
	}
	restart := func(ctx context.Context) error { return pv.Start(ctx, f.nodes...) }
	// What a restart finds: the faults table says which kind it was.
	home := ""
	if _, asks := pv.(testnet.HomeKeeper); asks {
		home = " (pod made again, empty home)"
		if testnet.KeepsHome(pv) {
			home = " (pod made again, home kept on its volume)"
		}
	}
	switch testnet.Fault(p.Kind) {
	case testnet.FaultKill:
		k := pv.(testnet.Killer)
		f.restarts = true
		f.began, f.begin = "kill"+home, func(ctx context.Context) error { return k.Kill(ctx, f.nodes...) }
		if p.Duration > 0 {
			f.ended, f.end = "start", restart
		}
	case testnet.FaultRestart:
		f.restarts = true
		f.began, f.begin = "stop"+home, func(ctx context.Context) error { return pv.Stop(ctx, f.nodes...) }
		f.ended, f.end = "start", restart
	case testnet.FaultPause:
		pz := pv.(testnet.Pauser)
		f.began, f.begin = "pause", func(ctx context.Context) error { return pz.Pause(ctx, f.nodes...) }
		f.ended, f.end = "continue", func(ctx context.Context) error { return pz.Resume(ctx, f.nodes...) }
	case testnet.FaultDisconnect:
		d := pv.(testnet.Disconnecter)
		f.began, f.begin = "disconnect", func(ctx context.Context) error { return d.Disconnect(ctx, f.nodes...) }
		f.ended, f.end = "reconnect", func(ctx context.Context) error { return d.Reconnect(ctx, f.nodes...) }
	case testnet.FaultPartition:
		pt := pv.(testnet.Partitioner)
		groups := make([][]*testnet.Node, len(p.Groups))
		sides := make([]string, len(p.Groups))
		for i, g := range p.Groups {
			for _, name := range g {
				groups[i] = append(groups[i], t.Node(name))
			}
			sides[i] = strings.Join(g, ",")
		}
		f.names, f.stopsNodes = strings.Join(sides, "|"), false
		f.began, f.begin = "partition", func(ctx context.Context) error { return pt.Partition(ctx, groups) }
		f.ended, f.end = "heal", func(ctx context.Context) error { return pt.Heal(ctx, groups) }
	case testnet.FaultLatency:
		ls := pv.(testnet.LatencyShaper)
		f.stopsNodes = false
		f.began = fmt.Sprintf("latency x%g", p.Scale)
		f.begin = func(ctx context.Context) error { return ls.ScaleLatency(ctx, p.Scale, f.nodes...) }
		f.ended, f.end = "latency-restore", ls.RestoreLatency
	}
	return f, nil
}

// do does the fault: its beginning, then after d its end. The end (start
// again, continue, heal) runs even when the phase is cancelled (bg is not),
// so that no node is left paused; a kill of duration 0 has no end. After
// the end, it waits (while the phase lasts) for the nodes to be at the
// chain's tip again and records how long that took.
func (f *fault) do(bg, ctx context.Context, net *live.Net, d time.Duration, rec *recorder, clk clock) error {
	if f.wait != nil {
		if err := f.wait(ctx); err != nil {
			return err
		}
	}
	i := rec.began(f.began, f.names, f.stopsNodes)
	err := f.begin(bg)
	if f.restarts {
		// The moment the last of them was gone, not when the stop began: a
		// node still ending on SIGTERM takes txs meanwhile, and its mempool
		// goes with it.
		rec.restarted(f.nodes)
	}
	if err != nil || f.end == nil {
		return err
	}
	clk.SleepUntil(ctx, clk.Now().Add(d))
	rec.ended(i, f.ended)
	if err := f.end(bg); err != nil {
		return err
	}
	if !f.stopsNodes || ctx.Err() != nil {
		return nil
	}
	back, top := clk.Now(), max(tip(ctx, net), f.backAt)
	for _, n := range f.nodes {
		if _, err := waitCaughtUp(ctx, net, n, top, back.Add(2*time.Minute), clk); err != nil {
			return nil // not caught up while the phase lasted: the fault table says so
		}
	}
	rec.caughtUp(i, clk.Now().Sub(back))
	return nil
}

// upgradeSteps are a rolling upgrade's faults, one a node in order: stop
// the node, and after the upgrade's duration start it on the same home
// with the binary the upgrade names (a patch release reads the home the
// one before wrote). The nodes are those named, else every validator
// then every full node.
func upgradeSteps(net *live.Net, p scenario.Perturbation) ([]*fault, error) {
	t, pv := net.Testnet, net.Provider
	if !testnet.Can(pv, testnet.FaultUpgrade) {
		return nil, fmt.Errorf("the %q provider cannot swap a node's binary (an upgrade)", pv.Name())
	}
	nodes := p.Nodes
	if len(nodes) == 0 {
		for _, n := range append(t.ByRole(testnet.RoleValidator), t.ByRole(testnet.RoleFull)...) {
			nodes = append(nodes, n.Name)
		}
	}
	var out []*fault
	for _, name := range nodes {
		n := t.Node(name)
		if n == nil {
			return nil, fmt.Errorf("upgrade: no node %q", name)
		}
		out = append(out, &fault{
			names: name, nodes: []*testnet.Node{n}, stopsNodes: true, restarts: true,
			began: "upgrade", begin: func(ctx context.Context) error { return pv.Stop(ctx, n) },
			ended: "start " + p.To, end: func(ctx context.Context) error {
				n.Run(upgradeLabel(p), p.ToExec)
				return pv.Start(ctx, n)
			},
		})
	}
	return out, nil
}

// formatSeconds is d as "4.2s".
func formatSeconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// A clock is the time a run's decisions read (when a fault begins and
// ends, when a catch-up is given up): the wall clock in a run, a made-up
// one in tests.
type clock interface {
	Now() time.Time
	// SleepUntil waits until t or until ctx ends; it reports whether t came.
	SleepUntil(ctx context.Context, t time.Time) bool
}

// wall is the machine's clock.
type wall struct{}

func (wall) Now() time.Time                                   { return time.Now() }
func (wall) SleepUntil(ctx context.Context, t time.Time) bool { return sleepUntil(ctx, t) }

// sleepUntil waits until t or until ctx ends; it reports whether t came.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
