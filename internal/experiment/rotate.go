package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/live"
)

// rotation is CometBFT's rotating-nodes test: while [load] runs, fresh
// full nodes start one after another, block-sync to the tip and stop.
type rotation struct{}

func (rotation) phases(s *scenario.Scenario) []phasePlan {
	e := s.Experiment
	return []phasePlan{{name: scenario.KindRotate, kind: scenario.KindRotate, load: s.Load, warmup: e.Warmup.D(),
		cooldown: e.Cooldown.D(), pause: e.Pause.D()}}
}

func (rotation) rotating(s *scenario.Scenario) int { return s.Experiment.Rotations }

func (rotation) finish(*scenario.Scenario, *results.Run, []*results.Phase) {}

func (rotation) describe(s *scenario.Scenario, model string) string {
	return fmt.Sprintf("%d rotating nodes during %s", s.Experiment.Rotations, model)
}

// alongside starts the rotations; they may outlast the load, each bounded
// by catchup_timeout.
func (rotation) alongside(ctx context.Context, env *phaseEnv, plan phasePlan) func(*results.Run) {
	done := make(chan []results.Rotation, 1)
	go func() {
		done <- rotate(ctx, env.net, env.start, plan.load.Length(), env.s.Experiment.CatchupTimeout.D(), env.rec)
	}()
	return func(r *results.Run) { r.Rotations = append(r.Rotations, <-done...) }
}

// rotate runs the n rotating nodes spread over the phase (at
// length*i/(n+1) after start), each from nothing (genesis only); each
// block-syncs to the tip the validators had when it started, and stops.
// One that does not catch up within timeout is recorded as such and
// stopped; the next still runs.
func rotate(ctx context.Context, net *live.Net, start time.Time, length, timeout time.Duration, rec *recorder) []results.Rotation {
	var out []results.Rotation
	nodes := net.Testnet.ByRole(testnet.RoleRotating)
	for i, n := range nodes {
		at := start.Add(length * time.Duration(i+1) / time.Duration(len(nodes)+1))
		if !sleepUntil(ctx, at) {
			break
		}
		out = append(out, rotateOne(ctx, net, n, timeout, rec))
	}
	return out
}

func rotateOne(ctx context.Context, net *live.Net, n *testnet.Node, timeout time.Duration, rec *recorder) results.Rotation {
	rot := results.Rotation{Node: n.Name, Started: time.Now().UTC(), Tip: tip(ctx, net)}
	rec.event("rotation", fmt.Sprintf("start %s (tip %d)", n.Name, rot.Tip))
	start := time.Now()
	if err := net.Provider.Start(ctx, n); err != nil {
		rot.Error = err.Error()
		return rot
	}
	defer func() {
		_ = net.Provider.Stop(context.WithoutCancel(ctx), n)
		rec.event("rotation", fmt.Sprintf("stop %s", n.Name))
	}()
	var err error
	if rot.Height, err = waitCaughtUp(ctx, net, n, rot.Tip, start.Add(timeout), wall{}); err != nil {
		rot.Error = err.Error()
		return rot
	}
	rot.CaughtUp = true
	rot.CatchUp = time.Since(start).Seconds()
	rot.BlocksPer = float64(rot.Height) / rot.CatchUp
	return rot
}
