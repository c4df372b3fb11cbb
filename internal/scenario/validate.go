package scenario

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/latency"
	"github.com/chainperf/chainperf/internal/suggest"
)

// Known values of the enumerated keys.
var (
	Providers = []string{"process", "netns", ProviderKubernetes, ProviderExternal}
	// KvstoreKinds are the workload kinds of chainperf's own node; each
	// chain adds its own (WorkloadKinds).
	KvstoreKinds    = []string{"kvstore", "loadtime", "replay"}
	Selections      = []string{"uniform", "zipf"}
	RateModels      = []string{"constant", "connections", "steps", "ramp", "max", "users", "pid"}
	Methods         = []string{"sync", "async", "commit"}
	ExperimentKinds = []string{KindSteady, KindSweep, KindFindMax, KindRotate, KindQA}
	// PIDHolds are what the pid rate model can hold at its target.
	PIDHolds = []string{"latency", "block_interval"}
	// ProfileKinds are the pprof profiles a node serves.
	ProfileKinds = []string{"heap", "allocs", "cpu", "goroutine", "mutex", "block"}
	// PerturbationKinds are every fault kind; which of them a testnet can
	// do depends on its provider (testnet/providers checks that).
	PerturbationKinds = []string{"kill", "restart", "pause", "disconnect", "partition", "latency", "upgrade"}
)

// ProviderExternal is the provider of a network that already runs.
const ProviderExternal = "external"

// ProviderKubernetes runs the nodes as pods of a Kubernetes cluster.
const ProviderKubernetes = "kubernetes"

// MaxClusterNodes bounds a testnet on a cluster (not one machine).
const MaxClusterNodes = 1000

// MaxNodes bounds a testnet on one machine; past it ports and memory run out.
const MaxNodes = 200

// A Checker collects a scenario's problems, each at the file:line of the
// key it is about; a chain's checks (ChainSection) are given one.
type Checker struct {
	file  string
	lines lines
	errs  []error
}

// Fail says what is wrong with the value at path ("testnet.cosmos.seed").
func (c *Checker) Fail(path, format string, args ...any) { c.fail(path, format, args...) }

// OneOf fails the value v at path unless it is one of allowed (with the
// closest as a suggestion).
func (c *Checker) OneOf(path, v string, allowed []string) { c.oneOf(path, v, allowed) }

func (c *Checker) fail(path, format string, args ...any) {
	c.errs = append(c.errs, &Error{Pos: c.lines.at(c.file, path), Msg: path + ": " + fmt.Sprintf(format, args...)})
}

func (c *Checker) oneOf(path, v string, allowed []string) {
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	if v == "" {
		c.fail(path, "is empty: name one of %s", strings.Join(allowed, ", "))
		return
	}
	msg := fmt.Sprintf("%q is not one of %s", v, strings.Join(allowed, ", "))
	if s := suggest.Closest(v, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	c.fail(path, "%s", msg)
}

// validate checks every section; all problems are returned.
func (s *Scenario) validate(l lines) []error {
	c := &Checker{file: s.File, lines: l}
	s.validateTestnet(c)
	s.validateWorkload(c)
	s.validateLoad(c)
	s.validateExperiment(c)
	s.validateCriteria(c)
	s.validateObserve(c)
	s.validatePerturbations(c)
	s.validateLifecycle(c)
	s.validateStateSync(c)
	s.validateNumbers(c)
	s.validateIBC(c)
	if s.Report.Dir == "" {
		c.fail("report.dir", "cannot be empty")
	}
	return c.errs
}

// validateExperiment checks [experiment]: kinds and each kind's keys.
func (s *Scenario) validateExperiment(c *Checker) {
	e := &s.Experiment
	if len(e.Kind) == 0 {
		c.fail("experiment.kind", "name at least one of %s", strings.Join(ExperimentKinds, ", "))
	}
	seenKind := map[string]bool{}
	for _, k := range e.Kind {
		c.oneOf("experiment.kind", k, ExperimentKinds)
		if seenKind[k] {
			c.fail("experiment.kind", "%q is named twice (use repeats for steady)", k)
		}
		seenKind[k] = true
	}
	if e.Repeats < 1 {
		c.fail("experiment.repeats", "%d: must be at least 1", e.Repeats)
	}
	if e.Kind.Has(KindFindMax) {
		if e.FindMaxDuration < Duration(10*time.Second) {
			c.fail("experiment.find_max_duration", "%s: find-max needs at least 10s", e.FindMaxDuration.D())
		}
		if e.FindMaxSettle < 0 || e.FindMaxSettle+e.Cooldown >= e.FindMaxDuration {
			c.fail("experiment.find_max_settle", "settle %s + cooldown %s leave nothing of find_max_duration %s to measure",
				e.FindMaxSettle.D(), e.Cooldown.D(), e.FindMaxDuration.D())
		}
		if s.Load.Model != "pid" {
			s.checkPID(c, "load.pid")
		}
	}
	if e.Kind.Has(KindRotate) {
		if e.Rotations < 1 || e.Rotations > 100 {
			c.fail("experiment.rotations", "%d: must be from 1 to 100", e.Rotations)
		}
		if e.CatchupTimeout < Duration(time.Second) {
			c.fail("experiment.catchup_timeout", "%s: must be at least 1s", e.CatchupTimeout.D())
		}
	}
	if e.Kind.Has(KindQA) {
		s.validateQA(c)
	}
	if e.Kind.Has(KindSweep) {
		checkGrid(c, "experiment.", "a sweep", e.Connections, e.Rates)
		if e.CellDuration < Duration(2*time.Second) {
			c.fail("experiment.cell_duration", "%s: a cell lasts at least 2s (expected committed is c*r*(T-1))", e.CellDuration.D())
		}
		if e.Pause < 0 {
			c.fail("experiment.pause", "cannot be negative")
		}
		if !(e.SaturationShare > 0 && e.SaturationShare <= 1) {
			c.fail("experiment.saturation_share", "%g: a share is above 0 and at most 1", e.SaturationShare)
		}
		if !(e.LatencyBlowup > 1) {
			c.fail("experiment.latency_blowup", "%g: must be above 1", e.LatencyBlowup)
		}
	}
	if total := s.Load.Length(); total > 0 && e.Warmup+e.Cooldown >= Duration(total) {
		c.fail("experiment.warmup", "warmup %s + cooldown %s leave nothing of the %s load phase to measure",
			e.Warmup.D(), e.Cooldown.D(), total)
	}

}

// validateCriteria checks [criteria].
func (s *Scenario) validateCriteria(c *Checker) {
	cr := &s.Criteria
	if !(cr.MinCommittedTPS >= 0) || math.IsInf(cr.MinCommittedTPS, 0) {
		c.fail("criteria.min_committed_tps", "%g: a finite rate, 0 or more", cr.MinCommittedTPS)
	}
	if cr.MaxP99Latency < 0 {
		c.fail("criteria.max_p99_latency", "cannot be negative")
	}
	if !(cr.MaxRejectedShare >= 0 && cr.MaxRejectedShare <= 1) {
		c.fail("criteria.max_rejected_share", "%g: a share is from 0 to 1", cr.MaxRejectedShare)
	}
	if x := cr.MaxUnresolvedShare; math.IsNaN(x) || (x < 0 && x != -1) || x > 1 {
		c.fail("criteria.max_unresolved_share", "%g: a share from 0 to 1, or -1 for no criterion", x)
	}
	if cr.MaxUnresolved < -1 {
		c.fail("criteria.max_unresolved", "%d: use -1 for no criterion or a count", cr.MaxUnresolved)
	}
	seen := map[string]bool{}
	for i, f := range cr.Figures {
		path := fmt.Sprintf("criteria.figure[%d]", i)
		switch {
		case strings.TrimSpace(f.Name) == "":
			c.fail(path+".name", "is empty: name a figure of the run's findings, e.g. \"msg/s send\" (`chainperf runs show` lists them)")
		case seen[f.Name]:
			c.fail(path+".name", "%q is bounded twice: give min and max in one [[criteria.figure]]", f.Name)
		}
		seen[f.Name] = true
		if f.Min == nil && f.Max == nil {
			c.fail(path, "%q has no bound: set min, max or both", f.Name)
		}
		for _, b := range []struct {
			key string
			v   *float64
		}{{"min", f.Min}, {"max", f.Max}} {
			if b.v != nil && (math.IsNaN(*b.v) || math.IsInf(*b.v, 0)) {
				c.fail(path+"."+b.key, "%g: a finite number", *b.v)
			}
		}
		if f.Min != nil && f.Max != nil && *f.Min > *f.Max {
			c.fail(path, "min %g is above max %g: no value could pass", *f.Min, *f.Max)
		}
	}
}

func (s *Scenario) validateLoad(c *Checker) {
	l := &s.Load
	c.oneOf("load.model", l.Model, RateModels)
	c.oneOf("load.method", l.Method, Methods)
	if l.Batch < 1 || l.Batch > 10000 {
		c.fail("load.batch", "%d: must be from 1 to 10000", l.Batch)
	}
	if l.MaxInFlight < 1 || l.MaxInFlight > 100000 {
		c.fail("load.max_in_flight", "%d: must be from 1 to 100000", l.MaxInFlight)
	}
	// 100 million txs without a fate is ~13 GB of ledger: more than a
	// harness should hold.
	if l.MaxPending < 1000 || l.MaxPending > 100_000_000 {
		c.fail("load.max_pending", "%d: must be from 1000 to 100000000 (about 130 B a tx)", l.MaxPending)
	}
	if e := l.SendEvery.D(); e < 0 || e > time.Minute {
		c.fail("load.send_every", "%s: must be from 0 (every tx at its own time) to 1m", e)
	} else if e > 0 && !slices.Contains([]string{"constant", "connections", "ramp", "steps"}, l.Model) {
		c.fail("load.send_every", "the %s model has no schedule to send in bursts (constant, connections, ramp or steps)", l.Model)
	}
	if l.Generators < 1 || l.Generators > 256 {
		c.fail("load.generators", "%d: must be from 1 to 256", l.Generators)
	} else if l.Generators > 1 {
		switch {
		case s.Testnet.Provider != ProviderKubernetes:
			c.fail("load.generators", "%d generators are pods: set [testnet] provider = %q (one machine sends from chainperf itself)", l.Generators, ProviderKubernetes)
		case !slices.Contains([]string{"constant", "connections", "ramp", "steps"}, l.Model):
			c.fail("load.generators", "%d generators split a schedule: the %q model has none to split (use constant, connections, ramp or steps)", l.Generators, l.Model)
		case s.Workload.Kind != "kvstore":
			c.fail("load.generators", "%d generators send kvstore txs only (each makes its own; %q txs carry state one sender keeps)", l.Generators, s.Workload.Kind)
		case s.Experiment.Kind.Has(KindFindMax):
			c.fail("load.generators", "%d generators: find-max steers one generator by feedback; drop it from experiment.kind", l.Generators)
		}
	}
	if l.Model != "steps" && l.Duration <= 0 {
		c.fail("load.duration", "%s: must be positive", l.Duration.D())
	}
	switch l.Model {
	case "constant":
		if l.Rate <= 0 {
			c.fail("load.rate", "%g: must be positive (tx/s)", l.Rate)
		}
	case "connections":
		if l.Rate <= 0 {
			c.fail("load.rate", "%g: must be positive (tx/s per connection)", l.Rate)
		}
		if l.Connections < 1 {
			c.fail("load.connections", "%d: must be at least 1", l.Connections)
		}
	case "ramp":
		if l.From < 0 || l.To < 0 || l.From == 0 && l.To == 0 {
			c.fail("load.from", "ramp from %g to %g: rates cannot be negative and one must be positive", l.From, l.To)
		}
	case "users":
		if l.Users < 1 || l.Users > 100000 {
			c.fail("load.users", "%d: must be from 1 to 100000", l.Users)
		}
		if l.ThinkTime <= 0 {
			c.fail("load.think_time", "%s: must be positive", l.ThinkTime.D())
		}
	case "pid":
		s.checkPID(c, "load.pid")
	case "steps":
		if len(l.Steps) == 0 {
			c.fail("load.steps", "the steps model needs at least one step")
		}
		for i, st := range l.Steps {
			p := fmt.Sprintf("load.steps[%d]", i)
			if st.Rate < 0 {
				c.fail(p+".rate", "%g: cannot be negative", st.Rate)
			}
			if st.Duration <= 0 {
				c.fail(p+".duration", "%s: must be positive", st.Duration.D())
			}
		}
	}
}

// checkPID checks [load.pid]: for the pid rate model and for find-max.
func (s *Scenario) checkPID(c *Checker, path string) {
	p := s.Load.PID
	c.oneOf(path+".hold", p.Hold, PIDHolds)
	if p.Target <= 0 {
		c.fail(path+".target", "%s: must be positive", p.Target.D())
	}
	if p.Window < 1 {
		c.fail(path+".window", "%d: must be at least 1 block", p.Window)
	}
	if !(p.MinRate > 0) || !(p.MaxRate >= p.MinRate) {
		c.fail(path+".min_rate", "min_rate %g, max_rate %g: need 0 < min_rate <= max_rate", p.MinRate, p.MaxRate)
	}
	if p.StartRate < p.MinRate || p.StartRate > p.MaxRate {
		c.fail(path+".start_rate", "%g: must be within [min_rate, max_rate]", p.StartRate)
	}
	if p.Stall < 0 {
		c.fail(path+".stall", "cannot be negative")
	}
	if p.Kp < 0 || p.Ki < 0 || p.Kd < 0 {
		c.fail(path, "gains kp, ki, kd cannot be negative")
	}
	// Blocks come at least timeout_commit apart even with no load, and a
	// tx waits for at least part of one: neither can be held below it.
	what := "blocks come"
	if p.Hold == "latency" {
		what = "the slowest tx of a block waits"
	}
	tc, src := time.Second, "CometBFT's default"
	if v, ok := s.Testnet.Config["consensus.timeout_commit"].(string); ok {
		if d, err := time.ParseDuration(v); err == nil {
			tc, src = d, "testnet.config"
		}
	}
	if p.Target.D() <= tc {
		c.fail(path+".target", "%s cannot be met: %s at least timeout_commit = %s (%s) even with no load; set a target above it",
			p.Target.D(), what, tc, src)
	}
}

func (s *Scenario) validateObserve(c *Checker) {
	o := &s.Observe
	if o.Interval < Duration(100*time.Millisecond) || o.Interval > Duration(time.Minute) {
		c.fail("observe.interval", "%s: must be from 100ms to 1m", o.Interval.D())
	}
	for i, m := range o.Metrics {
		if m == "" || strings.ContainsAny(m, "{} \t\"") {
			c.fail(fmt.Sprintf("observe.metrics[%d]", i), "%q is not a metric family name", m)
		}
	}
	for i, k := range o.WindowProfiles {
		c.oneOf(fmt.Sprintf("observe.window_profiles[%d]", i), k, ProfileKinds)
		if k == "goroutine" {
			c.fail(fmt.Sprintf("observe.window_profiles[%d]", i), "a goroutine profile is a snapshot, not a window; take it with observe.profiles")
		}
	}
	if o.Traces && s.Testnet.Provider != "process" {
		c.fail("observe.traces", "the nodes send their spans to chainperf on loopback: the process provider only, not %q", s.Testnet.Provider)
	}
	nodes := s.Testnet.NodeNames()
	for i, p := range o.Profiles {
		path := fmt.Sprintf("observe.profiles[%d]", i)
		c.oneOf(path+".node", p.Node, nodes)
		c.oneOf(path+".kind", p.Kind, ProfileKinds)
		if p.At < 0 {
			c.fail(path+".at", "cannot be negative")
		}
		if total, phase := s.ShortestPhase(); total > 0 && p.At.D() >= total {
			c.fail(path+".at", "%s is past the end of the %s %s phase (profiles are taken in every phase)", p.At.D(), total, phase)
		}
		if p.Kind == "cpu" && (p.Seconds < 1 || p.Seconds > 300) {
			c.fail(path+".seconds", "%d: a cpu profile lasts 1 to 300 seconds", p.Seconds)
		}
		if p.Kind != "cpu" && p.Seconds != 0 {
			c.fail(path+".seconds", "only cpu profiles last some seconds; %s is a snapshot", p.Kind)
		}
	}
}

func (s *Scenario) validatePerturbations(c *Checker) {
	nodes := s.Testnet.NodeNames()
	if s.IBC.Counterparty != "" {
		nodes = append(nodes, RelayerNode)
	}
	total, phase := s.ShortestPhase()
	for i, p := range s.Perturbations {
		path := fmt.Sprintf("perturbation[%d]", i)
		if p.Kind == "latency" && (s.Testnet.Provider == "netns" || s.Testnet.Provider == ProviderKubernetes) && !s.Testnet.EmulatedWAN() {
			c.fail(path+".kind", "a latency change scales the emulated WAN's delays, and there is none: set [testnet] zones or uniform_delay")
			continue
		}
		c.oneOf(path+".kind", p.Kind, PerturbationKinds)
		if p.Kind == "partition" {
			s.checkGroups(c, path, p.Groups, nodes)
			if len(p.Nodes) > 0 {
				c.fail(path+".nodes", "a partition names its sides in groups, not nodes")
			}
		} else if len(p.Groups) > 0 {
			c.fail(path+".groups", "only a partition has groups")
		}
		if p.Kind == "latency" && (p.Scale < 0 || p.Scale > 100) {
			c.fail(path+".scale", "%g: a factor from 0 (no delay) to 100", p.Scale)
		}
		if p.Kind != "latency" && p.Scale != 0 {
			c.fail(path+".scale", "only a latency perturbation has a scale")
		}
		if p.Kind == "upgrade" {
			s.validateUpgrade(c, path, p, Duration(total), phase)
		} else if p.To != "" || p.Gap != 0 || p.Height != 0 || len(p.Replace) > 0 {
			c.fail(path, "only an upgrade has to, gap, height and replace")
		}
		if len(p.Nodes) == 0 && p.Kind != "partition" && p.Kind != "latency" && p.Kind != "upgrade" {
			c.fail(path+".nodes", "name at least one node")
		}
		if slices.Contains(p.Nodes, RelayerNode) && s.IBC.Counterparty != "" && (len(p.Nodes) > 1 || p.Kind != "kill" && p.Kind != "pause") {
			c.fail(path+".nodes", "the relayer is killed or paused alone (kind \"kill\" or \"pause\", nodes = [\"relayer\"])")
		}
		seen := map[string]bool{}
		for _, n := range p.Nodes {
			c.oneOf(path+".nodes", n, nodes)
			if seen[n] {
				c.fail(path+".nodes", "%q is named twice", n)
			}
			seen[n] = true
		}
		if p.At < 0 || p.Duration < 0 {
			c.fail(path, "at and duration cannot be negative")
		}
		if p.Kind != "kill" && p.Kind != "upgrade" && p.Kind != "" && p.Duration <= 0 {
			c.fail(path+".duration", "a %s lasts some time: give a positive duration", p.Kind)
		}
		if p.Kind != "upgrade" && total > 0 && p.At.D()+p.Duration.D() >= total {
			c.fail(path+".at", "at %s + duration %s ends after the %s %s phase (perturbations happen in every phase)", p.At.D(), p.Duration.D(), total, phase)
		}
	}
}

// LatencyTable returns the zone table the scenario names: the built-in
// one or a CSV file (relative to the scenario file).
func (s *Scenario) LatencyTable() (*latency.Table, error) {
	switch path := s.Testnet.LatencyTable; path {
	case "", "builtin":
		return latency.Builtin(), nil
	default:
		if !filepath.IsAbs(path) && s.File != "" && !strings.HasPrefix(s.File, "<") {
			path = filepath.Join(filepath.Dir(s.File), path)
		}
		return latency.ReadCSV(path)
	}
}

// checkGroups checks a partition's sides: two or more, each with nodes of
// the testnet, none in two groups.
func (s *Scenario) checkGroups(c *Checker, path string, groups [][]string, nodes []string) {
	if len(groups) < 2 {
		c.fail(path+".groups", "a partition needs at least two groups, e.g. [[\"validator0\", \"validator1\"], [\"validator2\", \"validator3\"]]")
	}
	in := map[string]int{}
	for gi, g := range groups {
		if len(g) == 0 {
			c.fail(fmt.Sprintf("%s.groups[%d]", path, gi), "an empty group")
		}
		for _, n := range g {
			c.oneOf(fmt.Sprintf("%s.groups[%d]", path, gi), n, nodes)
			if prev, ok := in[n]; ok {
				c.fail(path+".groups", "%q is in groups %d and %d: groups cannot overlap", n, prev, gi)
			}
			in[n] = gi
		}
	}
}

// ShortestPhase returns the length of the experiment's shortest load
// phase and its kind: perturbations and profiles happen in every phase,
// so they must fit in that one.
func (s *Scenario) ShortestPhase() (time.Duration, string) {
	var best time.Duration
	var kind string
	for _, k := range s.Experiment.Kind {
		d := s.Load.Length()
		switch k {
		case KindSweep:
			d = s.Experiment.CellDuration.D()
		case KindFindMax:
			d = s.Experiment.FindMaxDuration.D()
		case KindQA:
			d = s.Experiment.QA.CellDuration.D()
		}
		if kind == "" || d < best {
			best, kind = d, k
		}
	}
	if kind == "" {
		return s.Load.Length(), "load"
	}
	return best, kind
}

// NodeNames returns the names the testnet's nodes will have.
func (t Testnet) NodeNames() []string {
	if t.Provider == ProviderExternal {
		return t.ExternalNames()
	}
	var out []string
	for _, g := range []struct {
		prefix string
		n      int
	}{{"validator", t.Validators}, {"full", t.FullNodes}, {"seed", t.Seeds}} {
		for i := 0; i < g.n && i < MaxNodes; i++ {
			out = append(out, fmt.Sprintf("%s%d", g.prefix, i))
		}
	}
	return out
}

// ExternalNames are the names of the listed nodes of an external network:
// a node's name, or its role and its index among that role's nodes.
func (t Testnet) ExternalNames() []string {
	out := make([]string, len(t.Nodes))
	count := map[string]int{}
	for i, n := range t.Nodes {
		out[i] = n.Name
		if out[i] == "" {
			out[i] = fmt.Sprintf("%s%d", n.Role, count[n.Role])
		}
		count[n.Role]++
	}
	return out
}

// MaxWallets bounds the wallets funded in genesis.
const MaxWallets = 10_000_000

var denomRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$`)

// IsDenom says whether d is a coin denom: 3 to 128 characters, a letter
// first, then letters, digits, '/', ':', '.', '_' or '-'.
func IsDenom(d string) bool { return denomRE.MatchString(d) }

// validateQA checks [experiment.qa]: a grid of cells long enough to count
// after their warm-up, a share from 0 to 1, a steady run of 0 (none) or
// at least 10s.
func (s *Scenario) validateQA(c *Checker) {
	q := &s.Experiment.QA
	checkGrid(c, "experiment.qa.", "a QA grid", q.Connections, q.Rates)
	if s.Experiment.Pause < 0 {
		c.fail("experiment.pause", "cannot be negative")
	}
	if q.Warmup < 0 {
		c.fail("experiment.qa.warmup", "cannot be negative")
	}
	if q.CellDuration < Duration(2*time.Second) || q.CellDuration <= q.Warmup {
		c.fail("experiment.qa.cell_duration", "%s: a cell lasts at least 2s and longer than its warm-up %s (expected = c*r*(cell_duration-warmup))",
			q.CellDuration.D(), q.Warmup.D())
	}
	if !(q.SaturationShare > 0 && q.SaturationShare <= 1) {
		c.fail("experiment.qa.saturation_share", "%g: a share of the expected count, above 0 and at most 1", q.SaturationShare)
	}
	if q.SteadyDuration != 0 && q.SteadyDuration < Duration(10*time.Second) {
		c.fail("experiment.qa.steady_duration", "%s: 0 (no steady run) or at least 10s", q.SteadyDuration.D())
	}
}

// checkGrid checks the connections x rates of a grid whose keys start
// with prefix.
func checkGrid(c *Checker, prefix, what string, conns []int, rates []float64) {
	if len(conns) == 0 || len(rates) == 0 {
		c.fail(prefix+"connections", "%s with no cells: give at least one of connections and one of rates", what)
	}
	for i, n := range conns {
		if n < 1 || n > 1000 {
			c.fail(fmt.Sprintf("%sconnections[%d]", prefix, i), "%d: must be from 1 to 1000", n)
		}
	}
	for i, r := range rates {
		if !(r > 0) {
			c.fail(fmt.Sprintf("%srates[%d]", prefix, i), "%g: must be positive (tx/s per connection)", r)
		}
	}
}
