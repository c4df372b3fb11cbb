// Package results holds the records a run produces (phases, figures,
// criteria checks, the run itself), shared by the experiments that make
// them, the store that keeps them and the reports that show them.
package results

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/latency"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/selfcost"
)

// A Phase is what one load phase produced: the ledger, the blocks, the
// generator's report and the figures derived from them.
type Phase struct {
	Name      string        `json:"name"` // "steady 1/1", "sweep c=2 r=400"
	Kind      string        `json:"kind"` // the experiment kind that ran it: steady, sweep, find-max, rotate
	RunID     string        `json:"run_id"`
	Model     string        `json:"model"`
	Workload  string        `json:"workload"`
	Method    string        `json:"method"`
	Start     time.Time     `json:"start"`
	End       time.Time     `json:"end"`
	Length    time.Duration `json:"length_ns"`
	Window    [2]float64    `json:"window_s"` // measured window, seconds since start
	Generator load.Report   `json:"generator"`
	// Generators is how many generators sent the phase's load (0 or 1:
	// chainperf itself); their ledgers and reports are merged above.
	Generators int          `json:"generators,omitempty"`
	Ledger     load.Summary `json:"ledger"`
	// Offered is the tx/s the rate model scheduled in each second of the
	// load (what a controller asked for, second by second; nil: runs
	// before it, which have the phase's mean only).
	Offered []float64       `json:"offered_per_second,omitempty"`
	Blocks  []observe.Block `json:"blocks,omitempty"`
	// Implausible: heights of blocks that held more txs than could be
	// true of a network only this run loads (Implausible), left out of
	// txs per block.
	Implausible []int64 `json:"implausible_blocks,omitempty"`
	Followed    bool    `json:"followed"`
	Figures     Figures `json:"figures"`
	// Drained: how long the drain after the load lasted, seconds.
	Drained float64 `json:"drained_s,omitempty"`
	// InMempool: of the txs still waiting for a block when the drain
	// ended, those a node's mempool held then (among the first 100 each
	// node lists); MempoolAtEnd: the most txs one node's mempool held.
	InMempool    int64 `json:"in_mempool_at_end,omitempty"`
	MempoolAtEnd int64 `json:"mempool_at_end,omitempty"`
	// NonceTaken, NonceGap: of the txs still waiting for a block when the
	// drain ended, EVM txs whose sender's nonce on chain had passed
	// theirs, or stopped below them (evm.NonceFates).
	NonceTaken int64 `json:"nonce_taken_at_end,omitempty"`
	NonceGap   int64 `json:"nonce_gap_at_end,omitempty"`
	// Harness is what chainperf itself took from the machine over the
	// phase (its load and drain), by component (nil: runs before it).
	Harness *selfcost.Cost `json:"harness,omitempty"`
	// Unresolved explains the phase's unresolved txs by the target nodes'
	// mempool metrics (nil: none read).
	Unresolved *Unresolved `json:"unresolved_explained,omitempty"`
}

// KindOf returns the phase's experiment kind (for runs stored before
// phases recorded it: the first word of its name).
func (p *Phase) KindOf() string {
	if p.Kind != "" {
		return p.Kind
	}
	k, _, _ := strings.Cut(p.Name, " ")
	return k
}

// Status is where a run stands; the values are also the database values.
type Status string

const (
	StatusRunning     Status = "running"
	StatusComplete    Status = "complete"
	StatusFailed      Status = "failed"      // it could not finish (an error)
	StatusInterrupted Status = "interrupted" // Ctrl-C, or a harness that died
)

// runIDPattern is what a run ID may be: it becomes a folder name.
var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// CheckRunID refuses an ID read from outside (a database, an argument)
// that could not be a folder name of its own: "..", a slash, a control
// character would put a report elsewhere.
func CheckRunID(id string) error {
	if !runIDPattern.MatchString(id) {
		return fmt.Errorf("run ID %q is not one chainperf makes (letters, digits, '.', '_', '-'; at most 64)", id)
	}
	return nil
}

// FormatLabels writes labels as KEY=VALUE, sorted by key, joined by
// commas (what --label and the dashboard's filter read back).
func FormatLabels(labels map[string]string) string {
	keys := slices.Sorted(maps.Keys(labels))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return strings.Join(parts, ",")
}

// Statuses lists every status.
var Statuses = []Status{StatusRunning, StatusComplete, StatusFailed, StatusInterrupted}

// A Run is one execution of a scenario, in the parts its readers need:
// the record that names it (run lists, the store's index), what ran and
// where (reports), what the phases measured and the verdict (criteria,
// compare), and what each experiment kind and the chain found (reports,
// compare). The parts are embedded, so the fields and the JSON are flat.
type Run struct {
	Record
	Setup
	Outcome
	Findings
}

// A Record names a run and says how it ended.
type Record struct {
	ID        string            `json:"id"`
	Scenario  string            `json:"scenario"` // its name
	Text      string            `json:"scenario_text"`
	Labels    map[string]string `json:"labels,omitempty"`
	Status    Status            `json:"status"`
	Error     string            `json:"error,omitempty"`
	Start     time.Time         `json:"start"`
	End       time.Time         `json:"end"`
	ReportDir string            `json:"report_dir,omitempty"`
	// Trial is the run's place in an interleaved comparison (chainperf
	// ab); nil for a run made on its own, whose order is its start.
	Trial *Trial `json:"trial,omitempty"`
}

// Lasted is how long the run took, rounded to the second, as text, and
// false with "no end recorded" for a run whose end was never written (a
// killed harness) or is before its start: never a negative duration.
func (r Record) Lasted() (string, bool) {
	if r.End.IsZero() || r.End.Before(r.Start) {
		return "no end recorded", false
	}
	return r.End.Sub(r.Start).Round(time.Second).String(), true
}

// A Trial places a run in an interleaved comparison: its session, its
// round (one run of each side a round, in a random order), its side and
// its position in the session's order of runs.
type Trial struct {
	Session string `json:"session"`
	Round   int    `json:"round"`
	Side    string `json:"side"` // "baseline" or "candidate"
	Seq     int    `json:"seq"`  // 1 for the session's first run
}

// Setup is what ran and where: versions, machine, nodes, config and WAN.
type Setup struct {
	Versions Versions       `json:"versions"`
	Host     Host           `json:"host"`
	Nodes    []Node         `json:"nodes"`
	Config   map[string]any `json:"config_overrides,omitempty"`
	// Genesis and App: a Cosmos SDK or EVM chain's genesis patches and
	// app.toml settings (testnet.genesis, testnet.app).
	Genesis map[string]any `json:"genesis_overrides,omitempty"`
	App     map[string]any `json:"app_overrides,omitempty"`
	// Scale: the parts of the scale profile the testnet ran with
	// (testnet.scale_profile), which change its peers and node settings.
	Scale []string `json:"scale_profile,omitempty"`
	WAN   *WAN     `json:"wan,omitempty"`
	// NodeNice: the nodes ran this much below the harness's priority.
	NodeNice int `json:"node_nice,omitempty"`
}

// Outcome is what the load phases measured and the verdict on it.
type Outcome struct {
	Phases  []*Phase `json:"phases"`
	Checks  []Check  `json:"checks"`
	Passed  bool     `json:"passed"`
	Crashed []string `json:"crashed_nodes,omitempty"`
	// StoreErrors counts writes to the results store that failed while
	// the run went (each logged); the stored run may miss what they held.
	StoreErrors int `json:"store_errors,omitempty"`
}

// Findings are what the experiment kinds, the faults and the chain
// adapter found beyond the phases' figures.
type Findings struct {
	Sweep     *Sweep            `json:"sweep,omitempty"`
	Steady    *Steady           `json:"steady,omitempty"` // with repeats
	FindMax   *FindMax          `json:"find_max,omitempty"`
	Rotations []Rotation        `json:"rotations,omitempty"`
	Faults    []Fault           `json:"faults,omitempty"`
	Events    []Event           `json:"events,omitempty"`
	Profiles  []observe.Profile `json:"profiles,omitempty"`
	// Found are the findings of the chain adapter and any other producer
	// that hands its figures over as data (package finding), one a source.
	Found []finding.Finding `json:"findings,omitempty"`
}

// WAN describes the emulated wide-area network a run had (the netns
// provider's delays).
type WAN = latency.WAN

// An Event is something done to or seen in the testnet during a run (a
// perturbation's beginning or end).
type Event struct {
	At     time.Time `json:"at"`
	Kind   string    `json:"kind"`
	Detail string    `json:"detail"`
}

// Node is a node of the run's testnet as a report shows it.
type Node struct {
	Name string `json:"name"`
	Role string `json:"role"`
	RPC  string `json:"rpc"`
	// Version is the binary chainperf started it on (a mixed network);
	// Reported and ReportedEnd are the CometBFT version the node itself
	// said (/status) once the chain ran and after the last phase: an
	// upgrade shows as the two differing.
	Version     string `json:"version,omitempty"`
	Reported    string `json:"reported,omitempty"`
	ReportedEnd string `json:"reported_end,omitempty"`
	// VersionEnd is the binary it ran after the last phase, when an
	// upgrade swapped it.
	VersionEnd string `json:"version_end,omitempty"`
}

// Versions of what ran.
type Versions struct {
	Chainperf string `json:"chainperf"`
	Commit    string `json:"chainperf_commit,omitempty"`
	Node      string `json:"node"` // "embedded CometBFT v0.38.19 + kvstore" or the binary path
	Go        string `json:"go"`
}

// Host facts of the machine the run ran on.
type Host struct {
	CPU      string `json:"cpu"`
	Cores    int    `json:"cores"`
	MemoryMB int64  `json:"memory_mb"`
	Kernel   string `json:"kernel"`
	Hostname string `json:"hostname"`
}

// A Check is one pass/fail criterion applied to a run.
type Check struct {
	Name  string  `json:"name"`
	Op    string  `json:"op"` // ">=" or "<="
	Limit float64 `json:"limit"`
	Value float64 `json:"value"`
	Pass  bool    `json:"pass"`
}

// Main returns the phase the run's headline figures and criteria come
// from: the last steady or rotate phase, else the last phase (a sweep's
// heaviest cell, a find-max). A find-max phase runs at the chain's limit
// on purpose, so it is not where a steady criterion belongs.
func (r *Outcome) Main() *Phase {
	for i := len(r.Phases) - 1; i >= 0; i-- {
		if k := r.Phases[i].KindOf(); k == scenario.KindSteady || k == scenario.KindRotate {
			return r.Phases[i]
		}
	}
	if len(r.Phases) == 0 {
		return nil
	}
	return r.Phases[len(r.Phases)-1]
}

// LatencyCurve is the phase's commit latency by percentile (the HDR plot's
// points); a run stored before the ledger kept the curve gives its stored
// percentiles.
func (p *Phase) LatencyCurve() []load.Quantile {
	if c := p.Ledger.LatencyCurve; len(c) > 0 {
		return c
	}
	l := p.Ledger.Latency
	if l.Count == 0 {
		return nil
	}
	return []load.Quantile{{Percent: 50, MS: l.P50}, {Percent: 90, MS: l.P90}, {Percent: 99, MS: l.P99}, {Percent: 99.9, MS: l.P999}, {Percent: 100, MS: l.Max}}
}
