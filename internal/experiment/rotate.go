package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/chainperf/chainperf/internal/nodehttp"
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
		done <- rotate(ctx, env.net, env.start, plan.load.Length(), env.s, env.rec)
	}()
	return func(r *results.Run) { r.Rotations = append(r.Rotations, <-done...) }
}

// rotate runs the n rotating nodes spread over the phase (at
// length*i/(n+1) after start), each from nothing (genesis only); each
// block-syncs (or state-syncs, then block-syncs) to the tip the
// validators had when it started, and stops. One that does not catch up
// within catchup_timeout is recorded as such and stopped; the next still
// runs.
func rotate(ctx context.Context, net *live.Net, start time.Time, length time.Duration, s *scenario.Scenario, rec *recorder) []results.Rotation {
	timeout := s.Experiment.CatchupTimeout.D()
	var out []results.Rotation
	nodes := net.Testnet.ByRole(testnet.RoleRotating)
	for i, n := range nodes {
		at := start.Add(length * time.Duration(i+1) / time.Duration(len(nodes)+1))
		if !sleepUntil(ctx, at) {
			break
		}
		out = append(out, rotateOne(ctx, net, n, timeout, s, rec))
	}
	return out
}

func rotateOne(ctx context.Context, net *live.Net, n *testnet.Node, timeout time.Duration, s *scenario.Scenario, rec *recorder) results.Rotation {
	rot := results.Rotation{Node: n.Name, Started: time.Now().UTC(), Tip: tip(ctx, net), Sync: s.Experiment.RotateSync}
	if rot.Sync == "state" {
		if err := trustRecent(ctx, net, n, rot.Tip, s.Testnet.SnapshotInterval); err != nil {
			rot.Error = err.Error()
			return rot
		}
	}
	rec.event("rotation", fmt.Sprintf("start %s (tip %d, %s sync)", n.Name, rot.Tip, rot.Sync))
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
	from := int64(0)
	if rot.Sync == "state" {
		// The first block it holds is the one after the snapshot it restored.
		c, cancel := context.WithTimeout(ctx, 3*time.Second)
		st, err := nodehttp.ReadStatus(c, net.Endpoint(n).RPC)
		cancel()
		if err == nil && st.Earliest > 1 {
			rot.Snapshot, from = st.Earliest-1, st.Earliest-1
		}
	}
	rot.BlocksPer = float64(rot.Height-from) / rot.CatchUp
	return rot
}

// trustRecent sets n to join by state sync: its light client asks two
// validators and trusts the block two snapshot intervals below the tip
// (a height the chain has and a snapshot lies above), by the hash a
// validator gives for it.
func trustRecent(ctx context.Context, net *live.Net, n *testnet.Node, tip, interval int64) error {
	vals := net.Testnet.ByRole(testnet.RoleValidator)
	if len(vals) < 2 {
		return fmt.Errorf("state sync: the light client needs two validators' RPC, the testnet has %d", len(vals))
	}
	h := max(1, tip-2*interval)
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	hash, err := nodehttp.ReadBlockHash(c, net.Endpoint(vals[0]).RPC, h)
	cancel()
	if err != nil {
		return fmt.Errorf("state sync: the block to trust: %w", err)
	}
	n.Config = map[string]any{
		"statesync.enable":       true,
		"statesync.rpc_servers":  []any{vals[0].Endpoint().RPC, vals[1].Endpoint().RPC},
		"statesync.trust_height": h,
		"statesync.trust_hash":   hash,
		"statesync.trust_period": "168h",
	}
	return net.Testnet.WriteConfig(n)
}
