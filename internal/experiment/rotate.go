package experiment

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/observe"
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

func (rotation) finish(_ *scenario.Scenario, r *results.Run, phases []*results.Phase) {
	results.JoinLatency(r.Rotations, phases)
}

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
		if !sleepUntil(ctx, at.Add(-serveBaseline)) {
			break
		}
		before := servingCPU(net)
		if !sleepUntil(ctx, at) {
			break
		}
		out = append(out, rotateOne(ctx, net, n, timeout, s, rec, before))
	}
	return out
}

// serveBaseline is how long before a join the serving nodes' CPU is read.
const serveBaseline = 5 * time.Second

// A cpuReading is the CPU seconds the standing nodes' processes had used
// at a moment; ok is false when one of them is not a process here.
type cpuReading struct {
	at  time.Time
	cpu float64
	ok  bool
}

func servingCPU(net *live.Net) cpuReading {
	r := cpuReading{at: time.Now(), ok: true}
	for _, n := range net.Testnet.Standing() {
		if n.Role == testnet.RoleRotating {
			continue
		}
		pid := net.PID(n)
		if pid <= 0 {
			return cpuReading{}
		}
		c, _, err := observe.ProcessStat(pid)
		if err != nil {
			return cpuReading{}
		}
		r.cpu += c
	}
	return r
}

// cores is the CPU cores used from a to b, 0 when either is unknown or
// they are less than a second apart.
func cores(a, b cpuReading) float64 {
	d := b.at.Sub(a.at).Seconds()
	if !a.ok || !b.ok || d < 1 || b.cpu < a.cpu {
		return 0
	}
	return (b.cpu - a.cpu) / d
}

func rotateOne(ctx context.Context, net *live.Net, n *testnet.Node, timeout time.Duration, s *scenario.Scenario, rec *recorder, before cpuReading) results.Rotation {
	rot := results.Rotation{Node: n.Name, Started: time.Now().UTC(), Tip: tip(ctx, net), Sync: s.Experiment.RotateSync}
	if rot.Sync == "state" {
		if err := trustRecent(ctx, net, n, rot.Tip, s.Testnet.SnapshotInterval); err != nil {
			rot.Error = err.Error()
			return rot
		}
	}
	rec.event("rotation", fmt.Sprintf("start %s (tip %d, %s sync)", n.Name, rot.Tip, rot.Sync))
	start, joining := time.Now(), servingCPU(net)
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
	rot.ServeCPUBefore, rot.ServeCPU = cores(before, joining), cores(joining, servingCPU(net))
	rot.Received, rot.ChunkBytes, rot.BlockBytes = joinBytes(ctx, net.Endpoint(n).Metrics)
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

// joinBytes reads a joined node's p2p receive counters (it is fresh, so
// they are its join): all bytes received, those in state-sync chunks and
// those in blocks. -1 each when its metrics page cannot be read.
func joinBytes(ctx context.Context, metrics string) (all, chunks, blocks int64) {
	if metrics == "" {
		return -1, -1, -1
	}
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	page, err := nodehttp.Get(c, nodehttp.Client(nodehttp.Query), metrics)
	if err != nil {
		return -1, -1, -1
	}
	const family = "cometbft_p2p_message_receive_bytes_total"
	samples, err := observe.ParseMetrics(bytes.NewReader(page), "", map[string]bool{family: true}, time.Now())
	if err != nil {
		return -1, -1, -1
	}
	for _, sm := range samples {
		v := int64(sm.Value)
		all += v
		switch {
		case strings.Contains(sm.Series, `message_type="statesync_ChunkResponse"`):
			chunks += v
		case strings.Contains(sm.Series, `message_type="blocksync_BlockResponse"`):
			blocks += v
		}
	}
	return all, chunks, blocks
}
