// Package testnet is the testnet model: nodes with roles, keys, addresses and
// ports, the files each node needs (genesis, config.toml, keys), the state
// file that records a running testnet, and the Provider interface that makes
// a testnet real. It starts no process itself.
package testnet

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/cometbft/cometbft/p2p"

	"github.com/chainperf/chainperf/internal/node"
	"github.com/chainperf/chainperf/internal/scenario"
)

// Role is what a node does in the testnet; the values are also the JSON and
// database values.
type Role string

const (
	RoleValidator Role = "validator"
	RoleFull      Role = "full"
	RoleSeed      Role = "seed"
	// RoleRotating nodes are full nodes the testnet sets up but does not
	// start: the rotate experiment starts each fresh, lets it block-sync
	// to the tip and stops it.
	RoleRotating Role = "rotating"
)

// PortsPerNode is how many ports one node listens on: p2p, rpc, metrics,
// pprof, an EVM chain's JSON-RPC over HTTP and WebSocket, an SDK app's
// REST gateway and gRPC server.
const PortsPerNode = 8

// Ports are the TCP ports one node listens on.
type Ports struct {
	P2P       int `json:"p2p"`
	RPC       int `json:"rpc"`
	Metrics   int `json:"metrics"`
	Pprof     int `json:"pprof"`
	JSONRPC   int `json:"json_rpc,omitempty"`
	JSONRPCWS int `json:"json_rpc_ws,omitempty"`
	API       int `json:"api,omitempty"`  // an SDK app's REST gateway, when it serves one
	GRPC      int `json:"grpc,omitempty"` // an SDK app's gRPC server, when it serves one
}

// All lists the ports.
func (p Ports) All() []int {
	return []int{p.P2P, p.RPC, p.Metrics, p.Pprof, p.JSONRPC, p.JSONRPCWS, p.API, p.GRPC}
}

// A Node is one node of a testnet.
type Node struct {
	Name  string `json:"name"` // validator0, full0, seed0
	Role  Role   `json:"role"`
	Power int64  `json:"power,omitempty"` // voting power; 0 for non-validators
	Host  string `json:"host"`            // address peers and the harness reach it at
	Ports Ports  `json:"ports"`
	Home  string `json:"home"`
	ID    string `json:"id"` // p2p node ID, hex of the node key's address
	// PID and Start identify the node's process while it runs (Start is the
	// process start time in clock ticks since boot, which guards against a
	// reused PID); both are zero when it does not run.
	PID   int    `json:"pid,omitempty"`
	Start uint64 `json:"start,omitempty"`
	// Version is the binary this node runs when it is not the testnet's
	// (a mixed network, or after an upgrade), as the scenario names it;
	// Exec is how that runs.
	Version string        `json:"version,omitempty"`
	Exec    scenario.Exec `json:"exec,omitempty"`
	// Config holds this node's own config.toml overrides, over the
	// testnet's (a state-sync join's trust height and hash).
	Config map[string]any `json:"config,omitempty"`

	nodeKey ed25519.PrivKey
	valKey  ed25519.PrivKey
}

// An Endpoint is where the harness reaches a node's services.
type Endpoint struct {
	RPC     string // http://host:port
	Metrics string // http://host:port/metrics
	Pprof   string // http://host:port/debug/pprof
	P2P     string // id@host:port
}

// Endpoint returns the URLs of n's services.
func (n *Node) Endpoint() Endpoint {
	hp := func(p int) string { return net.JoinHostPort(n.Host, strconv.Itoa(p)) }
	return Endpoint{
		RPC:     "http://" + hp(n.Ports.RPC),
		Metrics: "http://" + hp(n.Ports.Metrics) + "/metrics",
		Pprof:   "http://" + hp(n.Ports.Pprof) + "/debug/pprof",
		P2P:     n.ID + "@" + hp(n.Ports.P2P),
	}
}

// A Testnet is the resolved model of one testnet: deterministic names and
// keys (seeded by chain ID and node name), addresses and ports.
type Testnet struct {
	ID      string         `json:"id"` // unique per testnet, e.g. "tn-3f9a1c"
	ChainID string         `json:"chain_id"`
	Dir     string         `json:"dir"`
	Binary  string         `json:"binary,omitempty"` // "" for the embedded node
	Args    []string       `json:"args,omitempty"`
	Config  map[string]any `json:"config,omitempty"`
	Nodes   []*Node        `json:"nodes"`
	// Network is set when the nodes are emulated hosts in network
	// namespaces (the netns provider); node i lives in Network.Namespace(i).
	Network *Network `json:"network,omitempty"`
	// Provider is the scenario's provider name ("process", "netns").
	Provider string `json:"provider,omitempty"`
	// Profiling turns on the mutex and block profiles in every node.
	Profiling node.Profiling `json:"profiling,omitempty"`
	// Scale lists the parts of the scale profile in force (scale.go).
	Scale []string `json:"scale,omitempty"`
	// NodeNice is how much lower than the harness's the nodes' priority
	// is (process and netns: they start under `nice -n NodeNice`).
	NodeNice int `json:"node_nice,omitempty"`
	// DialPeers is set by a provider that learns the nodes' addresses only
	// once they run (kubernetes: pod IPs): configs name no peers and allow
	// the unsafe RPC, through which the provider dials each node's peers
	// (PeerAddresses) after it starts.
	DialPeers bool `json:"dial_peers,omitempty"`
	// Cluster is set when the nodes are pods (the kubernetes provider):
	// where they are, so that down and clean find them without the scenario.
	Cluster *Cluster         `json:"cluster,omitempty"`
	spec    scenario.Testnet // what it was made from
	base    int              // first port
	// chainConfig: the nodes' config.toml is made from their chain's own
	// default (UseConfigOf).
	chainConfig bool
}

// A Cluster is where a testnet's pods run: the kubeconfig and context
// that reach it and the namespace. OwnNamespace says the namespace is the
// testnet's own (ClusterNamespace of its ID), deleted whole at the end;
// in a given namespace only objects with the testnet's label are deleted.
type Cluster struct {
	Kubeconfig   string `json:"kubeconfig,omitempty"`
	Context      string `json:"context,omitempty"`
	Namespace    string `json:"namespace"`
	OwnNamespace bool   `json:"own_namespace"`
}

// ClusterNamespace is the namespace chainperf makes for testnet id.
func ClusterNamespace(id string) string { return "chainperf-" + strings.TrimPrefix(id, "tn-") }

// NewID returns a fresh testnet ID.
func NewID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return "tn-" + hex.EncodeToString(b)
}

// New resolves a scenario's testnet section into a model whose nodes listen
// on host, ports from basePort up, with homes under dir.
func New(spec scenario.Testnet, id, dir, host string, basePort int) *Testnet {
	t := &Testnet{ID: id, ChainID: spec.ChainID, Provider: spec.Provider, Dir: dir, Binary: spec.Binary, Args: spec.Args, Config: spec.Config, spec: spec, base: basePort}
	t.add(RoleSeed, "seed", spec.Seeds, host)
	t.add(RoleValidator, "validator", spec.Validators, host)
	t.add(RoleFull, "full", spec.FullNodes, host)
	t.Scale = spec.ScaleProfileParts()
	t.NodeNice = spec.NodeNice
	for name, i := range spec.VersionOf() {
		if n := t.Node(name); n != nil {
			n.Run(spec.Versions[i].Binary, spec.Versions[i].Exec)
		}
	}
	return t
}

// Run makes n run the binary version (as the scenario names it) from
// its next start on, on the same home.
func (n *Node) Run(version string, e scenario.Exec) {
	n.Version, n.Exec = version, e
}

// Exec is the binary n runs and its arguments: its own version's, else
// the testnet's; "" runs the embedded node.
func (t *Testnet) Exec(n *Node) (binary string, args []string) {
	if n.Version != "" {
		return n.Exec.Path, n.Exec.Args
	}
	return t.Binary, t.Args
}

// VersionOf says what n runs, for the run record: its version, the
// testnet's binary, or the embedded node.
func (t *Testnet) VersionOf(n *Node) string {
	app, isApp := t.spec.Application()
	switch {
	case n.Version != "":
		return n.Version
	case t.spec.AppLabel != "":
		return t.spec.AppLabel
	case isApp && *app.Binary != "":
		return *app.Binary
	case isApp:
		return app.TestChain
	case t.spec.Binary != "":
		return t.spec.Binary
	}
	return scenario.EmbeddedBinary
}

// AddRotating adds n rotating full nodes (rotate0, ...) after the others.
// Call it before ports are allocated and Setup: they count in PortCount.
func (t *Testnet) AddRotating(n int) {
	host := "127.0.0.1"
	if len(t.Nodes) > 0 {
		host = t.Nodes[0].Host
	}
	t.add(RoleRotating, "rotate", n, host)
}

// add appends count nodes of a role, with keys seeded by chain ID and name
// and the next ports of the testnet's block.
func (t *Testnet) add(role Role, prefix string, count int, host string) {
	for i := 0; i < count; i++ {
		n := &Node{Name: fmt.Sprintf("%s%d", prefix, i), Role: role, Host: host}
		if role == RoleValidator {
			n.Power = 10
			if len(t.spec.Powers) == count {
				n.Power = t.spec.Powers[i]
			}
			n.valKey = ed25519.GenPrivKeyFromSecret([]byte(t.ChainID + "/validator/" + n.Name))
		}
		n.nodeKey = ed25519.GenPrivKeyFromSecret([]byte(t.ChainID + "/node/" + n.Name))
		n.ID = string(p2p.PubKeyToID(n.nodeKey.PubKey()))
		p := t.base + len(t.Nodes)*PortsPerNode
		n.Ports = Ports{P2P: p, RPC: p + 1, Metrics: p + 2, Pprof: p + 3, JSONRPC: p + 4, JSONRPCWS: p + 5, API: p + 6, GRPC: p + 7}
		n.Home = fmt.Sprintf("%s/%s", strings.TrimRight(t.Dir, "/"), n.Name)
		t.Nodes = append(t.Nodes, n)
	}
}

// Index returns n's place in t.Nodes (its namespace number), or -1.
func (t *Testnet) Index(n *Node) int {
	for i, x := range t.Nodes {
		if x == n || x.Name == n.Name {
			return i
		}
	}
	return -1
}

// Standing returns the nodes that run for the testnet's whole life: every
// node but the rotating ones.
func (t *Testnet) Standing() []*Node {
	var out []*Node
	for _, n := range t.Nodes {
		if n.Role != RoleRotating {
			out = append(out, n)
		}
	}
	return out
}

// PortCount is how many consecutive ports the testnet needs.
func (t *Testnet) PortCount() int { return len(t.Nodes) * PortsPerNode }

// Node returns the node called name, or nil.
func (t *Testnet) Node(name string) *Node {
	for _, n := range t.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// ByRole returns the nodes with role r, in order.
func (t *Testnet) ByRole(r Role) []*Node {
	var out []*Node
	for _, n := range t.Nodes {
		if n.Role == r {
			out = append(out, n)
		}
	}
	return out
}

// RPCNodes returns the nodes that receive load: the full nodes, or the
// validators when the testnet has no full node.
func (t *Testnet) RPCNodes() []*Node {
	if full := t.ByRole(RoleFull); len(full) > 0 {
		return full
	}
	return t.ByRole(RoleValidator)
}

// NewExternal resolves the listed nodes of a network that already runs:
// names and roles only (no keys, homes or ports: chainperf made none).
func NewExternal(spec scenario.Testnet, id string) *Testnet {
	t := &Testnet{ID: id, ChainID: spec.ChainID, Provider: spec.Provider, spec: spec}
	for i, name := range spec.ExternalNames() {
		n := spec.Nodes[i]
		t.Nodes = append(t.Nodes, &Node{Name: name, Role: Role(n.Role)})
	}
	return t
}
