// Package live is a testnet's life: ports taken under a lock, the
// homes placed and written, the state file that `chainperf clean` reads,
// the provider opened and the nodes started, the wait for a height (with
// the log's end when a node fails), and the tear-down. `chainperf run`
// (through experiment) and `chainperf testnet up` both bring a testnet up
// here.
package live

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/files"
	"github.com/chainperf/chainperf/internal/latency"
	"github.com/chainperf/chainperf/internal/netem"
	"github.com/chainperf/chainperf/internal/node"
	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/clean"
	"github.com/chainperf/chainperf/internal/testnet/process"
	"github.com/chainperf/chainperf/internal/testnet/providers"
)

// NewProvider makes the provider of a testnet: the table entry the
// scenario names, or in tests an in-memory twin.
type NewProvider func(t *testnet.Testnet, spec scenario.Testnet, table *latency.Table, o testnet.ProviderOptions) (testnet.Provider, error)

// A Preparer fits the homes the testnet wrote to its chain before any
// node starts (a chain adapter); on error Up removes the homes.
type Preparer interface {
	Prepare(ctx context.Context, t *testnet.Testnet) error
}

// UpOptions say where and how a testnet comes up.
type UpOptions struct {
	Dir    string // "" makes a temp dir that teardown removes
	Detach bool   // nodes outlive the harness
	Exe    string // chainperf binary for embedded nodes
	// Rotating full nodes are set up but not started (the rotate
	// experiment starts them).
	Rotating int
	// Table is the zone table of an emulated WAN (nil: the built-in one).
	Table *latency.Table
	// Chain sets the chain up on the homes (nil: nothing to do, as for
	// kvstore).
	Chain Preparer
	// Provider, if set, replaces the scenario's provider (tests).
	Provider NewProvider
	// Profiling turns on the nodes' mutex and block profiles.
	Profiling node.Profiling
	Log       *slog.Logger
	// DryRun has a provider that can (kubernetes) check every object it
	// would make with the cluster and start nothing.
	DryRun bool
}

// A Net is a testnet that runs, with the provider that runs it.
type Net struct {
	Testnet  *testnet.Testnet
	Provider testnet.Provider
	State    *testnet.State
}

// WAN describes the emulated WAN the provider made (nil: none).
func (n *Net) WAN() *netem.WAN {
	if w, ok := n.Provider.(interface{ WAN() *netem.WAN }); ok {
		return w.WAN()
	}
	return nil
}

// Endpoint is where the harness reaches node nd.
func (n *Net) Endpoint(nd *testnet.Node) testnet.Endpoint { return n.Provider.Endpoint(nd) }

// RPCs returns the RPC URLs of nodes.
func (n *Net) RPCs(nodes []*testnet.Node) []string {
	out := make([]string, len(nodes))
	for i, nd := range nodes {
		out[i] = n.Endpoint(nd).RPC
	}
	return out
}

// Up plans, sets up and starts a testnet. On error nothing is left behind:
// no process, no namespace, no state, no temp dir.
func Up(ctx context.Context, spec scenario.Testnet, o UpOptions) (_ *Net, err error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	newProvider := o.Provider
	if newProvider == nil {
		e, err := providers.Find(spec.Provider)
		if err != nil {
			return nil, err
		}
		if e.Attaches {
			return attach(ctx, spec, e)
		}
		if e.Preflight != nil {
			if err := e.Preflight(spec, testnet.ProviderOptions{Exe: o.Exe, Detach: o.Detach, Log: o.Log, DryRun: o.DryRun}); err != nil {
				return nil, err
			}
		}
		newProvider = e.New
	}
	temp := o.Dir == ""
	dir := o.Dir
	if temp {
		if dir, err = os.MkdirTemp("", testnet.TempDirPrefix); err != nil {
			return nil, fmt.Errorf("temp dir: %w", err)
		}
	} else if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil && temp {
			os.RemoveAll(dir)
		}
	}()
	if err := testnet.CheckDir(dir); err != nil {
		return nil, err
	}

	t, prov, st, err := place(spec, dir, temp, newProvider, o)
	if err != nil {
		return nil, err
	}
	if o.Chain != nil {
		if err := o.Chain.Prepare(ctx, t); err != nil {
			clean.Remove(st)
			return nil, err
		}
	}
	// Recorded in the state first: `chainperf clean` finds what Open
	// makes if the harness dies from here on.
	if err := prov.Open(ctx); err != nil {
		clean.Remove(st)
		return nil, err
	}
	n := &Net{Testnet: t, Provider: prov, State: st}
	defer func() {
		if err != nil {
			n.Down(context.WithoutCancel(ctx))
		}
	}()
	if err := prov.Start(ctx, t.Standing()...); err != nil {
		return nil, err
	}
	if err := st.Save(); err != nil { // now with PIDs
		return nil, err
	}
	return n, nil
}

// attach reaches a network that runs already: the scenario's nodes, made
// and owned by someone else. Nothing is written or started, so nothing is
// recorded for clean.
func attach(ctx context.Context, spec scenario.Testnet, e providers.Entry) (*Net, error) {
	t := testnet.NewExternal(spec, testnet.NewID())
	prov, err := e.New(t, spec, nil, testnet.ProviderOptions{})
	if err != nil {
		return nil, err
	}
	if err := prov.Open(ctx); err != nil {
		return nil, err
	}
	return &Net{Testnet: t, Provider: prov}, nil
}

// place resolves the testnet model on free ports, lets the provider place
// its nodes, writes the homes and saves the state (which holds the ports
// from then on). On error it leaves nothing.
func place(spec scenario.Testnet, dir string, temp bool, newProvider NewProvider, o UpOptions) (*testnet.Testnet, testnet.Provider, *testnet.State, error) {
	unlock, err := testnet.LockPorts()
	if err != nil {
		return nil, nil, nil, err
	}
	defer unlock()
	id := testnet.NewID()
	probe := testnet.New(spec, id, dir, process.Host, 0)
	probe.AddRotating(o.Rotating)
	base, err := testnet.AllocatePorts(process.Host, spec.BasePort, probe.PortCount())
	if err != nil {
		return nil, nil, nil, err
	}
	t := testnet.New(spec, id, dir, process.Host, base)
	t.AddRotating(o.Rotating)
	t.Profiling = o.Profiling
	prov, err := newProvider(t, spec, o.Table, testnet.ProviderOptions{Exe: o.Exe, Detach: o.Detach, Log: o.Log, DryRun: o.DryRun})
	if err != nil {
		return nil, nil, nil, err
	}
	st := &testnet.State{Testnet: t, Detached: o.Detach, TempDir: temp, Created: time.Now().UTC()}
	if !o.Detach {
		st.HarnessPID, st.HarnessStart = Harness()
	}
	if err := t.Setup(); err != nil {
		return nil, nil, nil, err
	}
	if err := st.Save(); err != nil {
		clean.Remove(st)
		return nil, nil, nil, err
	}
	return t, prov, st, nil
}

// Down ends every node, removes what the provider made and the state (and
// the dir if it was a temp dir). Logs in a user-chosen dir stay.
func (n *Net) Down(ctx context.Context) {
	_ = n.Provider.Close(ctx)
	if n.State != nil {
		clean.Remove(n.State)
	}
}

// Exited says whether n ended by itself and with what error.
func (n *Net) Exited(nd *testnet.Node) (error, bool) { return n.Provider.Exited(nd) }

// PID is nd's process ID when the provider knows it, else 0.
func (n *Net) PID(nd *testnet.Node) int {
	if pl, ok := n.Provider.(testnet.ProcessLister); ok {
		return pl.PID(nd)
	}
	return 0
}

// WaitHeight waits until every standing node has reached height h. It fails when a
// node process exits, or when no node's height rises for stall, naming the
// height and the logs to read; never on a fixed deadline.
func (n *Net) WaitHeight(ctx context.Context, h int64, stall time.Duration) error {
	var names []string
	for _, nd := range n.Testnet.Standing() {
		names = append(names, nd.Name)
	}
	c := newClimb(h, stall, time.Now())
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, nd := range n.Testnet.Standing() {
			if err, exited := n.Provider.Exited(nd); exited {
				return fmt.Errorf("%s exited (%v): %s", nd.Name, err, n.logHint(ctx, nd))
			}
			qctx, cancel := context.WithTimeout(ctx, time.Second)
			st, err := nodehttp.ReadStatus(qctx, n.Endpoint(nd).RPC)
			cancel()
			if err == nil {
				c.saw(time.Now(), nd.Name, st.Height)
			}
		}
		if c.done(names) {
			return nil
		}
		if c.stalled(time.Now()) {
			low := n.Testnet.Node(c.lowest(names))
			return fmt.Errorf("testnet stalled: no node's height rose for %s (heights %s); %s",
				stall, formatHeights(n.Testnet, c.heights), n.logHint(ctx, low))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// StartStall is how long the first heights may go without a rise: a
// minute, and a second more per MB of the largest genesis file, which a
// node decodes and writes into its store before its first block (a
// million funded SDK accounts: 263 MB, a few minutes on two cores).
func (n *Net) StartStall() time.Duration {
	var most int64
	for _, nd := range n.Testnet.Nodes {
		if fi, err := os.Lstat(filepath.Join(nd.Home, "config", "genesis.json")); err == nil && fi.Mode().IsRegular() {
			most = max(most, fi.Size())
		}
	}
	return time.Minute + time.Duration(most>>20)*time.Second
}

// A climb follows nodes' heights toward a target: the decision of
// WaitHeight, on times it is given (tests feed it a made-up clock).
type climb struct {
	target   int64
	stall    time.Duration
	heights  map[string]int64
	lastRise time.Time
}

func newClimb(target int64, stall time.Duration, now time.Time) *climb {
	return &climb{target: target, stall: stall, heights: map[string]int64{}, lastRise: now}
}

// saw records node's height at now; a rise restarts the stall's clock.
func (c *climb) saw(now time.Time, node string, h int64) {
	if h > c.heights[node] {
		c.heights[node] = h
		c.lastRise = now
	}
}

// done says whether every node reached the target.
func (c *climb) done(nodes []string) bool {
	for _, nd := range nodes {
		if c.heights[nd] < c.target {
			return false
		}
	}
	return true
}

// stalled says whether no node's height rose for longer than stall by now.
func (c *climb) stalled(now time.Time) bool { return now.Sub(c.lastRise) > c.stall }

// lowest is the node furthest behind (the first of them), whose log says
// most about a stall.
func (c *climb) lowest(nodes []string) string {
	low := nodes[0]
	for _, nd := range nodes {
		if c.heights[nd] < c.heights[low] {
			low = nd
		}
	}
	return low
}

// logHint says where to read nd's log. A testnet in a temp dir (`chainperf
// run`) loses its logs at teardown, right after this error, and a
// provider that keeps them elsewhere (pods) has none in the dir: the hint
// then carries the log's last lines.
func (n *Net) logHint(ctx context.Context, nd *testnet.Node) string {
	if lt, ok := n.Provider.(testnet.LogTailer); ok {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		raw, err := lt.LogTail(ctx, nd, 2048)
		if err != nil {
			return fmt.Sprintf("its log could not be read: %v", err)
		}
		return panicked(raw) + fmt.Sprintf("the end of %s's log:\n%s", nd.Name, orEmpty(raw))
	}
	path := filepath.Join(n.Testnet.LogDir(), nd.Name+".log")
	if n.State == nil || !n.State.TempDir {
		return "see " + path
	}
	// One read: the panic line is looked for further back than the end shown.
	raw := files.Tail(path, 64<<10)
	return panicked(raw) + fmt.Sprintf("the end of %s's log (its temp dir goes at teardown; `chainperf testnet up -f SCENARIO --dir D` keeps it):\n%s", nd.Name, orEmpty(raw[max(0, len(raw)-2048):]))
}

// panicked gives the last "panic: " or "fatal error: " line of a Go
// program's log, cut to its start and end, followed by a line break: a
// panic's stack trace fills the end of the log, its cause is above it.
func panicked(log []byte) string {
	var last string
	for _, line := range strings.Split(string(log), "\n") {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			last = line
		}
	}
	if last == "" {
		return ""
	}
	if r := []rune(last); len(r) > 600 {
		last = string(r[:200]) + " … " + string(r[len(r)-400:])
	}
	return "it stopped with " + printable.Line(last) + "\n"
}

// orEmpty is a log's end, trimmed, or "(empty)".
func orEmpty(raw []byte) string {
	if tail := strings.TrimSpace(string(raw)); tail != "" {
		return tail
	}
	return "(empty)"
}

// Heights returns each node's latest height (0 when it does not answer).
func (n *Net) Heights(ctx context.Context, nodes []*testnet.Node) map[string]int64 {
	return Heights(ctx, nodes, n.Endpoint)
}

// Heights returns each node's latest height (0 when it does not answer);
// endpoint says where a node is.
func Heights(ctx context.Context, nodes []*testnet.Node, endpoint func(*testnet.Node) testnet.Endpoint) map[string]int64 {
	out := map[string]int64{}
	for _, nd := range nodes {
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		if st, err := nodehttp.ReadStatus(qctx, endpoint(nd).RPC); err == nil {
			out[nd.Name] = st.Height
		}
		cancel()
	}
	return out
}

func formatHeights(t *testnet.Testnet, h map[string]int64) string {
	var parts []string
	for _, nd := range t.Standing() {
		parts = append(parts, fmt.Sprintf("%s=%d", nd.Name, h[nd.Name]))
	}
	return strings.Join(parts, " ")
}

// Harness is this process as the owner of what it starts: its PID and its
// start time (clock ticks since boot), which tell it from a later process
// that reuses the PID.
func Harness() (pid int, start uint64) {
	pid = os.Getpid()
	start, _ = process.StartTime(pid)
	return pid, start
}

// Alive says whether the harness pid that started at start still runs.
func Alive(pid int, start uint64) bool { return process.Alive(pid, start) }
