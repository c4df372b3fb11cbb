package experiment

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chainperf/chainperf/internal/netem"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// perturb does the scenario's perturbations to net, each `at` after start,
// telling event about each beginning and end ("kill validator3", "restart
// validator3"). The returned func waits for them all to end (cancelling
// what has not begun) and returns the first error.
func perturb(ctx context.Context, net *Net, start time.Time, ps []scenario.Perturbation, event func(kind, detail string)) func() error {
	pctx, cancel := context.WithCancel(ctx)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for _, p := range ps {
		var nodes []*testnet.Node
		for _, name := range p.Nodes {
			nodes = append(nodes, net.Testnet.Node(name))
		}
		names := strings.Join(p.Nodes, ",")
		if names == "" {
			names = "all"
		}
		if p.Kind == "partition" {
			sides := make([]string, len(p.Groups))
			for i, g := range p.Groups {
				sides[i] = strings.Join(g, ",")
			}
			names = strings.Join(sides, "|")
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !sleepUntil(pctx, start.Add(p.At.D())) {
				return
			}
			err := doPerturbation(context.WithoutCancel(pctx), pctx, net, p, nodes, func(what string) { event("perturbation", what+" "+names) })
			if err != nil {
				mu.Lock()
				if first == nil {
					first = fmt.Errorf("perturbation %s %s: %w", p.Kind, names, err)
				}
				mu.Unlock()
			}
		}()
	}
	return func() error {
		cancel()
		wg.Wait()
		return first
	}
}

// doPerturbation does one perturbation: its beginning, then after its
// duration its end. The end (start again, continue) runs even when the
// phase is cancelled, so that no node is left paused; a kill of duration 0
// has no end.
func doPerturbation(bg, ctx context.Context, net *Net, p scenario.Perturbation, nodes []*testnet.Node, event func(string)) error {
	pv := net.Provider
	restart := func() error { return pv.Start(bg, nodes...) }
	var (
		began, ended string
		begin, end   func() error
	)
	switch p.Kind {
	case "kill":
		began, begin = "kill", func() error { pv.Kill(nodes...); return nil }
		if p.Duration > 0 {
			ended, end = "start", restart
		}
	case "restart":
		began, begin = "stop", func() error { return pv.Stop(bg, nodes...) }
		ended, end = "start", restart
	case "pause":
		began, begin = "pause", func() error { return pv.Pause(true, nodes...) }
		ended, end = "continue", func() error { return pv.Pause(false, nodes...) }
	case "disconnect", "partition":
		t := net.Testnet
		if t.Network == nil {
			return fmt.Errorf("%s needs the netns provider", p.Kind)
		}
		if p.Kind == "disconnect" {
			link := func(up bool) func() error {
				return func() error {
					for _, n := range nodes {
						if err := t.Network.SetLink(bg, t.Index(n), up); err != nil {
							return err
						}
					}
					return nil
				}
			}
			began, begin, ended, end = "disconnect", link(false), "reconnect", link(true)
			break
		}
		var groups [][]int
		for _, g := range p.Groups {
			var idx []int
			for _, name := range g {
				idx = append(idx, t.Index(t.Node(name)))
			}
			groups = append(groups, idx)
		}
		began, begin = "partition", func() error { return t.Network.Split(bg, groups, false) }
		ended, end = "heal", func() error { return t.Network.Split(bg, groups, true) }
	case "latency":
		rp, ok := net.Shaper.(netem.Replanner)
		if !ok {
			return fmt.Errorf("a latency change needs the nfqueue backend (the tc backend's delays are fixed for the run)")
		}
		var only map[int]bool
		for _, n := range nodes {
			if only == nil {
				only = map[int]bool{}
			}
			only[net.Testnet.Index(n)] = true
		}
		base := rp.Plan()
		began = fmt.Sprintf("latency x%g", p.Scale)
		begin = func() error { rp.SetPlan(base.Scaled(p.Scale, only)); return nil }
		ended, end = "latency-restore", func() error { rp.SetPlan(base); return nil }
	default:
		return fmt.Errorf("unknown perturbation %q", p.Kind)
	}
	event(began)
	if err := begin(); err != nil || end == nil {
		return err
	}
	sleepUntil(ctx, time.Now().Add(p.Duration.D()))
	event(ended)
	if err := end(); err != nil {
		return err
	}
	// The nodes are back: how long until they are at the chain's tip
	// again (only while the phase lasts)?
	if p.Kind == "partition" || p.Kind == "latency" || ctx.Err() != nil {
		return nil
	}
	back, top := time.Now(), tip(ctx, net)
	for _, n := range nodes {
		if _, err := waitCaughtUp(ctx, net, n, top, back.Add(2*time.Minute)); err != nil {
			return nil // not caught up while the phase lasted: the fault table says so
		}
	}
	event(fmt.Sprintf("caught-up %.1fs", time.Since(back).Seconds()))
	return nil
}

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
