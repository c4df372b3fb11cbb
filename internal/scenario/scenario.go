// Package scenario reads scenario files: the TOML that describes a testnet,
// a workload, a load shape, an experiment and pass/fail criteria. Decoding is
// strict (unknown keys are errors naming file:line), defaults live in
// default.toml, and one validation pass checks every value so that later
// code can trust the model.
package scenario

import (
	_ "embed"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/chainperf/chainperf/internal/build"
)

// Default is the built-in default scenario's frame, also the place where
// every default value is written down and commented; each chain's table
// is its own (ChainSection.Defaults), in the place marked here
// (DefaultText is the whole).
//
//go:embed default.toml
var Default []byte

// A Scenario is a validated scenario file.
type Scenario struct {
	Name       string     `toml:"name"`
	Testnet    Testnet    `toml:"testnet"`
	Workload   Workload   `toml:"workload"`
	Load       Load       `toml:"load"`
	Experiment Experiment `toml:"experiment"`
	Criteria   Criteria   `toml:"criteria"`
	Observe    Observe    `toml:"observe"`
	// Perturbations are faults on the timeline of each load phase.
	Perturbations []Perturbation `toml:"perturbation"`
	Report        Report         `toml:"report"`
	IBC           IBC            `toml:"ibc"`

	// File is the name used in messages ("scenario.toml", "<default>").
	File string `toml:"-"`
	// Text is the scenario file as the user wrote it, kept with the run.
	Text []byte `toml:"-"`
	// lines index the keys of Text, for errors found after Parse.
	lines lines
}

// Pos is "file:line" of the key at path ("perturbation[1].kind"), or of
// the nearest table above it; the file alone when Text does not set it.
func (s *Scenario) Pos(path string) string { return s.lines.at(s.File, path) }

// Testnet describes the nodes of a testnet.
type Testnet struct {
	Provider string `toml:"provider"`
	// Subnet is the address range the netns provider takes a /24 from.
	Subnet string `toml:"subnet"`
	// Emulated WAN (netns provider): zones assigned round-robin over the
	// nodes (NodeNames order), NodeZones per node; delays from
	// LatencyTable ("builtin" or a CSV path) or UniformDelay between every
	// pair; jitter as a share of the delay, loss in percent.
	Zones        []string          `toml:"zones"`
	NodeZones    map[string]string `toml:"node_zones"`
	LatencyTable string            `toml:"latency_table"`
	UniformDelay Duration          `toml:"uniform_delay"`
	Jitter       float64           `toml:"jitter"`
	Loss         float64           `toml:"loss"`
	// BandwidthMbit caps what each node sends to the other nodes (0: no cap).
	BandwidthMbit float64 `toml:"bandwidth_mbit"`
	// NetemBackend: "auto" (tc netem where the kernel has it, else
	// nfqueue), "tc" or "nfqueue".
	NetemBackend string  `toml:"netem_backend"`
	Validators   int     `toml:"validators"`
	FullNodes    int     `toml:"full_nodes"`
	Seeds        int     `toml:"seeds"`
	Powers       []int64 `toml:"powers"`
	// ScaleProfile: "auto", "on", "off" or comma-separated ScaleParts:
	// what chainperf changes for many nodes on few cores.
	ScaleProfile string `toml:"scale_profile"`
	// NodeNice is the nice the process and netns providers start nodes
	// at, below the harness's own.
	NodeNice int    `toml:"node_nice"`
	ChainID  string `toml:"chain_id"`
	BasePort int    `toml:"base_port"`
	// SnapshotInterval: heights between the embedded kvstore's state-sync
	// snapshots (0: none).
	SnapshotInterval int64 `toml:"snapshot_interval"`
	// Binary is "" for the embedded node, else the path of a CometBFT
	// compatible node binary started with Args ("{home}" is replaced).
	// "module:PACKAGE@VERSION" names a released node built from its Go
	// module (github.com/cometbft/cometbft/cmd/cometbft@v1.0.1) that runs
	// its built-in kvstore app.
	Binary string   `toml:"binary"`
	Args   []string `toml:"args"`
	// Versions make a mixed-version network: each a binary run by a share
	// of the nodes (or nodes by name); the others run Binary.
	Versions []Version `toml:"versions"`
	// AppLabel is set once an application chain's binary is built: the
	// release or ref it was built from, for the run record.
	AppLabel string `toml:"-"`
	// NodeConfig is set once a released node is built: its version's
	// default config.toml, which its nodes' configs are made from.
	NodeConfig string `toml:"-"`
	// Config holds CometBFT config.toml overrides keyed "section.key"
	// (nested tables are flattened to that form).
	Config map[string]any `toml:"config"`
	// Genesis patches a Cosmos SDK or EVM chain's genesis.json by JSON
	// path ("consensus.params.block.max_gas", "app_state.mint.params.
	// inflation_max"), App its app.toml ("mempool.max-txs"): nested tables
	// are flattened to that form, and each key and value's type is checked
	// against the files the chain's own init wrote.
	Genesis map[string]any `toml:"genesis"`
	App     map[string]any `toml:"app"`
	// Build, when its Dir is set, makes the node binary from a Go source
	// tree at a git ref (instead of Binary).
	Build Build `toml:"build"`
	// Chain is what the nodes run: "kvstore" (CometBFT's kvstore app) or
	// a registered chain, described by its [testnet.<chain>] table
	// (Section).
	Chain string `toml:"chain"`
	// sections are the registered chains' tables, by chain (decode.go).
	sections map[string]any
	// Nodes are the nodes of a network that already runs (provider
	// "external"): chainperf starts and stops none of them.
	Nodes []ExternalNode `toml:"node"`
	// TargetIsMine says that the nodes, wherever they are, belong to whoever
	// runs chainperf: load goes to a node outside this machine only then.
	TargetIsMine bool `toml:"target_is_mine"`
	// Kubernetes is where and how the kubernetes provider runs the nodes.
	Kubernetes Kubernetes `toml:"kubernetes"`
}

// An ExternalNode is one node of a network chainperf did not make: where
// the harness reaches its services.
type ExternalNode struct {
	Name    string `toml:"name"`     // as reports show it; "" is role + index
	Role    string `toml:"role"`     // "validator" or "full" (full nodes take the load)
	RPC     string `toml:"rpc"`      // CometBFT RPC, e.g. "http://10.0.0.5:26657"
	Metrics string `toml:"metrics"`  // Prometheus endpoint ("" not scraped)
	Pprof   string `toml:"pprof"`    // pprof base URL ("" no profiles)
	JSONRPC string `toml:"json_rpc"` // EVM JSON-RPC ("" none)
}

// Emulated says whether the testnet emulates a WAN (zones or a delay).
func (t Testnet) Emulated() bool {
	return len(t.Zones) > 0 || len(t.NodeZones) > 0 || t.UniformDelay > 0 || t.BandwidthMbit > 0
}

// EmulatedWAN says whether chainperf emulates the testnet's WAN: delays
// or zones, except zones that place pods by a node label (their latency
// is the cluster's own).
func (t Testnet) EmulatedWAN() bool {
	if t.Provider == ProviderKubernetes && t.Kubernetes.ZoneLabel != "" {
		return false
	}
	return t.Emulated()
}

// ZoneOf returns the zone of each node by name: node_zones, else the
// zones list round-robin.
func (t Testnet) ZoneOf() map[string]string {
	out := map[string]string{}
	for i, n := range t.NodeNames() {
		if z, ok := t.NodeZones[n]; ok {
			out[n] = z
		} else if len(t.Zones) > 0 {
			out[n] = t.Zones[i%len(t.Zones)]
		}
	}
	return out
}

// Build says how to build the node binary from source.
type Build struct {
	Dir     string   `toml:"dir"`
	Ref     string   `toml:"ref"`
	Package string   `toml:"package"`
	Flags   []string `toml:"flags"`
}

// AppBuild says how to build a chain application from a git tree: the
// repository (a local path), the ref and the main package relative to the
// repository root. The build runs in the package's own module.
type AppBuild struct {
	Dir     string `toml:"dir"`
	Ref     string `toml:"ref"`
	Package string `toml:"package"`
}

// An AppRef points at where a Cosmos SDK or EVM testnet's application
// comes from in its scenario: a binary (a path or "module:PKG@VERSION"),
// a build from a git tree, the dependencies the build replaces.
type AppRef struct {
	Key       string // "testnet.cosmos" or "testnet.evm"
	Binary    *string
	Build     *AppBuild
	Replace   *map[string]string
	StartArgs *[]string // how its nodes start ({home} is a node's home)
	// TestChain is chainperf's own chain of this kind, which runs when
	// neither binary nor build is given ("chainperf-sdkd"), TestChainIs
	// what it is ("chainperf's Cosmos SDK test chain").
	TestChain, TestChainIs string
}

// Source is the build the application asks for; false when it names a
// path or chainperf's test chain instead.
func (ref AppRef) Source() (build.App, bool) {
	b := *ref.Build
	app := build.App{Dir: b.Dir, Ref: b.Ref, Package: b.Package, Replace: *ref.Replace}
	if strings.HasPrefix(*ref.Binary, build.ModulePrefix) {
		app.Module = *ref.Binary
	}
	return app, app.Module != "" || app.Dir != ""
}

// Application returns where t's application comes from, false for a chain that
// runs chainperf's own node (kvstore). Its pointers are into t's section:
// a caller that sets them gives t a section of its own first.
func (t *Testnet) Application() (AppRef, bool) {
	c, ok := chainNamed(t.Chain)
	if !ok || c.App == nil {
		return AppRef{}, false
	}
	return c.App(t.own(t.Chain)), true
}

// Workload describes what one transaction is.
type Workload struct {
	Kind         string  `toml:"kind"`
	TxSize       int     `toml:"tx_size"`
	Accounts     int     `toml:"accounts"`
	Selection    string  `toml:"selection"`
	ZipfShift    float64 `toml:"zipf_shift"`
	ZipfExponent float64 `toml:"zipf_exponent"`
	Seed         uint64  `toml:"seed"`
	// Cosmos workloads: Mode "pregenerate" (every tx signed before its
	// phase) or "live" (signed when due, sequences repaired); Amount sent
	// to each receiver, Outputs receivers of a multisend, gas limit and fee
	// (-1: gas_limit x testnet.cosmos.gas_price, rounded up).
	Mode     string `toml:"mode"`
	Amount   int64  `toml:"amount"`
	Outputs  int    `toml:"outputs"`
	GasLimit int64  `toml:"gas_limit"`
	Fee      int64  `toml:"fee"`
	// ChainID signs for another chain ID than the testnet's ("": its own),
	// to see how the chain refuses such txs.
	ChainID string `toml:"chain_id"`
	// CacheDir keeps pregenerated txs on disk for the next run ("": off).
	CacheDir string `toml:"cache_dir"`
	// MsgsPerTx messages in each Cosmos tx, each drawn from the mix;
	// Unordered sends Cosmos SDK v0.53 unordered txs (no sequence), each
	// expiring UnorderedTimeout after it is signed.
	MsgsPerTx        int      `toml:"msgs_per_tx"`
	Unordered        bool     `toml:"unordered"`
	UnorderedTimeout Duration `toml:"unordered_timeout"`
	// InFlightPerAccount: EVM workloads' txs of one account in flight at
	// once, nonces assigned ahead.
	InFlightPerAccount int `toml:"in_flight_per_account"`
	// ReadRate: EVM workloads' reads a second (balances, nonces, eth_call)
	// sent beside the txs; 0 sends none.
	ReadRate float64 `toml:"read_rate"`
	// Mix, for kind "cosmos-mix": the message kinds a tx's messages are
	// drawn from by weight.
	Mix []MixEntry `toml:"mix"`
	// Setup, for Cosmos workloads: txs sent one after another before the
	// load (store a contract, instantiate it), each checked, binding what
	// the chain answered to placeholders of the mix's templates.
	Setup []SetupStep `toml:"setup"`
	// Reads, for Cosmos workloads: queries of the chain's own sent among
	// the read load's kinds (at read_rate), each a gRPC method's path and
	// its request as a template.
	Reads []ReadEntry `toml:"read"`
	// ReplayFile, for kind "replay": the recorded txs to send, one hex or
	// base64 tx a line.
	ReplayFile string `toml:"replay_file"`
}

// A MixEntry is one message kind of a cosmos-mix workload.
type MixEntry struct {
	// Msg: send, multisend, delegate, undelegate, redelegate; or, with a
	// Template, a name of the user's for the message.
	Msg    string  `toml:"msg"`
	Weight float64 `toml:"weight"`
	// Template is any message of the chain in its proto JSON, with
	// placeholders ({wallet}, {other}, {counter}, ...): encoded with the
	// message descriptors the chain serves.
	Template string `toml:"template"`
	// Amount sent to each receiver or staked (0: workload.amount);
	// Outputs receivers of a multisend (0: workload.outputs).
	Amount  int64 `toml:"amount"`
	Outputs int   `toml:"outputs"`
	// Validator the sender stakes with (by index; unset: wallet i with
	// validator i mod the validators).
	Validator *int `toml:"validator"`
}

// A SetupStep is a tx a Cosmos workload sends before its load, from a
// wallet of its own, Count times (its {counter} 0, 1, ...), waiting for each
// to commit: a failed step fails the run.
type SetupStep struct {
	Msg   string `toml:"msg"` // a message template, as a mix entry's
	Count int    `toml:"count"`
	// Bind names a placeholder after an attribute of the step's events
	// ("instantiate._contract_address"): with Count > 1 it holds every
	// tx's, and each message draws one.
	Bind map[string]string `toml:"bind"`
}

// A ReadEntry is one query of a Cosmos read load: Path is its gRPC
// method ("/cosmwasm.wasm.v1.Query/SmartContractState"), Request its
// request message as a template.
type ReadEntry struct {
	Name    string `toml:"name"`
	Path    string `toml:"path"`
	Request string `toml:"request"`
}

// Experiment describes what a run does with the testnet and the load.
type Experiment struct {
	// Kind lists the experiment's parts, run in order on one testnet.
	Kind         Kinds    `toml:"kind"`
	Warmup       Duration `toml:"warmup"`
	Cooldown     Duration `toml:"cooldown"`
	DrainTimeout Duration `toml:"drain_timeout"`
	Repeats      int      `toml:"repeats"`
	// The sweep grid: every connections x rates cell for cell_duration,
	// pause between cells.
	Connections     []int     `toml:"connections"`
	Rates           []float64 `toml:"rates"`
	CellDuration    Duration  `toml:"cell_duration"`
	Pause           Duration  `toml:"pause"`
	SaturationShare float64   `toml:"saturation_share"`
	LatencyBlowup   float64   `toml:"latency_blowup"`
	// find-max: the pid model ([load.pid]) for find_max_duration; the
	// first find_max_settle is left out while the controller finds the rate.
	FindMaxDuration Duration `toml:"find_max_duration"`
	FindMaxSettle   Duration `toml:"find_max_settle"`
	// rotate: `rotations` times a fresh full node starts, block-syncs to
	// the tip (at most catchup_timeout) and stops, while [load] runs.
	Rotations      int      `toml:"rotations"`
	CatchupTimeout Duration `toml:"catchup_timeout"`
	// RotateSync: "block" (from genesis) or "state" (from a snapshot).
	RotateSync string `toml:"rotate_sync"`
	QA         QA     `toml:"qa"`
}

// QA is the CometBFT QA method: every c in Connections x r in Rates for
// CellDuration, each cell's processed txs against the expected
// c*r*(CellDuration-Warmup), the saturation point (the largest load
// whose processed count is at least SaturationShare of expected), then a
// steady run of SteadyDuration at that load.
type QA struct {
	Connections     []int     `toml:"connections"`
	Rates           []float64 `toml:"rates"`
	CellDuration    Duration  `toml:"cell_duration"`
	Warmup          Duration  `toml:"warmup"`
	SaturationShare float64   `toml:"saturation_share"`
	SteadyDuration  Duration  `toml:"steady_duration"`
}

// Kinds are the parts of an experiment, written as one name ("sweep") or
// a list (["steady", "find-max"]).
type Kinds []string

// The experiment kinds; experiment registers one implementation of each.
const (
	KindSteady  = "steady"
	KindSweep   = "sweep"
	KindFindMax = "find-max"
	KindRotate  = "rotate"
	KindQA      = "qa"
)

// Has says whether k names kind.
func (k Kinds) Has(kind string) bool {
	for _, x := range k {
		if x == kind {
			return true
		}
	}
	return false
}

// UnmarshalTOML takes a string or an array of strings.
func (k *Kinds) UnmarshalTOML(v *unstable.Node) error {
	switch v.Kind {
	case unstable.String:
		*k = Kinds{string(v.Data)}
		return nil
	case unstable.Array:
		out := Kinds{}
		it := v.Children()
		for it.Next() {
			n := it.Node()
			if n.Kind != unstable.String {
				return fmt.Errorf("experiment.kind: a list of names (strings), not %s", n.Kind)
			}
			out = append(out, string(n.Data))
		}
		*k = out
		return nil
	}
	return fmt.Errorf("experiment.kind: a name (\"steady\") or a list of names ([\"steady\", \"find-max\"]), not %s", v.Kind)
}

// Criteria decide whether a run passes. Zero values mean "no criterion".
type Criteria struct {
	MinCommittedTPS  float64  `toml:"min_committed_tps"`
	MaxP99Latency    Duration `toml:"max_p99_latency"`
	MaxRejectedShare float64  `toml:"max_rejected_share"`
	MaxUnresolved    int      `toml:"max_unresolved"`
	// MaxUnresolvedShare fails a run whose share of sent txs never seen in
	// a block (accepted, then gone) is above it; negative turns it off.
	MaxUnresolvedShare float64 `toml:"max_unresolved_share"`
	// LoadDelivered fails a run whose load was not delivered as asked
	// (the generator or the node held it back).
	LoadDelivered bool `toml:"load_delivered"`
	// Figures hold figures the run's producers hand over (a chain's
	// "msg/s send", find-max's "max sustainable tx/s") to bounds, by name.
	Figures []FigureCriterion `toml:"figure"`
}

// A FigureCriterion bounds one figure of a run's findings: Min, Max or
// both (nil: no bound that way).
type FigureCriterion struct {
	Name string   `toml:"name"`
	Min  *float64 `toml:"min"`
	Max  *float64 `toml:"max"`
}

// Observe says what is watched besides blocks: every node's Prometheus
// series and process, and pprof profiles at chosen moments.
type Observe struct {
	Interval Duration  `toml:"interval"`
	Metrics  []string  `toml:"metrics"`
	Profiles []Profile `toml:"profiles"`
	// Timeline follows every node's consensus events (where each height's
	// time went).
	Timeline bool `toml:"timeline"`
	// Traces has each node of a chain with the Cosmos SDK's OpenTelemetry
	// tracing (v0.54 and later) send the application's spans to chainperf:
	// time per message type, ante handlers against handlers, execution and
	// commit by height. Tracing costs the nodes CPU; the nodes send to
	// loopback, so the process provider only.
	Traces bool `toml:"traces"`
	// WindowProfiles are the pprof kinds taken from every node over the
	// measured window of each steady and rotate phase.
	WindowProfiles []string `toml:"window_profiles"`
}

// A Profile is a pprof capture from one node at one moment of each load
// phase.
type Profile struct {
	Node    string   `toml:"node"`
	Kind    string   `toml:"kind"`
	At      Duration `toml:"at"`
	Seconds int      `toml:"seconds"`
}

// A Perturbation is a fault done to nodes `at` after the start of each
// load phase, lasting `duration`: kill (SIGKILL, restarted after duration;
// duration 0 leaves it dead), pause (SIGSTOP, SIGCONT after duration),
// restart (SIGTERM, started again after duration); upgrade (a rolling
// upgrade: each node in turn stopped and started on another binary; or,
// with a height, a coordinated one: every node halts there and starts on
// the other binary).
type Perturbation struct {
	Kind  string   `toml:"kind"`
	Nodes []string `toml:"nodes"`
	// Groups are the sides of a partition: no group reaches another.
	Groups [][]string `toml:"groups"`
	// Scale multiplies the emulated WAN's delays to and from the nodes
	// (all nodes when none are named) while a latency perturbation holds.
	Scale    float64  `toml:"scale"`
	At       Duration `toml:"at"`
	Duration Duration `toml:"duration"`
	// An upgrade (a rolling one) stops its nodes one at a time, for
	// Duration each, and starts each on the same home with the binary To
	// (resolved into ToExec); the next goes down Gap after the one before
	// is back at the tip.
	To     string   `toml:"to"`
	Gap    Duration `toml:"gap"`
	ToExec Exec     `toml:"-"`
	// Height makes an upgrade coordinated: every node of an application
	// chain halts at this height (the SDK's halt-height), is stopped and,
	// Duration later, started on To, all together. Replace swaps
	// dependencies of To's build as testnet.cosmos.replace does.
	Height  int64             `toml:"height"`
	Replace map[string]string `toml:"replace"`
}

// Coordinated says p is an upgrade every node makes at one height.
func (p Perturbation) Coordinated() bool { return p.Kind == "upgrade" && p.Height > 0 }

// Report says where reports go.
type Report struct {
	Dir string `toml:"dir"`
}

// Duration is a time.Duration written as a Go duration string ("1.5s").
type Duration time.Duration

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration (write e.g. \"500ms\" or \"30s\")", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// D returns the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Length is how long the load phase lasts: the sum of the steps for the
// steps model, else Duration.
func (l Load) Length() time.Duration {
	if l.Model != "steps" {
		return l.Duration.D()
	}
	var total time.Duration
	for _, s := range l.Steps {
		// Saturating: steps whose sum would overflow last "forever",
		// which validation refuses, instead of a negative length.
		if d := s.Duration.D(); d > 0 && total > math.MaxInt64-d {
			return math.MaxInt64
		} else if d > 0 {
			total += d
		}
	}
	return total
}
