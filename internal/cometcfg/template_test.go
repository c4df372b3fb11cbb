package cometcfg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// A trimmed v1.0.1 default config.toml (its own init wrote the original).
const v1Config = `version = "1.0.1"
proxy_app = "tcp://127.0.0.1:26658"
moniker = "vm"
db_backend = "pebbledb"

[rpc]
laddr = "tcp://127.0.0.1:26657"
cors_allowed_origins = []
pprof_laddr = ""

[grpc]
laddr = ""

[p2p]
laddr = "tcp://0.0.0.0:26656"
persistent_peers = ""
send_rate = 5120000

[mempool]
size = 5000
recheck_timeout = "1s"

[consensus]
timeout_commit = "1s"

[storage]
compact = false
compaction_interval = "1000"

[storage.pruning]
interval = "10s"
`

func template(t *testing.T) *Template {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(v1Config), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl, err := ReadTemplate(p, "cometbft 1.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// Overrides are checked against the version's own keys and types; the
// keys chainperf owns are refused; harness settings reach the output.
func TestTemplateChecksAgainstTheVersion(t *testing.T) {
	for _, c := range []struct {
		key   string
		value any
		err   string
	}{
		{"storage.compact", true, ""},
		{"storage.pruning.interval", "30s", ""},
		{"mempool.size", int64(10000), ""},
		{"mempool.size", 1e4, ""},
		{"rpc.cors_allowed_origins", []any{"*"}, ""},
		{"consensus.timeout_commit", "soon", "not a duration"},
		{"storage.compact", "yes", "want true or false"},
		{"mempool.size", "big", "want an integer"},
		{"mempool.size", 1.5, "want an integer"},
		{"storage.compactt", true, `did you mean "storage.compact"`},
		{"storage", true, "has no config key"},
		{"blocksync.version", "v0", `cometbft 1.0.1 has no config key "blocksync.version"`},
		{"p2p.laddr", "tcp://127.0.0.1:1", "set by chainperf"},
		{"grpc.laddr", "tcp://127.0.0.1:9090", ""},
		{"grpc.laddr", "tcp://0.0.0.0:9090", "must bind a loopback address"},
		{"rpc.cors_allowed_origins", []any{1}, "item 1: want a string"},
	} {
		err := template(t).Set(c.key, c.value)
		if c.err == "" && err != nil {
			t.Errorf("%s = %v: %v", c.key, c.value, err)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s = %v: error %v; want %q", c.key, c.value, err, c.err)
		}
	}
	tmpl := template(t)
	// The harness's own addresses are an emulated host's on the netns
	// provider: not a user's listener, not held to loopback.
	if err := tmpl.SetHarness("p2p.laddr", "tcp://10.200.0.2:26656"); err != nil {
		t.Fatal(err)
	}
	if err := tmpl.SetHarness("p2p.laddr", "tcp://127.0.0.1:26000"); err != nil {
		t.Fatal(err)
	}
	if err := tmpl.SetHarness("p2p.no_such_key", "x"); err == nil {
		t.Error("a harness key the version lacks was accepted")
	}
	if err := tmpl.Set("storage.compact", true); err != nil {
		t.Fatal(err)
	}
	b, err := tmpl.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := toml.Unmarshal(b, &back); err != nil {
		t.Fatalf("output is not TOML: %v\n%s", err, b)
	}
	p2p, storage := back["p2p"].(map[string]any), back["storage"].(map[string]any)
	if p2p["laddr"] != "tcp://127.0.0.1:26000" || storage["compact"] != true || back["version"] != "1.0.1" ||
		storage["pruning"].(map[string]any)["interval"] != "10s" {
		t.Errorf("written config lost a value:\n%s", b)
	}
}
