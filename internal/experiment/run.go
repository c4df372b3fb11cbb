package experiment

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// RunOptions configure a run of a scenario.
type RunOptions struct {
	Exe      string // chainperf binary for embedded nodes
	Labels   map[string]string
	Progress func(Progress)
	// Phase, if set, is told when the run enters a phase ("testnet up", ...).
	Phase func(string)
	Log   *slog.Logger
}

// Run runs a scenario from nothing: testnet up, load phases, drain,
// testnet down, criteria. The run record is returned even when an error
// stopped it, with its status saying how it ended.
func Run(ctx context.Context, s *scenario.Scenario, o RunOptions) (*results.Run, error) {
	if o.Phase == nil {
		o.Phase = func(string) {}
	}
	r := &results.Run{
		ID: NewRunID(), Scenario: s.Name, Text: string(s.Text), Labels: o.Labels, Status: results.StatusRunning,
		Start: time.Now().UTC(), Versions: results.ReadVersions(s.Testnet.Binary), Host: results.ReadHost(),
		Config: s.Testnet.Config,
	}
	err := run(ctx, s, o, r)
	r.End = time.Now().UTC()
	switch {
	case err == nil:
		r.Status = results.StatusComplete
		results.Evaluate(r, s.Criteria)
	case ctx.Err() != nil:
		r.Status, r.Error = results.StatusInterrupted, err.Error()
	default:
		r.Status, r.Error = results.StatusFailed, err.Error()
	}
	return r, err
}

func run(ctx context.Context, s *scenario.Scenario, o RunOptions, r *results.Run) error {
	o.Phase("testnet up")
	net, err := Up(ctx, s.Testnet, UpOptions{Exe: o.Exe, Log: o.Log})
	if err != nil {
		return err
	}
	defer func() {
		o.Phase("testnet down")
		net.Down(context.WithoutCancel(ctx))
	}()
	t := net.Testnet
	for _, n := range t.Nodes {
		r.Nodes = append(r.Nodes, results.Node{Name: n.Name, Role: string(n.Role), RPC: n.Endpoint().RPC})
	}
	if err := net.WaitHeight(ctx, 2, 60*time.Second); err != nil {
		return err
	}
	var targets, follow []string
	for _, n := range t.RPCNodes() {
		targets = append(targets, n.Endpoint().RPC)
	}
	// Blocks are read from validators first, so that reading them does not
	// add to the load on the nodes that take the txs.
	for _, role := range []testnet.Role{testnet.RoleValidator, testnet.RoleFull} {
		for _, n := range t.ByRole(role) {
			follow = append(follow, n.Endpoint().RPC)
		}
	}
	for i := 0; i < s.Experiment.Repeats; i++ {
		o.Phase(fmt.Sprintf("steady %d/%d", i+1, s.Experiment.Repeats))
		p, err := Drive(ctx, DriveOptions{
			RunID: fmt.Sprintf("%s.%d", r.ID, i), Targets: targets, Follow: follow, Load: s.Load, Workload: s.Workload,
			Warmup: s.Experiment.Warmup.D(), Cooldown: s.Experiment.Cooldown.D(), Drain: s.Experiment.DrainTimeout.D(),
			Progress: o.Progress, Log: o.Log,
		})
		if p != nil {
			r.Phases = append(r.Phases, p)
		}
		for _, n := range t.Nodes {
			if err, exited := net.Provider.Exited(n); exited {
				r.Crashed = append(r.Crashed, fmt.Sprintf("%s (%v)", n.Name, err))
			}
		}
		if err != nil {
			return err
		}
		if len(r.Crashed) > 0 {
			break
		}
	}
	return nil
}
