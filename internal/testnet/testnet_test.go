package testnet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/chainperf/chainperf/internal/scenario"
)

func spec(t *testing.T, text string) scenario.Testnet {
	t.Helper()
	s, err := scenario.Parse("t.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s.Testnet
}

// The model is deterministic: names by role, four ports a node in order,
// keys (and so node IDs) from chain ID and name; a different chain ID
// gives different keys.
func TestModelIsDeterministic(t *testing.T) {
	sp := spec(t, "[testnet]\nvalidators = 3\nfull_nodes = 1\nseeds = 1\n")
	a := New(sp, "tn-aaaaaa", "/tmp/x", "127.0.0.1", 30000)
	b := New(sp, "tn-bbbbbb", "/tmp/y", "127.0.0.1", 30000)
	var names []string
	for i, n := range a.Nodes {
		names = append(names, n.Name)
		if n.ID != b.Nodes[i].ID {
			t.Errorf("%s: node ID %s then %s; want the same keys", n.Name, n.ID, b.Nodes[i].ID)
		}
		if p := 30000 + 8*i; n.Ports != (Ports{P2P: p, RPC: p + 1, Metrics: p + 2, Pprof: p + 3, JSONRPC: p + 4, JSONRPCWS: p + 5, API: p + 6, GRPC: p + 7}) {
			t.Errorf("%s: ports %+v; want from %d", n.Name, n.Ports, p)
		}
	}
	if got := strings.Join(names, ","); got != "seed0,validator0,validator1,validator2,full0" {
		t.Errorf("nodes %s", got)
	}
	sp.ChainID = "other"
	if c := New(sp, "tn-cccccc", "/tmp/z", "127.0.0.1", 30000); c.Nodes[1].ID == a.Nodes[1].ID {
		t.Error("another chain ID gave the same node key")
	}
	if a.PortCount() != 40 {
		t.Errorf("PortCount = %d; want 40", a.PortCount())
	}
}

// Load goes to the full nodes, or to the validators when there is none;
// rotating nodes are not standing.
func TestRolesAndRotating(t *testing.T) {
	a := New(spec(t, "[testnet]\nvalidators = 2\nfull_nodes = 1\n"), "tn-1", "/d", "127.0.0.1", 1000)
	if r := a.RPCNodes(); len(r) != 1 || r[0].Name != "full0" {
		t.Errorf("RPCNodes = %v; want full0", r)
	}
	b := New(spec(t, "[testnet]\nvalidators = 2\nfull_nodes = 0\n"), "tn-2", "/d", "127.0.0.1", 1000)
	if r := b.RPCNodes(); len(r) != 2 || r[0].Role != RoleValidator {
		t.Errorf("RPCNodes without full nodes = %v; want the validators", r)
	}
	b.AddRotating(2)
	if len(b.Nodes) != 4 || len(b.Standing()) != 2 || b.Node("rotate1") == nil || b.Index(b.Node("rotate1")) != 3 {
		t.Errorf("nodes %d, standing %d; want 4 and 2, rotate1 at 3", len(b.Nodes), len(b.Standing()))
	}
	if b.Node("nope") != nil || b.Index(&Node{Name: "nope"}) != -1 {
		t.Error("an unknown node was found")
	}
}

// Validators peer with every other validator, full nodes with every
// validator, seeds with none; powers come from the scenario.
func TestPeersAndPowers(t *testing.T) {
	tn := New(spec(t, "[testnet]\nvalidators = 3\nfull_nodes = 1\nseeds = 1\npowers = [5, 6, 7]\n"), "tn-1", "/d", "127.0.0.1", 1000)
	for _, tc := range []struct {
		node  string
		peers int
	}{{"validator0", 2}, {"full0", 3}, {"seed0", 0}} {
		n := tn.Node(tc.node)
		cfg, err := tn.NodeConfig(n)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if cfg.P2P.PersistentPeers != "" {
			got = len(strings.Split(cfg.P2P.PersistentPeers, ","))
		}
		if got != tc.peers || strings.Contains(cfg.P2P.PersistentPeers, n.ID) {
			t.Errorf("%s: peers %q; want %d others", tc.node, cfg.P2P.PersistentPeers, tc.peers)
		}
		if cfg.P2P.SeedMode != (n.Role == RoleSeed) {
			t.Errorf("%s: seed mode %v", tc.node, cfg.P2P.SeedMode)
		}
	}
	if p := tn.Node("validator2").Power; p != 7 {
		t.Errorf("validator2 power %d; want 7", p)
	}
}

// Setup writes every home; a dir that holds another testnet's state is
// refused with the command that frees it; the state reads back.
func TestSetupAndState(t *testing.T) {
	t.Setenv("CHAINPERF_REGISTRY", t.TempDir())
	dir := t.TempDir()
	tn := New(spec(t, "[testnet]\nvalidators = 2\nfull_nodes = 1\n[testnet.config]\n\"consensus.timeout_commit\" = \"500ms\"\n"), "tn-abcdef", dir, "127.0.0.1", 40000)
	if err := tn.Setup(); err != nil {
		t.Fatal(err)
	}
	for _, n := range tn.Nodes {
		for _, f := range []string{"config/config.toml", "config/genesis.json", "config/node_key.json", "config/priv_validator_key.json"} {
			if _, err := os.Stat(filepath.Join(n.Home, f)); err != nil {
				t.Errorf("%s: %v", n.Name, err)
			}
		}
	}
	data, _ := os.ReadFile(filepath.Join(tn.Node("validator0").Home, "config/config.toml"))
	if !strings.Contains(string(data), `timeout_commit = "500ms"`) {
		t.Error("the scenario's config override is not in config.toml")
	}
	st := &State{Testnet: tn}
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	back, err := ReadState(dir)
	if err != nil || back.ID != "tn-abcdef" || len(back.Nodes) != 3 {
		t.Fatalf("ReadState = %+v, %v", back, err)
	}
	if err := CheckDir(dir); err == nil || !strings.Contains(err.Error(), "chainperf testnet down --dir") {
		t.Errorf("CheckDir of a dir with a testnet = %v; want it refused", err)
	}
	if reg, _ := Registered(); len(reg) != 1 {
		t.Errorf("registry holds %d; want 1", len(reg))
	}
	st.Forget()
	if _, err := ReadState(dir); err == nil {
		t.Error("the state is still there after Forget")
	}
	if err := os.WriteFile(filepath.Join(dir, StateFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadState(dir); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged state = %v; want it named damaged", err)
	}
}

// An emulated network's names fit Linux's 15-character limit and carry
// the testnet's ID; addresses start at .2.
func TestNetworkNames(t *testing.T) {
	nw := Network{Tag: NetworkTag("tn-3f9a1c")}
	if nw.Tag != "cp3f9a1c" || len(nw.HostLink(199)) > 15 || nw.Namespace(4) != "cp3f9a1c-4" {
		t.Errorf("tag %s, link %s, namespace %s", nw.Tag, nw.HostLink(199), nw.Namespace(4))
	}
}

// A chain whose CometBFT is not chainperf's (a Cosmos EVM v0.7 chain runs
// v0.39) gets configs made from that version's default (here the one
// chainperf-evmd's init wrote): its keys and values are set and checked
// (mempool.type "app", which chainperf's v0.38 refuses), the harness's
// addresses go in, and the consensus timeouts are CometBFT's defaults,
// not the 5 s timeout_commit the chain's init wrote.
func TestUseConfigOf(t *testing.T) {
	tn := New(spec(t, "[testnet]\nvalidators = 2\nfull_nodes = 0\n"), "tn-1", t.TempDir(), "127.0.0.1", 1000)
	tn.UseConfigOf(filepath.Join("testdata", "cometbft-v0.39.3-config.toml"))
	n := tn.Nodes[0]
	if err := os.MkdirAll(filepath.Join(n.Home, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(config map[string]any) (string, error) {
		tn.Config = config
		if err := tn.WriteConfig(n); err != nil {
			return "", err
		}
		b, err := os.ReadFile(filepath.Join(n.Home, "config", "config.toml"))
		return string(b), err
	}
	got, err := write(map[string]any{"mempool.type": "app"})
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Moniker string
		RPC     struct{ Laddr string }
		P2P     struct {
			PersistentPeers string `toml:"persistent_peers"`
		}
		Mempool struct {
			Type         string
			ReapInterval string `toml:"reap_interval"`
		}
		Consensus struct {
			TimeoutCommit string `toml:"timeout_commit"`
		}
	}
	if err := toml.Unmarshal([]byte(got), &c); err != nil {
		t.Fatal(err)
	}
	if c.Mempool.Type != "app" || c.Mempool.ReapInterval != "500ms" || c.Consensus.TimeoutCommit != "1s" || c.Moniker != "validator0" ||
		c.RPC.Laddr != "tcp://127.0.0.1:1001" || !strings.HasPrefix(c.P2P.PersistentPeers, tn.Nodes[1].ID+"@") {
		t.Errorf("config.toml: %+v; want mempool type app, reap_interval kept, timeout_commit 1s, the harness's moniker, RPC and peers", c)
	}
	// A key v0.39 does not have, or a value of the wrong type, names it.
	if _, err := write(map[string]any{"mempool.recheck_timeout_nope": "1s"}); err == nil || !strings.Contains(err.Error(), "recheck_timeout_nope") {
		t.Errorf("an unknown key: %v", err)
	}
	if _, err := write(map[string]any{"mempool.size": "big"}); err == nil || !strings.Contains(err.Error(), "mempool.size") {
		t.Errorf("a string for a number: %v", err)
	}
}
