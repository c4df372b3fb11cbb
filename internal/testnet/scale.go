package testnet

import "slices"

// The scale profile: what chainperf changes when a testnet grows past what
// a full mesh of nodes sharing a few cores holds (bench/netns-scale.sh
// measures each part; README "Many nodes on one machine"). Each part can be
// named on its own in testnet.scale_profile (scenario.ScaleParts, which
// also says when "auto" applies them).
const (
	// ScalePeers: validators peer in a circulant graph (offsets 1, 2, 4,
	// ... below half the validators) instead of a full mesh, and peer
	// exchange is off so the graph stays as made. A node's CPU and memory
	// grow with its peers: 50 nodes in a full mesh each held 49 peers, the
	// graph gives each 2*log2(N) at most, with a diameter of about log2(N).
	ScalePeers = "peers"
	// ScaleProcs: each node process runs with GOMAXPROCS=1, so N nodes on
	// a few cores do not each run as many OS threads as there are cores.
	ScaleProcs = "procs"
	// ScaleLog: nodes log errors only (CometBFT logs several lines a
	// height for each node at info).
	ScaleLog = "log"
	// ScaleTimeouts: longer consensus timeouts (propose 10 s, prevote and
	// precommit 2 s). Through a graph a block's parts take several hops:
	// at 50 validators under 20 tx/s the median node had the whole
	// proposal 5.6-6.9 s after the first one (the slowest 9-18 s), past
	// the 3 s default, and prevoted nil.
	ScaleTimeouts = "timeouts"
	// ScaleGossip: a node relays txs to gossipPeers of the peers it dialled
	// and as many of those that dialled it (CometBFT's
	// mempool.experimental_max_gossip_connections_to_*), not to all of
	// them: 4 of ~10 peers' messages. At 50 validators under 20 tx/s the
	// relayed txs took the cores that consensus needed (7.2 s intervals;
	// 4.7 s with this part, every height in round 0), and the txs still
	// reached the proposers (see gossipPeers).
	ScaleGossip = "gossip"
)

// gossipPeers is how many peers of each kind (dialled, dialling) a node
// relays txs to under ScaleGossip. At 50 validators, leaving out each
// run's first block: with 1 of each, 6 of 14 and 10 of 17 blocks carried
// no tx (their proposers never had one); with 2, 1 of 11
// (bench/netns-scale.sh, README "The gossip part").
const gossipPeers = 2

// Scaled says whether the testnet applies part of the scale profile.
func (t *Testnet) Scaled(part string) bool { return slices.Contains(t.Scale, part) }

// circulantOffsets are the offsets 1, 2, 4, ... below n/2: validator i
// dials i+o (mod n) for each, and is dialled by i-o.
func circulantOffsets(n int) []int {
	var out []int
	for o := 1; 2*o < n; o *= 2 {
		out = append(out, o)
	}
	return out
}

// scaledPeers returns the nodes n dials under the scale profile: a
// validator its circulant successors, a full or rotating node as many
// validators spread evenly over the set (its index shifts the choice so
// full nodes do not all pick the same ones).
func (t *Testnet) scaledPeers(n *Node) []*Node {
	vals := t.ByRole(RoleValidator)
	offsets := circulantOffsets(len(vals))
	if len(offsets) == 0 {
		return vals
	}
	i := slices.Index(vals, n)
	var out []*Node
	if i >= 0 {
		for _, o := range offsets {
			out = append(out, vals[(i+o)%len(vals)])
		}
		return out
	}
	k := 2 * len(offsets)
	shift := t.Index(n)
	for j := 0; j < k; j++ {
		out = append(out, vals[(shift+j*len(vals)/k)%len(vals)])
	}
	return out
}

// scaleConfig is the profile's node config, set before the scenario's own
// [testnet.config] (which wins).
func (t *Testnet) scaleConfig() map[string]any {
	out := map[string]any{}
	if t.Scaled(ScalePeers) {
		// Peer exchange would dial more peers than the graph's; with seed
		// nodes it stays on, as finding peers through them is what seeds
		// are for (outbound peers stay capped).
		if len(t.ByRole(RoleSeed)) == 0 {
			out["p2p.pex"] = false
		}
		// Every node may dial this one (CometBFT's default of 40 inbound
		// would refuse dialers past it); peer exchange, where it stays on,
		// dials no more than the graph's degree.
		out["p2p.max_num_inbound_peers"] = int64(len(t.Nodes))
		out["p2p.max_num_outbound_peers"] = int64(max(1, 2*len(circulantOffsets(len(t.ByRole(RoleValidator))))))
	}
	if t.Scaled(ScaleLog) {
		out["log_level"] = "error"
	}
	if t.Scaled(ScaleTimeouts) {
		out["consensus.timeout_propose"] = "10s"
		out["consensus.timeout_prevote"] = "2s"
		out["consensus.timeout_precommit"] = "2s"
	}
	if t.Scaled(ScaleGossip) {
		out["mempool.experimental_max_gossip_connections_to_persistent_peers"] = int64(gossipPeers)
		out["mempool.experimental_max_gossip_connections_to_non_persistent_peers"] = int64(gossipPeers)
	}
	return out
}

// NodeEnv is the environment the profile adds to each node process.
func (t *Testnet) NodeEnv() []string {
	if t.Scaled(ScaleProcs) {
		return []string{"GOMAXPROCS=1"}
	}
	return nil
}
