package testnet

import (
	"slices"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/scenario"
)

// Under the profile each validator dials its circulant successors (a
// connected graph, no node dialled twice, each with 2*log2(N) peers at
// most counting both directions), full nodes dial as many validators,
// peer exchange is off, and [testnet.config] still wins over the
// profile's settings. Without it the mesh is full.
func TestScaledPeersAndConfig(t *testing.T) {
	const vals = 50
	tn := New(spec(t, "[testnet]\nvalidators = 50\nfull_nodes = 2\n[testnet.config]\n\"consensus.timeout_propose\" = \"7s\"\n"), "tn-1", "/d", "127.0.0.1", 1000)
	if !slices.Equal(tn.Scale, scenario.ScaleParts) {
		t.Fatalf("scale parts %v; want all of %v for 50 validators", tn.Scale, scenario.ScaleParts)
	}
	degree := map[string]int{}
	edges := map[[2]string]bool{}
	adj := map[string][]string{}
	for _, n := range tn.Nodes {
		cfg, err := tn.NodeConfig(n)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.P2P.PexReactor || cfg.P2P.MaxNumInboundPeers < len(tn.Nodes) || cfg.P2P.MaxNumOutboundPeers != 10 {
			t.Errorf("%s: pex %v, inbound %d, outbound %d; want pex off, room for every node, the graph's degree (10) out",
				n.Name, cfg.P2P.PexReactor, cfg.P2P.MaxNumInboundPeers, cfg.P2P.MaxNumOutboundPeers)
		}
		if cfg.Consensus.TimeoutPropose.String() != "7s" || cfg.Consensus.TimeoutPrevote.String() != "2s" || cfg.LogLevel != "error" {
			t.Errorf("%s: propose %s prevote %s log %q; want the scenario's 7s over the profile's 10s, and the profile's 2s and error",
				n.Name, cfg.Consensus.TimeoutPropose, cfg.Consensus.TimeoutPrevote, cfg.LogLevel)
		}
		if m := cfg.Mempool; m.ExperimentalMaxGossipConnectionsToPersistentPeers != gossipPeers || m.ExperimentalMaxGossipConnectionsToNonPersistentPeers != gossipPeers {
			t.Errorf("%s relays txs to %d dialled and %d dialling peers; want %d of each", n.Name,
				m.ExperimentalMaxGossipConnectionsToPersistentPeers, m.ExperimentalMaxGossipConnectionsToNonPersistentPeers, gossipPeers)
		}
		for _, addr := range strings.Split(cfg.P2P.PersistentPeers, ",") {
			id := strings.SplitN(addr, "@", 2)[0]
			var peer *Node
			for _, p := range tn.Nodes {
				if p.ID == id {
					peer = p
				}
			}
			if peer == nil || peer == n || peer.Role != RoleValidator {
				t.Fatalf("%s dials %q: not another validator", n.Name, addr)
			}
			e := [2]string{min(n.Name, peer.Name), max(n.Name, peer.Name)}
			if edges[e] {
				t.Errorf("%s and %s dial each other twice", e[0], e[1])
			}
			edges[e] = true
			degree[n.Name]++
			degree[peer.Name]++
			adj[n.Name] = append(adj[n.Name], peer.Name)
			adj[peer.Name] = append(adj[peer.Name], n.Name)
		}
	}
	for name, d := range degree {
		if d > 2*6+2 { // 2*log2(50) rounded up, and a full node or two
			t.Errorf("%s has %d peers", name, d)
		}
	}
	seen := map[string]bool{"validator0": true}
	for queue := []string{"validator0"}; len(queue) > 0; queue = queue[1:] {
		for _, p := range adj[queue[0]] {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	if len(seen) != vals+2 {
		t.Errorf("the graph reaches %d of %d nodes from validator0", len(seen), vals+2)
	}
	if env := tn.NodeEnv(); !slices.Equal(env, []string{"GOMAXPROCS=1"}) {
		t.Errorf("node env %v; want GOMAXPROCS=1", env)
	}

	off := New(spec(t, "[testnet]\nvalidators = 50\nscale_profile = \"off\"\n"), "tn-2", "/d", "127.0.0.1", 1000)
	cfg, err := off.NodeConfig(off.Nodes[0])
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Split(cfg.P2P.PersistentPeers, ",")); n != vals-1 || !cfg.P2P.PexReactor || off.NodeEnv() != nil ||
		cfg.Mempool.ExperimentalMaxGossipConnectionsToPersistentPeers != 0 {
		t.Errorf("profile off: %d peers, pex %v, env %v, txs relayed to %d dialled peers; want a full mesh of %d, pex on, no env, all peers (0)",
			n, cfg.P2P.PexReactor, off.NodeEnv(), cfg.Mempool.ExperimentalMaxGossipConnectionsToPersistentPeers, vals-1)
	}
}

// With seed nodes peer exchange stays on under the profile: finding peers
// through them is what they are for.
func TestScaledKeepsPexForSeeds(t *testing.T) {
	tn := New(spec(t, "[testnet]\nvalidators = 20\nseeds = 1\n"), "tn-1", "/d", "127.0.0.1", 1000)
	for _, n := range tn.Nodes {
		cfg, err := tn.NodeConfig(n)
		if err != nil {
			t.Fatal(err)
		}
		if !cfg.P2P.PexReactor {
			t.Errorf("%s: pex off in a testnet with a seed", n.Name)
		}
	}
}
