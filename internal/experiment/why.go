package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/selfcost"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/live"
	"github.com/chainperf/chainperf/internal/why"
)

// followEvents starts following the consensus events of every standing
// node (nil when the scenario turned the timeline off); the returned func
// stops it.
func followEvents(ctx context.Context, net *live.Net, o scenario.Observe) (*why.Events, func()) {
	if !o.Timeline {
		return nil, func() {}
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var e *why.Events
	selfcost.Do(ctx, selfcost.Observer, func(ctx context.Context) { e = why.Follow(ctx, eventNodes(net)) })
	return e, func() { cancel(); e.Stop() }
}

func eventNodes(net *live.Net) []why.EventNode {
	var out []why.EventNode
	for _, n := range net.Testnet.Standing() {
		out = append(out, why.EventNode{Name: n.Name, Role: string(n.Role), RPC: net.Endpoint(n).RPC})
	}
	return out
}

// explain adds to r where the main phase's time went: the nodes'
// internals over its measured window (from the samples stored) and each
// height's timeline (from the consensus events).
func explain(ctx context.Context, o RunOptions, r *results.Run, net *live.Net, events *why.Events, rec *recorder) {
	p := r.Main()
	if p == nil || p.Start.IsZero() {
		return
	}
	from := p.Start.Add(time.Duration(p.Window[0] * float64(time.Second)))
	to := p.Start.Add(time.Duration(p.Window[1] * float64(time.Second)))
	var names map[string]string
	if events != nil {
		names = events.Names()
		nodes := eventNodes(net)
		if f, ok := events.Timeline(from, to, nodes); ok {
			r.SetFinding(f)
		}
		for node, err := range events.Errors() {
			rec.storeOnly("events_error", fmt.Sprintf("%s: %s", node, err))
		}
	}
	var inWindow []observe.Block
	for _, b := range p.Blocks {
		if !b.Seen.Before(from) && !b.Seen.After(to) {
			inWindow = append(inWindow, b)
		}
	}
	roles := map[string]string{}
	for _, n := range net.Testnet.Nodes {
		roles[n.Name] = string(n.Role)
	}
	if f, ok := why.Profiles(r.Profiles, roles); ok {
		r.SetFinding(f)
	}
	absent, heights := why.Absent(inWindow, names)
	if o.Store == nil {
		return
	}
	series, err := o.Store.SeriesBetween(context.WithoutCancel(ctx), r.ID, from, to)
	if err != nil {
		rec.event("internals_error", err.Error())
		return
	}
	var nodes []why.Node
	for _, n := range net.Testnet.Standing() {
		nodes = append(nodes, why.Node{Name: n.Name, Role: string(n.Role)})
	}
	txs := 0
	for _, b := range inWindow {
		txs += b.Txs
	}
	if f, ok := why.Internals(series, from, to, nodes, absent, heights, txs); ok {
		r.SetFinding(f)
	}
}

// windowProfiles are the profiles taken from every standing node over the
// measured window of a steady or rotate phase.
func windowProfiles(s *scenario.Scenario, net *live.Net, plan phasePlan) []scenario.Profile {
	if plan.kind != scenario.KindSteady && plan.kind != scenario.KindRotate {
		return nil
	}
	secs := int((plan.load.Length() - plan.warmup - plan.cooldown).Seconds())
	if secs < 1 {
		return nil
	}
	// A node a perturbation stops is not profiled over the window: its
	// profile would cover part of it, and a node stops only once the
	// request in flight ends (its pprof server waits for it), so a stop
	// became a kill after the provider's stop timeout.
	stopped := map[string]bool{}
	for _, p := range s.Perturbations {
		switch testnet.Fault(p.Kind) {
		case testnet.FaultKill, testnet.FaultRestart:
			for _, n := range p.Nodes {
				stopped[n] = true
			}
		case testnet.FaultUpgrade:
			for _, n := range s.UpgradeNodes(p) {
				stopped[n] = true
			}
		}
	}
	var out []scenario.Profile
	for _, k := range s.Observe.WindowProfiles {
		for _, n := range net.Testnet.Standing() {
			if net.Endpoint(n).Pprof == "" || stopped[n.Name] {
				continue // an existing network's node that names no pprof listener, or one a fault stops
			}
			if n.Role == testnet.RoleValidator || n.Role == testnet.RoleFull {
				out = append(out, scenario.Profile{Node: n.Name, Kind: k, At: scenario.Duration(plan.warmup), Seconds: secs})
			}
		}
	}
	return out
}
