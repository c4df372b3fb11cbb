package scenario

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/cometbft/cometbft/config"

	"github.com/chainperf/chainperf/internal/cometcfg"
	"github.com/chainperf/chainperf/internal/netem"
	"github.com/chainperf/chainperf/internal/suggest"
)

// Known values of the enumerated keys.
var (
	Providers       = []string{"process", "netns"}
	WorkloadKinds   = []string{"kvstore", "cosmos-send", "cosmos-multisend"}
	Chains          = []string{"kvstore", "cosmos"}
	CosmosModes     = []string{"pregenerate", "live"}
	Selections      = []string{"uniform", "zipf"}
	RateModels      = []string{"constant", "connections", "steps", "ramp", "max", "users", "pid"}
	Methods         = []string{"sync", "async", "commit"}
	ExperimentKinds = []string{KindSteady, KindSweep, KindFindMax, KindRotate}
	// PIDHolds are what the pid rate model can hold at its target.
	PIDHolds = []string{"latency", "block_interval"}
	// ProfileKinds are the pprof profiles a node serves.
	ProfileKinds = []string{"heap", "allocs", "cpu", "goroutine", "mutex", "block"}
	// PerturbationKinds are every fault kind; which of them a testnet can
	// do depends on its provider (testnet/providers checks that).
	PerturbationKinds = []string{"kill", "restart", "pause", "disconnect", "partition", "latency"}
)

// MaxNodes bounds a testnet on one machine; past it ports and memory run out.
const MaxNodes = 200

type checker struct {
	file  string
	lines lines
	errs  []error
}

func (c *checker) fail(path, format string, args ...any) {
	c.errs = append(c.errs, &Error{Pos: c.lines.at(c.file, path), Msg: path + ": " + fmt.Sprintf(format, args...)})
}

func (c *checker) oneOf(path, v string, allowed []string) {
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	msg := fmt.Sprintf("%q is not one of %s", v, strings.Join(allowed, ", "))
	if s := suggest.Closest(v, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	c.fail(path, "%s", msg)
}

func (s *Scenario) validate(l lines) []error {
	c := &checker{file: s.File, lines: l}
	t := &s.Testnet
	c.oneOf("testnet.provider", t.Provider, Providers)
	if t.Provider == "netns" {
		if p, err := netip.ParsePrefix(t.Subnet); err != nil || !p.Addr().Is4() || p.Bits() > 24 {
			c.fail("testnet.subnet", "%q: give an IPv4 range of /24 or wider, e.g. \"198.18.0.0/15\"", t.Subnet)
		}
		if t.Validators+t.FullNodes+t.Seeds > 200 {
			c.fail("testnet", "the netns provider gives each node an address of one /24: at most 200 nodes")
		}
	}
	s.validateWAN(c)
	if t.Validators < 1 {
		c.fail("testnet.validators", "%d: a testnet needs at least 1 validator", t.Validators)
	}
	if t.FullNodes < 0 {
		c.fail("testnet.full_nodes", "%d: cannot be negative", t.FullNodes)
	}
	if t.Seeds < 0 {
		c.fail("testnet.seeds", "%d: cannot be negative", t.Seeds)
	}
	if n := t.Validators + t.FullNodes + t.Seeds; n > MaxNodes {
		c.fail("testnet", "%d nodes: at most %d fit on one machine", n, MaxNodes)
	}
	if len(t.Powers) > 0 {
		if len(t.Powers) != t.Validators {
			c.fail("testnet.powers", "%d powers for %d validators: give one per validator or none", len(t.Powers), t.Validators)
		}
		for i, p := range t.Powers {
			if p <= 0 {
				c.fail("testnet.powers", "power %d of validator %d: must be positive", p, i)
			}
		}
	}
	if t.ChainID == "" || len(t.ChainID) > 50 {
		c.fail("testnet.chain_id", "%q: must be 1 to 50 characters", t.ChainID)
	}
	if t.BasePort != 0 && (t.BasePort < 1024 || t.BasePort > 65535-4*MaxNodes) {
		c.fail("testnet.base_port", "%d: use 0 (automatic) or a port from 1024 to %d", t.BasePort, 65535-4*MaxNodes)
	}
	if t.Binary != "" {
		if err := checkBinary(t.Binary); err != nil {
			c.fail("testnet.binary", "%v", err)
		}
		if len(t.Args) == 0 {
			c.fail("testnet.args", "an external binary needs its start arguments")
		}
	}
	if b := t.Build; b.Dir != "" {
		if t.Binary != "" {
			c.fail("testnet.build.dir", "give either testnet.binary or testnet.build, not both")
		}
		if st, err := os.Stat(b.Dir); err != nil || !st.IsDir() {
			c.fail("testnet.build.dir", "%q is not a directory", b.Dir)
		}
		if b.Ref == "" {
			c.fail("testnet.build.ref", "name a branch, tag or commit")
		}
		if len(t.Args) == 0 {
			c.fail("testnet.args", "a built binary needs its start arguments")
		}
	}
	cfg := config.DefaultConfig()
	keys := make([]string, 0, len(t.Config))
	for k := range t.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := cometcfg.Set(cfg, k, t.Config[k]); err != nil {
			c.fail("testnet.config."+k, "%v", err)
		}
	}
	if len(keys) > 0 {
		if err := cfg.ValidateBasic(); err != nil {
			c.fail("testnet.config", "CometBFT rejects these settings: %v", err)
		}
	}

	c.oneOf("testnet.chain", t.Chain, Chains)
	if t.Chain == "cosmos" {
		s.validateCosmos(c)
	}

	w := &s.Workload
	c.oneOf("workload.kind", w.Kind, WorkloadKinds)
	if w.IsCosmos() {
		s.validateCosmosWorkload(c)
	} else if t.Chain == "cosmos" {
		c.fail("workload.kind", "%q sends kvstore txs, which a Cosmos SDK chain rejects: use cosmos-send or cosmos-multisend", w.Kind)
	}
	if w.TxSize < 64 || w.TxSize > 1<<20 {
		c.fail("workload.tx_size", "%d: must be from 64 to 1048576 bytes", w.TxSize)
	}
	if w.Accounts < 0 || w.Accounts > 10_000_000 {
		c.fail("workload.accounts", "%d: must be from 0 to 10000000", w.Accounts)
	}
	c.oneOf("workload.selection", w.Selection, Selections)
	if w.Selection == "zipf" {
		if !(w.ZipfExponent > 0) {
			c.fail("workload.zipf_exponent", "%g: must be positive", w.ZipfExponent)
		}
		if !(w.ZipfShift >= 0) {
			c.fail("workload.zipf_shift", "%g: must be 0 or more", w.ZipfShift)
		}
	}

	s.validateLoad(c)

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
	if e.Warmup < 0 || e.Cooldown < 0 || e.DrainTimeout < 0 {
		c.fail("experiment", "warmup, cooldown and drain_timeout cannot be negative")
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
	if e.Kind.Has(KindSweep) {
		if len(e.Connections) == 0 || len(e.Rates) == 0 {
			c.fail("experiment.connections", "a sweep with no cells: give at least one of connections and one of rates")
		}
		for i, n := range e.Connections {
			if n < 1 || n > 1000 {
				c.fail(fmt.Sprintf("experiment.connections[%d]", i), "%d: must be from 1 to 1000", n)
			}
		}
		for i, r := range e.Rates {
			if !(r > 0) {
				c.fail(fmt.Sprintf("experiment.rates[%d]", i), "%g: must be positive (tx/s per connection)", r)
			}
		}
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

	cr := &s.Criteria
	if cr.MinCommittedTPS < 0 {
		c.fail("criteria.min_committed_tps", "%g: cannot be negative", cr.MinCommittedTPS)
	}
	if cr.MaxP99Latency < 0 {
		c.fail("criteria.max_p99_latency", "cannot be negative")
	}
	if cr.MaxRejectedShare < 0 || cr.MaxRejectedShare > 1 {
		c.fail("criteria.max_rejected_share", "%g: a share is from 0 to 1", cr.MaxRejectedShare)
	}
	if cr.MaxUnresolved < -1 {
		c.fail("criteria.max_unresolved", "%d: use -1 for no criterion or a count", cr.MaxUnresolved)
	}
	s.validateObserve(c)
	s.validatePerturbations(c)
	if s.Report.Dir == "" {
		c.fail("report.dir", "cannot be empty")
	}
	return c.errs
}

func (s *Scenario) validateLoad(c *checker) {
	l := &s.Load
	c.oneOf("load.model", l.Model, RateModels)
	c.oneOf("load.method", l.Method, Methods)
	if l.Batch < 1 || l.Batch > 10000 {
		c.fail("load.batch", "%d: must be from 1 to 10000", l.Batch)
	}
	if l.MaxInFlight < 1 || l.MaxInFlight > 100000 {
		c.fail("load.max_in_flight", "%d: must be from 1 to 100000", l.MaxInFlight)
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
func (s *Scenario) checkPID(c *checker, path string) {
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

func (s *Scenario) validateObserve(c *checker) {
	o := &s.Observe
	if o.Interval < Duration(100*time.Millisecond) || o.Interval > Duration(time.Minute) {
		c.fail("observe.interval", "%s: must be from 100ms to 1m", o.Interval.D())
	}
	for i, m := range o.Metrics {
		if m == "" || strings.ContainsAny(m, "{} \t\"") {
			c.fail(fmt.Sprintf("observe.metrics[%d]", i), "%q is not a metric family name", m)
		}
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

func (s *Scenario) validatePerturbations(c *checker) {
	nodes := s.Testnet.NodeNames()
	total, phase := s.ShortestPhase()
	for i, p := range s.Perturbations {
		path := fmt.Sprintf("perturbation[%d]", i)
		if p.Kind == "latency" && s.Testnet.Provider == "netns" && !s.Testnet.Emulated() {
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
		if len(p.Nodes) == 0 && p.Kind != "partition" && p.Kind != "latency" {
			c.fail(path+".nodes", "name at least one node")
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
		if p.Kind != "kill" && p.Duration <= 0 {
			c.fail(path+".duration", "a %s lasts some time: give a positive duration", p.Kind)
		}
		if total > 0 && p.At.D()+p.Duration.D() >= total {
			c.fail(path+".at", "at %s + duration %s ends after the %s %s phase (perturbations happen in every phase)", p.At.D(), p.Duration.D(), total, phase)
		}
	}
}

// NetemBackends are the delay backends of an emulated WAN.
var NetemBackends = []string{"auto", "tc", "nfqueue"}

// validateWAN checks the emulated WAN keys: zones known to the table, a
// square table of non-negative delays, sane jitter and loss, and the netns
// provider.
func (s *Scenario) validateWAN(c *checker) {
	t := &s.Testnet
	c.oneOf("testnet.netem_backend", t.NetemBackend, NetemBackends)
	if t.Jitter < 0 || t.Jitter > 1 {
		c.fail("testnet.jitter", "%g: a share of the delay, from 0 to 1", t.Jitter)
	}
	if t.Loss < 0 || t.Loss > 100 {
		c.fail("testnet.loss", "%g: a percentage, from 0 to 100", t.Loss)
	}
	if t.BandwidthMbit < 0 || t.BandwidthMbit > 100_000 {
		c.fail("testnet.bandwidth_mbit", "%g: from 0 (no cap) to 100000", t.BandwidthMbit)
	}
	if t.UniformDelay < 0 || t.UniformDelay > Duration(10*time.Second) {
		c.fail("testnet.uniform_delay", "%s: from 0 to 10s", t.UniformDelay.D())
	}
	if !t.Emulated() {
		return
	}
	if t.Provider != "netns" {
		c.fail("testnet.provider", "zones and delays need nodes as emulated hosts: set provider = \"netns\"")
	}
	if t.UniformDelay > 0 && (len(t.Zones) > 0 || len(t.NodeZones) > 0) {
		c.fail("testnet.uniform_delay", "give either a uniform delay or zones, not both")
	}
	if !(len(t.Zones) > 0 || len(t.NodeZones) > 0) {
		return // a uniform delay or a bandwidth cap: no table
	}
	table, err := s.LatencyTable()
	if err != nil {
		c.fail("testnet.latency_table", "%v", err)
		return
	}
	for i, z := range t.Zones {
		c.oneOf(fmt.Sprintf("testnet.zones[%d]", i), z, table.Zones)
	}
	nodes := t.NodeNames()
	names := make([]string, 0, len(t.NodeZones))
	for n := range t.NodeZones {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c.oneOf("testnet.node_zones", n, nodes)
		c.oneOf("testnet.node_zones."+n, t.NodeZones[n], table.Zones)
	}
}

// LatencyTable returns the zone table the scenario names: the built-in
// one or a CSV file (relative to the scenario file).
func (s *Scenario) LatencyTable() (*netem.Table, error) {
	switch path := s.Testnet.LatencyTable; path {
	case "", "builtin":
		return netem.Builtin(), nil
	default:
		if !filepath.IsAbs(path) && s.File != "" && !strings.HasPrefix(s.File, "<") {
			path = filepath.Join(filepath.Dir(s.File), path)
		}
		return netem.ReadCSV(path)
	}
}

// checkGroups checks a partition's sides: two or more, each with nodes of
// the testnet, none in two groups.
func (s *Scenario) checkGroups(c *checker, path string, groups [][]string, nodes []string) {
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

// MaxWallets bounds the wallets funded in genesis.
const MaxWallets = 10_000_000

var (
	denomRE  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$`)
	prefixRE = regexp.MustCompile(`^[a-z]{1,40}$`)
)

func (s *Scenario) validateCosmos(c *checker) {
	t, cs := &s.Testnet, &s.Testnet.Cosmos
	if t.Binary != "" || t.Build.Dir != "" {
		c.fail("testnet.binary", "a Cosmos SDK chain names its binary in testnet.cosmos.binary")
	}
	if cs.Binary != "" {
		if err := checkBinary(cs.Binary); err != nil {
			c.fail("testnet.cosmos.binary", "%v", err)
		}
	}
	if len(cs.StartArgs) == 0 {
		c.fail("testnet.cosmos.start_args", "the chain needs its start arguments, e.g. [\"start\", \"--home\", \"{home}\"]")
	}
	if !denomRE.MatchString(cs.Denom) {
		c.fail("testnet.cosmos.denom", "%q: 3 to 128 characters, a letter first, then letters, digits, '/', ':', '.', '_' or '-'", cs.Denom)
	}
	if !prefixRE.MatchString(cs.Bech32Prefix) {
		c.fail("testnet.cosmos.bech32_prefix", "%q: 1 to 40 lowercase letters", cs.Bech32Prefix)
	}
	if !(cs.GasPrice >= 0) || cs.GasPrice > 1e9 {
		c.fail("testnet.cosmos.gas_price", "%g: must be from 0 to 1e9", cs.GasPrice)
	}
	if cs.Stake < 1 {
		c.fail("testnet.cosmos.stake", "%d: must be at least 1", cs.Stake)
	}
	if cs.Wallets < 2 || cs.Wallets > MaxWallets {
		c.fail("testnet.cosmos.wallets", "%d: must be from 2 (a sender and a receiver) to %d", cs.Wallets, MaxWallets)
	}
	if cs.WalletBalance < 1 {
		c.fail("testnet.cosmos.wallet_balance", "%d: must be at least 1", cs.WalletBalance)
	}
	if cs.Seed == "" {
		c.fail("testnet.cosmos.seed", "give a seed: the wallets are derived from it")
	}
}

func (s *Scenario) validateCosmosWorkload(c *checker) {
	w, cs := &s.Workload, &s.Testnet.Cosmos
	if s.Testnet.Chain != "cosmos" {
		c.fail("workload.kind", "%q needs a Cosmos SDK chain: set testnet.chain = \"cosmos\"", w.Kind)
		return
	}
	c.oneOf("workload.mode", w.Mode, CosmosModes)
	if w.Amount < 1 {
		c.fail("workload.amount", "%d: must be at least 1", w.Amount)
	}
	if w.Kind == "cosmos-multisend" && (w.Outputs < 1 || w.Outputs > 1000) {
		c.fail("workload.outputs", "%d: must be from 1 to 1000", w.Outputs)
	}
	if w.GasLimit < 0 {
		c.fail("workload.gas_limit", "%d: 0 (simulate one tx) or a gas limit", w.GasLimit)
	}
	if w.Fee < -1 {
		c.fail("workload.fee", "%d: -1 (gas_limit x gas_price) or an amount of %s", w.Fee, cs.Denom)
	}
	if w.Accounts == 1 || w.Accounts > cs.Wallets {
		c.fail("workload.accounts", "%d: 0 (all %d wallets) or from 2 to testnet.cosmos.wallets", w.Accounts, cs.Wallets)
	}
	if len(w.ChainID) > 50 {
		c.fail("workload.chain_id", "%q: at most 50 characters", w.ChainID)
	}
	if s.Load.Batch > 1 {
		c.fail("load.batch", "%d: Cosmos workloads send one tx per request, so that each wallet's txs reach its one node in order", s.Load.Batch)
	}
}

func checkBinary(path string) error {
	if !strings.Contains(path, "/") {
		return fmt.Errorf("%q: give a path (./%s or /usr/local/bin/%s)", path, path, path)
	}
	abs, _ := filepath.Abs(path)
	st, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("node binary %s not found", abs)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("node binary %s is not an executable file", abs)
	}
	return nil
}
