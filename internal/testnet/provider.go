package testnet

import "context"

// A Provider makes a testnet real: it takes the resolved model (nodes with
// names, roles, homes, hosts and ports) and runs the nodes. What more it
// can do to them is an optional capability (Killer, Pauser, Disconnecter,
// Partitioner, LatencyShaper), found by type assertion.
//
// The life of a provider: made for one testnet (its constructor places the
// nodes: host addresses), Open once after the homes are written, Start and
// Stop any number of times, Close once.
type Provider interface {
	// Name is the scenario's name for the provider ("process", "netns").
	Name() string
	// Open makes what the nodes need around them before the first start
	// (namespaces, links, delays). On error it leaves nothing behind.
	Open(ctx context.Context) error
	// Start starts the nodes and returns once each was started; it does
	// not wait for blocks. Starting a node that runs is an error.
	Start(ctx context.Context, nodes ...*Node) error
	// Stop ends the nodes in order (SIGTERM, then SIGKILL after a
	// timeout). Stopping a node that does not run is not an error.
	Stop(ctx context.Context, nodes ...*Node) error
	// Endpoint is where the harness reaches n's services.
	Endpoint(n *Node) Endpoint
	// Exited reports whether n ended by itself (a crash, a kill from
	// outside) and with what error; ok is false while it runs, after the
	// harness stopped or killed it, and for a node never started.
	Exited(n *Node) (err error, ok bool)
	// Close ends every node and removes all that Open made.
	Close(ctx context.Context) error
}

// A Killer ends nodes at once, as a crash would; Start starts them again.
type Killer interface {
	Kill(ctx context.Context, nodes ...*Node) error
}

// A HomeKeeper says whether a node it starts again (after a kill or a
// stop) finds its home as it was: a process on its directory does; a pod
// does only with a persistent volume. Providers that are not HomeKeepers
// keep it.
type HomeKeeper interface {
	KeepsHome() bool
}

// KeepsHome says whether p's nodes keep their homes across a restart.
func KeepsHome(p Provider) bool {
	hk, ok := p.(HomeKeeper)
	return !ok || hk.KeepsHome()
}

// A Pauser freezes nodes (they keep their state but neither compute nor
// answer) and lets them go on.
type Pauser interface {
	Pause(ctx context.Context, nodes ...*Node) error
	Resume(ctx context.Context, nodes ...*Node) error
}

// A Disconnecter cuts nodes off the network (peers and harness alike) and
// connects them again.
type Disconnecter interface {
	Disconnect(ctx context.Context, nodes ...*Node) error
	Reconnect(ctx context.Context, nodes ...*Node) error
}

// A Partitioner splits the nodes into groups that cannot reach each other
// (the harness still reaches every node) and heals the split. Nodes in no
// group keep reaching everyone.
type Partitioner interface {
	Partition(ctx context.Context, groups [][]*Node) error
	Heal(ctx context.Context, groups [][]*Node) error
}

// A LatencyShaper changes the emulated delays between nodes while the
// testnet runs: ScaleLatency multiplies the delays of links that touch
// the given nodes (all links when none) by scale; RestoreLatency puts
// back the delays the testnet started with.
type LatencyShaper interface {
	ScaleLatency(ctx context.Context, scale float64, nodes ...*Node) error
	RestoreLatency(ctx context.Context) error
}

// A LoadSpreader runs load generators beside the nodes (generator pods):
// one per spec, each `chainperf generate` reading its spec, and returns
// each one's last line of output, in order. While they run, every other
// line a generator prints goes to live (nil: none), as it comes. A
// generator that dies or cannot start is an error that names it and says
// why.
type LoadSpreader interface {
	RunGenerators(ctx context.Context, specs [][]byte, live func(line []byte)) ([][]byte, error)
}

// A ProcessLister knows the OS process of each node, for the /proc sampler.
type ProcessLister interface {
	// PID is n's process ID, 0 when it does not run (or runs elsewhere).
	PID(n *Node) int
}

// A LogTailer keeps node logs outside the testnet dir (a pod's log) and
// gives the end of one: at most most bytes, for errors that must show why
// a node did not start.
type LogTailer interface {
	LogTail(ctx context.Context, n *Node, most int) ([]byte, error)
}

// A Fault is a kind of perturbation; the values are the scenario's
// perturbation kinds.
type Fault string

const (
	FaultKill       Fault = "kill"
	FaultRestart    Fault = "restart" // Stop, then Start: providers that own their nodes (Killers)
	FaultPause      Fault = "pause"
	FaultDisconnect Fault = "disconnect"
	FaultPartition  Fault = "partition"
	FaultLatency    Fault = "latency"
	// FaultUpgrade stops nodes one at a time and starts each on another
	// binary: providers that run node binaries as processes here.
	FaultUpgrade Fault = "upgrade"
)

// Faults lists every fault kind, in the order they are documented.
var Faults = []Fault{FaultKill, FaultRestart, FaultPause, FaultDisconnect, FaultPartition, FaultLatency, FaultUpgrade}

// Can reports whether provider p can do fault f.
func Can(p Provider, f Fault) bool {
	switch f {
	case FaultKill, FaultRestart:
		// A provider whose nodes are its own to end can also stop and
		// start them; one that only reaches someone else's nodes (whose
		// Stop and Start do nothing) can do neither.
		_, ok := p.(Killer)
		return ok
	case FaultPause:
		_, ok := p.(Pauser)
		return ok
	case FaultDisconnect:
		_, ok := p.(Disconnecter)
		return ok
	case FaultPartition:
		_, ok := p.(Partitioner)
		return ok
	case FaultLatency:
		_, ok := p.(LatencyShaper)
		return ok
	case FaultUpgrade:
		_, ok := p.(ProcessLister) // its nodes are processes of this machine, each started from a binary
		_, kills := p.(Killer)
		return ok && kills
	}
	return false
}
