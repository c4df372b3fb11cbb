package experiment

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/node"
	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/live"
	"github.com/chainperf/chainperf/internal/testnet/providers"
	"github.com/chainperf/chainperf/internal/why"
)

// RunOptions configure a run of a scenario.
type RunOptions struct {
	Exe    string // chainperf binary for embedded nodes
	Labels map[string]string
	// Trial, if set, places the run in an interleaved comparison.
	Trial    *results.Trial
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
	// Provider, if set, replaces the scenario's provider (tests run
	// experiments on an in-memory twin).
	Provider live.NewProvider
	// NoFollow runs without reading blocks (a sink, or nodes whose blocks
	// cannot be read): no fates past the send, no wait for a height.
	NoFollow bool
}

// Check refuses what a valid scenario still cannot do here: faults its
// provider cannot do (each with its file:line and the provider that can).
func Check(s *scenario.Scenario) error { return providers.Check(s) }

// ProfilingFor is the nodes' profiling rates the scenario's profiles
// need: mutex and block profiles are empty unless the runtime samples.
func ProfilingFor(o scenario.Observe) node.Profiling {
	var p node.Profiling
	kinds := slices.Clone(o.WindowProfiles)
	for _, pr := range o.Profiles {
		kinds = append(kinds, pr.Kind)
	}
	for _, k := range kinds {
		switch k {
		case "mutex":
			p.MutexFraction = 5 // one in five contention events
		case "block":
			p.BlockRate = 10000 // one event per 10 µs blocked
		}
	}
	return p
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
		Record: results.Record{ID: NewRunID(), Scenario: s.Name, Text: scenario.Redact(string(s.Text)), Labels: o.Labels, Trial: o.Trial, Status: results.StatusRunning,
			Start: time.Now().UTC()},
		Setup: results.Setup{Versions: results.ReadVersions(s.Testnet.Binary), Host: results.ReadHost(), Config: s.Testnet.Config,
			Genesis: s.Testnet.Genesis, App: s.Testnet.App},
	}
	if o.ReportDir != "" {
		// Absolute: the stored record is read from other folders (the
		// dashboard links the report files).
		dir := o.ReportDir
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		r.ReportDir = filepath.Join(dir, r.ID)
	}
	// A build that fails stops the run before anything is stored.
	s, bin, err := ResolveNode(ctx, s, o.Phase)
	if err != nil {
		r.Status, r.Error = results.StatusFailed, err.Error()
		return r, err
	}
	if bin != nil {
		r.Labels = maps.Clone(r.Labels)
		if r.Labels == nil {
			r.Labels = map[string]string{}
		}
		maps.Copy(r.Labels, bin.Labels) // what was built, over what a user wrote
		r.Versions.Node = bin.Describe
	}
	if err := Check(s); err != nil {
		r.Status, r.Error = results.StatusFailed, err.Error()
		return r, err
	}
	rec := newRecorder(ctx, o.Store, r.ID, o.Log)
	if o.Store != nil {
		if err := o.Store.Begin(ctx, r, harness(r.Host.Hostname)); err != nil {
			return r, err
		}
		phase := o.Phase
		o.Phase = func(p string) {
			phase(p)
			rec.storeOnly("phase", p)
		}
	}
	err = run(ctx, s, o, r, rec)
	rec.into(r)
	r.End = time.Now().UTC()
	if n, first := rec.storeErrors(); err == nil && n > 0 {
		// What was lost cannot be judged: a full disk is not a PASS.
		err = fmt.Errorf("%d writes to the results database failed (first: %v): the stored run is incomplete", n, first)
		if store.Full(first) {
			err = fmt.Errorf("the results database's disk filled during the run: %w; free space and run again", err)
		}
	}
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
		if serr := o.Store.Finish(context.WithoutCancel(ctx), r); serr != nil {
			err = &NotStored{Err: serr, Run: err}
		}
	}
	return r, err
}

// NotStored is a run whose end the results database could not record:
// the database still holds it as running (or not at all), so no one may
// be told it is stored.
type NotStored struct {
	Err error // the store's
	Run error // the run's own, if any
}

func (e *NotStored) Error() string {
	msg := fmt.Sprintf("the results database could not record the run's end: %v", e.Err)
	if e.Run != nil {
		msg += "; the run: " + e.Run.Error()
	}
	return msg
}

func (e *NotStored) Unwrap() []error { return []error{e.Err, e.Run} }

// harness identifies this process as the writer of a run, so that
// Recover can tell a live run from one whose harness died.
func harness(host string) store.Owner {
	pid, start := live.Harness()
	return store.Owner{PID: pid, Start: start, Host: host, Boot: BootID()}
}

// BootID is the kernel's ID of this boot ("" when it cannot be read).
func BootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Recover marks runs whose harness died (SIGKILL, crash, power loss) as
// interrupted, keeping what they had recorded.
func Recover(ctx context.Context, st *store.Store) ([]string, error) {
	host := results.ReadHost().Hostname
	running, err := st.Running(ctx, host)
	if err != nil {
		return nil, err
	}
	boot := BootID()
	var ids []string
	for id, o := range running {
		why := fmt.Sprintf("harness pid %d ended before the run did", o.PID)
		switch {
		case o.Boot != "" && boot != "" && o.Boot != boot:
			// The machine restarted: its PID and start time may now be
			// another process's.
			why = fmt.Sprintf("the machine restarted during the run (harness pid %d, boot %s)", o.PID, o.Boot)
		case o.PID == os.Getpid() || live.Alive(o.PID, o.Start):
			continue
		}
		if err := st.MarkInterrupted(ctx, id, why); err != nil {
			return ids, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func run(ctx context.Context, s *scenario.Scenario, o RunOptions, r *results.Run, rec *recorder) error {
	o.Phase("testnet up")
	table, err := s.LatencyTable()
	if err != nil {
		return err
	}
	adapter, finishTraces, err := newAdapter(ctx, s, o, r)
	if err != nil {
		return err
	}
	defer finishTraces() // after teardown: the nodes' last spans come as they stop
	rl, err := newRelay(ctx, s, o, adapter)
	if err != nil {
		return err
	}
	net, err := live.Up(ctx, s.Testnet, live.UpOptions{Exe: o.Exe, Log: o.Log, Rotating: rotatingNodes(s), Table: table, Chain: adapter, Provider: o.Provider,
		Profiling: ProfilingFor(s.Observe)})
	if err != nil {
		return err
	}
	up := time.Now()
	defer teardown(context.WithoutCancel(ctx), o, net, rec, r)
	t := net.Testnet
	recordTestnet(net, r)
	// Blocks are read from validators first, so that reading them does not
	// add to the load on the nodes that take the txs.
	follow := net.RPCs(append(t.ByRole(testnet.RoleValidator), t.ByRole(testnet.RoleFull)...))
	if o.NoFollow {
		follow = nil
	} else if err := firstBlocks(ctx, adapter, net, up); err != nil {
		return err
	}
	defer rl.down(context.WithoutCancel(ctx), o, rec, r)
	if err := rl.up(ctx, net, o); err != nil {
		return err
	}
	defer rl.watch(ctx, s.Observe, rec)()
	readVersions(ctx, net, r, false)
	var pools mempools
	stopWatch := watchNodes(ctx, net, s.Observe, rec, pools.tap)
	defer stopWatch()
	var events *why.Events
	if !o.NoFollow {
		var stopEvents func()
		events, stopEvents = followEvents(ctx, net, s.Observe)
		defer stopEvents()
	}
	targets := net.RPCs(t.RPCNodes())
	made, err := adapter.Workload(ctx, targets, r)
	if err != nil {
		return err
	}
	ph := &phaseRunner{s: s, o: o, r: r, net: net, rec: rec, pools: &pools, targets: targets, follow: follow, made: made, events: events, relay: rl}
	i := 0
	runPlans := func(plans []phasePlan) error {
		for _, plan := range plans {
			if i > 0 && plan.pause > 0 {
				o.Phase(fmt.Sprintf("pause %s", plan.pause))
				if !sleepUntil(ctx, time.Now().Add(plan.pause)) {
					return ctx.Err()
				}
			}
			if err := ph.run(ctx, i, plan); err != nil {
				return err
			}
			i++
			if len(r.Crashed) > 0 {
				return nil
			}
		}
		return nil
	}
	// Kind after kind; a follower's further phases once its own ran.
	for _, k := range s.Experiment.Kind {
		if err := runPlans(kinds[k].phases(s)); err != nil {
			return err
		}
		if f, ok := kinds[k].(follower); ok && len(r.Crashed) == 0 {
			if err := runPlans(f.then(s, phasesOf(r, k))); err != nil {
				return err
			}
		}
		if len(r.Crashed) > 0 {
			break
		}
	}
	finishKinds(s, r)
	rl.finish(ctx, s, r, o, rec)
	defer rl.crashInto(r) // after the chain check, which a relayer's crash does not skip
	readVersions(ctx, net, r, true)
	explain(ctx, o, r, net, events, rec)
	if c, ok := adapter.(chain.Checker); ok && len(r.Crashed) == 0 {
		o.Phase("chain check")
		return c.Finish(ctx, follow, r)
	}
	return nil
}

// recordTestnet records the testnet's nodes, scale and WAN in r.
func recordTestnet(net *live.Net, r *results.Run) {
	t := net.Testnet
	r.WAN, r.Scale = net.WAN(), t.Scale
	if net.Provider.Name() == "process" || net.Provider.Name() == "netns" {
		r.NodeNice = t.NodeNice
	}
	for _, n := range t.Nodes {
		r.Nodes = append(r.Nodes, results.Node{Name: n.Name, Role: string(n.Role), RPC: scenario.Redact(net.Endpoint(n).RPC), Version: t.VersionOf(n)})
	}
	if v, ok := net.Provider.(interface{ Version() string }); ok {
		r.Versions.Node = "external network: " + v.Version()
	}
}

// phaseRunner runs the load phases of one run on its testnet.
type phaseRunner struct {
	s               *scenario.Scenario
	o               RunOptions
	r               *results.Run
	net             *live.Net
	rec             *recorder
	pools           *mempools
	targets, follow []string
	made            load.Workload // the chain's workload for every phase; nil: one from [workload] per phase
	events          *why.Events   // the nodes' consensus events; nil when not followed
	relay           *relay        // the second chain and its relayer; nil without [ibc]
}

// targetNodes names the nodes the load goes to.
func (ph *phaseRunner) targetNodes() []string {
	var out []string
	for _, n := range ph.net.Testnet.Nodes {
		for _, t := range ph.targets {
			if ph.net.Endpoint(n).RPC == t {
				out = append(out, n.Name)
			}
		}
	}
	return out
}

// inNetwork is the URL, as the harness reaches a node's RPC, as the
// nodes' own network reaches it (unchanged when no node has it).
func (ph *phaseRunner) inNetwork(url string) string {
	for _, n := range ph.net.Testnet.Nodes {
		if ph.net.Endpoint(n).RPC == url {
			return n.Endpoint().RPC
		}
	}
	return url
}

// run runs one phase: load (with the perturbations, profiles and the
// kind's companion beside it), drain, and the nodes that crashed.
func (ph *phaseRunner) run(ctx context.Context, i int, plan phasePlan) error {
	o, r, net := ph.o, ph.r, ph.net
	o.Phase(plan.name)
	phase := len(r.Phases)
	var onBlock func(observe.Block)
	if o.Store != nil {
		onBlock = func(b observe.Block) {
			ph.rec.write(func(st *store.Store) error { return st.Block(context.WithoutCancel(ctx), r.ID, phase, b) })
		}
	}
	phaseStart := time.Now()
	var profiles func() []observe.Profile
	if specs := append(slices.Clone(ph.s.Observe.Profiles), windowProfiles(ph.s, net, plan)...); len(specs) > 0 && r.ReportDir != "" {
		profiles = captureProfiles(ctx, net, phaseStart, specs, r.ReportDir, ph.rec)
	}
	endPerturb := perturb(ctx, net, ph.relay, phaseStart, ph.s.Perturbations, ph.rec, wall{})
	var endCompanion func(*results.Run)
	if c, ok := kinds[plan.kind].(companion); ok {
		endCompanion = c.alongside(ctx, &phaseEnv{net: net, s: ph.s, start: phaseStart, rec: ph.rec}, plan)
	}
	var progress func(Progress)
	if o.Progress != nil {
		progress = func(p Progress) {
			p.Name, p.MempoolMax, p.Run, p.Scenario = plan.name, ph.pools.max(), r.ID, ph.s.Name
			o.Progress(p)
		}
	}
	do := DriveOptions{
		OnBlock: onBlock,
		RunID:   fmt.Sprintf("%s.%d", r.ID, i), Targets: ph.targets, Follow: ph.follow, Load: plan.load, Workload: ph.s.Workload,
		Warmup: plan.warmup, Cooldown: plan.cooldown, Drain: ph.s.Experiment.DrainTimeout.D(),
		Progress: progress, Log: o.Log, Made: ph.made, OnProblem: ph.rec.event, InNetwork: ph.inNetwork,
		OnlySender: ph.s.Testnet.Provider != scenario.ProviderExternal,
	}
	if c, ok := ph.made.(chain.Committer); ok {
		do.OnCommit = c.Committed
	}
	if ph.events != nil {
		do.Headers = ph.events.OnHeader
	}
	ph.pools.mark()
	var p *results.Phase
	var err error
	if n := plan.load.Generators; n > 1 {
		if sp, ok := net.Provider.(testnet.LoadSpreader); ok {
			p, err = DriveSpread(ctx, do, n, sp.RunGenerators)
		} else {
			err = fmt.Errorf("load.generators = %d: the %q provider runs no generators", n, net.Provider.Name())
		}
	} else {
		endBack := ph.relay.sendBack(ctx, do)
		p, err = Drive(ctx, do)
		endBack()
	}
	if drops, known := ph.pools.dropped(ph.targetNodes()); p != nil && known {
		lost := results.LostToStops(p.Ledger, p.Start, ph.rec.stoppedAll(ph.targetNodes()))
		p.Unresolved = results.ExplainUnresolved(p.Ledger, drops, results.Left{InMempool: p.InMempool, Stopped: lost, NonceTaken: p.NonceTaken, NonceGap: p.NonceGap})
	}
	perr := endPerturb()
	if endCompanion != nil {
		o.Phase(plan.kind + " finishing")
		endCompanion(r)
	}
	if profiles != nil {
		r.Profiles = append(r.Profiles, profiles()...)
	}
	if p != nil {
		p.Name, p.Kind = plan.name, plan.kind
		r.Phases = append(r.Phases, p)
	}
	for _, n := range net.Testnet.Nodes {
		if err, exited := net.Exited(n); exited {
			r.Crashed = append(r.Crashed, fmt.Sprintf("%s (%v)", n.Name, err))
		}
	}
	if err == nil {
		err = perr
	}
	return err
}

// firstBlocks waits for every node's first blocks (the nodes came up at
// up), then lets a chain that keeps its start state save it or say it
// started from one. Nodes on a saved state are waited for three blocks
// more: the first after their start carries the saved block's time, which
// the run must not measure.
func firstBlocks(ctx context.Context, adapter chain.Adapter, net *live.Net, up time.Time) error {
	if err := net.WaitHeight(ctx, 2, net.StartStall()); err != nil {
		return err
	}
	built := time.Since(up)
	k, ok := adapter.(chain.Keeper)
	if !ok {
		return nil
	}
	nodes := net.Testnet.Standing()
	st, err := nodehttp.ReadStatus(ctx, net.Endpoint(nodes[0]).RPC)
	if err != nil {
		return fmt.Errorf("read %s's height before keeping the start state: %w", nodes[0].Name, err)
	}
	restarted, err := k.KeepState(ctx, net.Testnet, net.Provider, st.Height, built)
	if err != nil || !restarted {
		return err
	}
	return net.WaitHeight(ctx, st.Height+3, net.StartStall())
}
