package experiment

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chainperf/chainperf/internal/build"
	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/process"
)

// RunOptions configure a run of a scenario.
type RunOptions struct {
	Exe      string // chainperf binary for embedded nodes
	Labels   map[string]string
	Progress func(Progress)
	// Phase, if set, is told when the run enters a phase ("testnet up", ...).
	Phase func(string)
	// Store, if set, records the run as it goes: a SIGKILL of the harness
	// leaves a readable run that the next start marks interrupted.
	Store *store.Store
	// ReportDir is where the run's files (report, profiles) go: a folder
	// named by the run ID below it.
	ReportDir string
	Log       *slog.Logger
}

// Run runs a scenario from nothing: testnet up, load phases, drain,
// testnet down, criteria. The run record is returned even when an error
// stopped it, with its status saying how it ended.
func Run(ctx context.Context, s *scenario.Scenario, o RunOptions) (*results.Run, error) {
	if o.Phase == nil {
		o.Phase = func(string) {}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	r := &results.Run{
		ID: NewRunID(), Scenario: s.Name, Text: string(s.Text), Labels: o.Labels, Status: results.StatusRunning,
		Start: time.Now().UTC(), Versions: results.ReadVersions(s.Testnet.Binary), Host: results.ReadHost(),
		Config: s.Testnet.Config,
	}
	if o.ReportDir != "" {
		r.ReportDir = filepath.Join(o.ReportDir, r.ID)
	}
	// A build that fails stops the run before anything is stored.
	if b := s.Testnet.Build; b.Dir != "" {
		o.Phase("build " + b.Ref)
		bin, err := build.Build(ctx, build.Spec{Dir: b.Dir, Ref: b.Ref, Package: b.Package, Flags: b.Flags}, build.CacheDir())
		if err != nil {
			r.Status, r.Error = results.StatusFailed, err.Error()
			return r, err
		}
		spec := *s
		spec.Testnet.Binary = bin.Path
		s = &spec
		r.Labels = maps.Clone(r.Labels)
		if r.Labels == nil {
			r.Labels = map[string]string{}
		}
		r.Labels["commit"] = bin.Commit
		r.Versions.Node = fmt.Sprintf("built from %s at %s (package %s)", b.Dir, bin.Commit, b.Package)
	}
	if o.Store != nil {
		if err := o.Store.Begin(ctx, r, harness(r.Host.Hostname)); err != nil {
			return r, err
		}
		phase := o.Phase
		o.Phase = func(p string) {
			phase(p)
			_ = o.Store.Event(context.WithoutCancel(ctx), r.ID, "phase", p)
		}
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
	if o.Store != nil {
		if serr := o.Store.Finish(context.WithoutCancel(ctx), r); serr != nil && err == nil {
			err = serr
		}
	}
	return r, err
}

// harness identifies this process as the writer of a run, so that
// Recover can tell a live run from one whose harness died.
func harness(host string) store.Owner {
	pid := os.Getpid()
	start, _ := process.StartTime(pid)
	return store.Owner{PID: pid, Start: start, Host: host}
}

// Recover marks runs whose harness died (SIGKILL, crash, power loss) as
// interrupted, keeping what they had recorded.
func Recover(ctx context.Context, st *store.Store) ([]string, error) {
	host := results.ReadHost().Hostname
	running, err := st.Running(ctx, host)
	if err != nil {
		return nil, err
	}
	var ids []string
	for id, o := range running {
		if o.PID == os.Getpid() || process.Alive(o.PID, o.Start) {
			continue
		}
		if err := st.MarkInterrupted(ctx, id, fmt.Sprintf("harness pid %d ended before the run did", o.PID)); err != nil {
			return ids, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func run(ctx context.Context, s *scenario.Scenario, o RunOptions, r *results.Run) error {
	o.Phase("testnet up")
	rotating := 0
	if s.Experiment.Kind.Has("rotate") {
		rotating = s.Experiment.Rotations
	}
	table, err := s.LatencyTable()
	if err != nil {
		return err
	}
	net, err := Up(ctx, s.Testnet, UpOptions{Exe: o.Exe, Log: o.Log, Rotating: rotating, Table: table})
	if err != nil {
		return err
	}
	r.WAN = net.WAN
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
	var pools mempools
	stopWatch := watchNodes(ctx, t, net.Provider.PID, s.Observe, o.Store, r.ID, pools.tap)
	defer stopWatch()
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
	var cw *cosmos.Workload
	if net.Chain != nil {
		if cw, err = cosmosWorkload(ctx, s, net, targets, o.Log); err != nil {
			return err
		}
		r.Versions.Node = net.Chain.Binary
		r.Cosmos = &results.Cosmos{Binary: net.Chain.Binary, Wallets: net.Chain.Funding.Wallets, GenesisBytes: net.Chain.Funding.Bytes,
			GenesisSecs: net.Chain.GenesisTime.Seconds(), Workload: cw.String()}
	}
	plans := planPhases(s)
	for i, plan := range plans {
		if i > 0 && plan.pause > 0 {
			o.Phase(fmt.Sprintf("pause %s", plan.pause))
			if !sleepUntil(ctx, time.Now().Add(plan.pause)) {
				return ctx.Err()
			}
		}
		o.Phase(plan.name)
		phase := len(r.Phases)
		var onBlock func(observe.Block)
		if o.Store != nil {
			onBlock = func(b observe.Block) { _ = o.Store.Block(context.WithoutCancel(ctx), r.ID, phase, b) }
		}
		phaseStart := time.Now()
		var profiles func() []observe.Profile
		if len(s.Observe.Profiles) > 0 && r.ReportDir != "" {
			profiles = captureProfiles(ctx, t, phaseStart, s.Observe.Profiles, r.ReportDir, o.Store, r.ID)
		}
		var eventsMu sync.Mutex
		event := func(kind, detail string) {
			eventsMu.Lock()
			defer eventsMu.Unlock()
			r.Events = append(r.Events, results.Event{At: time.Now().UTC(), Kind: kind, Detail: detail})
			if o.Store != nil {
				_ = o.Store.Event(context.WithoutCancel(ctx), r.ID, kind, detail)
			}
		}
		endPerturb := perturb(ctx, net, phaseStart, s.Perturbations, event)
		rotations := make(chan []results.Rotation, 1)
		if plan.kind == "rotate" {
			go func() {
				rotations <- rotate(ctx, net, phaseStart, plan.load.Length(), s.Experiment.CatchupTimeout.D(), event)
			}()
		}
		var progress func(Progress)
		if o.Progress != nil {
			progress = func(p Progress) {
				p.Name, p.MempoolMax = plan.name, pools.max()
				o.Progress(p)
			}
		}
		do := DriveOptions{
			OnBlock: onBlock,
			RunID:   fmt.Sprintf("%s.%d", r.ID, i), Targets: targets, Follow: follow, Load: plan.load, Workload: s.Workload,
			Warmup: plan.warmup, Cooldown: plan.cooldown, Drain: s.Experiment.DrainTimeout.D(),
			Progress: progress, Log: o.Log,
		}
		if cw != nil {
			do.Made, do.OnCommit = cw, cw.Committed
		}
		p, err := Drive(ctx, do)
		perr := endPerturb()
		if plan.kind == "rotate" {
			// The rotations may outlast the load; each is bounded by
			// catchup_timeout.
			o.Phase("rotations finishing")
			r.Rotations = <-rotations
		}
		if profiles != nil {
			r.Profiles = append(r.Profiles, profiles()...)
		}
		if p != nil {
			p.Name, p.Kind = plan.name, plan.kind
			r.Phases = append(r.Phases, p)
		}
		for _, n := range t.Nodes {
			if err, exited := net.Provider.Exited(n); exited {
				r.Crashed = append(r.Crashed, fmt.Sprintf("%s (%v)", n.Name, err))
			}
		}
		if err == nil {
			err = perr
		}
		if err != nil {
			return err
		}
		if len(r.Crashed) > 0 {
			break
		}
	}
	for i, plan := range plans {
		if i >= len(r.Phases) {
			break
		}
		if plan.kind == "find-max" {
			pid := s.Load.PID
			r.FindMax = results.FindMaxOf(r.Phases[i], pid.Hold, pid.Target.D(), pid.MaxRate)
		}
	}
	if cw != nil && len(r.Crashed) == 0 {
		o.Phase("balance check")
		b, err := cw.Verify(ctx, follow, s.Testnet.Cosmos.Bech32Prefix, s.Experiment.DrainTimeout.D())
		if err != nil {
			return fmt.Errorf("balance check: %w", err)
		}
		r.Cosmos.Balances, r.Cosmos.Stats = b, cw.Stats()
		o.Log.Info("balance check", "result", b.String())
	}
	r.Steady = results.SteadyOf(r.Phases)
	r.Faults = results.Effects(results.FaultsOf(r.Events), r.Phases)
	if s.Experiment.Kind.Has("sweep") {
		r.Sweep = results.Saturation(r.Phases, s.Experiment.SaturationShare, s.Experiment.LatencyBlowup)
	}
	return nil
}

// cosmosWorkload makes the run's Cosmos workload over the funded wallets:
// one for all phases, since sequences carry over.
func cosmosWorkload(ctx context.Context, s *scenario.Scenario, net *Net, targets []string, log *slog.Logger) (*cosmos.Workload, error) {
	w, cs := s.Workload, s.Testnet.Cosmos
	wallets := net.Chain.Wallets
	if w.Accounts > 0 {
		wallets = wallets[:w.Accounts]
	}
	pick := func(seed uint64) (load.Selector, error) {
		if w.Selection == "zipf" {
			return load.NewZipf(len(wallets), w.ZipfShift, w.ZipfExponent, seed)
		}
		return load.Uniform{N: len(wallets), Seed: seed}, nil
	}
	senders, err := pick(w.Seed)
	if err != nil {
		return nil, err
	}
	receivers, err := pick(w.Seed ^ 0x9e3779b97f4a7c15)
	if err != nil {
		return nil, err
	}
	chainID := net.Testnet.ChainID
	if w.ChainID != "" {
		chainID = w.ChainID
	}
	fee := uint64(w.Fee)
	if w.Fee < 0 {
		fee = uint64(math.Ceil(float64(w.GasLimit) * cs.GasPrice))
	}
	cw, err := cosmos.NewWorkload(cosmos.WorkloadConfig{
		Kind: w.Kind, Live: w.Mode == "live", ChainID: chainID, Denom: cs.Denom,
		Amount: uint64(w.Amount), Outputs: w.Outputs, GasLimit: uint64(w.GasLimit), Fee: fee, Funded: uint64(cs.WalletBalance),
		Senders: senders, Receivers: receivers, Targets: len(targets), RPCs: targets, CacheDir: w.CacheDir,
		GasPrice: cs.GasPrice, FeeFromGas: w.Fee < 0,
		Logf: func(f string, a ...any) { log.Info(fmt.Sprintf(f, a...)) },
	}, wallets)
	if err != nil || w.GasLimit > 0 {
		return cw, err
	}
	used, err := cw.SimulateGas(ctx)
	if err != nil {
		return nil, fmt.Errorf("workload.gas_limit = 0 asks for a simulation, which failed: %w", err)
	}
	log.Info("simulated gas", "used", used, "workload", cw.String())
	return cw, nil
}

// A phasePlan is one load phase of an experiment.
type phasePlan struct {
	name             string
	load             scenario.Load
	warmup, cooldown time.Duration
	kind             string        // steady, sweep, find-max, rotate
	pause            time.Duration // before it, after the previous phase drained
}

// planPhases lists an experiment's load phases, kind after kind: steady
// repeats; the cells of a sweep grid (c connections x r tx/s each, the
// whole cell measured, as CometBFT's QA does); one find-max phase (the pid
// model, its search left out); one rotate phase (the scenario's load while
// nodes rotate).
func planPhases(s *scenario.Scenario) []phasePlan {
	e := s.Experiment
	var out []phasePlan
	for _, kind := range e.Kind {
		switch kind {
		case "sweep":
			for _, c := range e.Connections {
				for _, rate := range e.Rates {
					l := s.Load
					l.Model, l.Connections, l.Rate, l.Duration = "connections", c, rate, e.CellDuration
					out = append(out, phasePlan{name: fmt.Sprintf("sweep c=%d r=%g", c, rate), kind: kind, load: l, pause: e.Pause.D()})
				}
			}
		case "steady":
			for i := 0; i < e.Repeats; i++ {
				out = append(out, phasePlan{name: fmt.Sprintf("steady %d/%d", i+1, e.Repeats), kind: kind, load: s.Load,
					warmup: e.Warmup.D(), cooldown: e.Cooldown.D(), pause: e.Pause.D()})
			}
		case "find-max":
			l := s.Load
			l.Model, l.Duration = "pid", e.FindMaxDuration
			out = append(out, phasePlan{name: "find-max", kind: kind, load: l, warmup: e.FindMaxSettle.D(), cooldown: e.Cooldown.D(),
				pause: e.Pause.D()})
		case "rotate":
			out = append(out, phasePlan{name: "rotate", kind: kind, load: s.Load, warmup: e.Warmup.D(), cooldown: e.Cooldown.D(),
				pause: e.Pause.D()})
		}
	}
	return out
}
