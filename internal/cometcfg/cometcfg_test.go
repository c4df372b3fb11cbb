package cometcfg

import (
	"strings"
	"testing"
	"time"

	"github.com/cometbft/cometbft/config"
)

// Set takes each kind of value in the types TOML decoders give, and every
// wrong one is an error that says what was wanted.
func TestSet(t *testing.T) {
	for _, tc := range []struct {
		key   string
		value any
		err   string // "" : set
		check func(*config.Config) bool
	}{
		{"consensus.timeout_commit", "250ms", "", func(c *config.Config) bool { return c.Consensus.TimeoutCommit == 250*time.Millisecond }},
		{"mempool.size", int64(10000), "", func(c *config.Config) bool { return c.Mempool.Size == 10000 }},
		// A float with no fraction is an integer (some decoders give floats).
		{"mempool.size", float64(7000), "", func(c *config.Config) bool { return c.Mempool.Size == 7000 }},
		{"mempool.recheck", false, "", func(c *config.Config) bool { return !c.Mempool.Recheck }},
		{"mempool.size", 1.5, "want an integer", nil},
		{"mempool.size", "big", "want an integer", nil},
		{"consensus.timeout_commit", int64(5), "duration string", nil},
		{"consensus.timeout_commit", "5 parsecs", "is not a duration", nil},
		{"mempool.recheck", "yes", "want true or false", nil},
		// An unknown key names the closest known one.
		{"mempool.sise", int64(1), `did you mean "mempool.size"`, nil},
		// What chainperf sets for every node cannot be overridden.
		{"rpc.laddr", "tcp://0.0.0.0:1", "set by chainperf", nil},
		// Paths stay under the node's home, listeners on loopback.
		{"db_dir", "data2", "", func(c *config.Config) bool { return c.DBPath == "data2" }},
		{"db_dir", "/var/db", "a path outside the node's home", nil},
		{"consensus.wal_file", "../wal", "a path outside the node's home", nil},
		{"rpc.grpc_laddr", "tcp://127.0.0.1:9090", "", func(c *config.Config) bool { return c.RPC.GRPCListenAddress == "tcp://127.0.0.1:9090" }},
		{"rpc.grpc_laddr", "tcp://0.0.0.0:9090", "must bind a loopback address", nil},
	} {
		cfg := config.DefaultConfig()
		err := Set(cfg, tc.key, tc.value)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("Set(%s, %v) = %v", tc.key, tc.value, err)
		case tc.err == "" && !tc.check(cfg):
			t.Errorf("Set(%s, %v) did not take", tc.key, tc.value)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Set(%s, %v) = %v; want %q", tc.key, tc.value, err, tc.err)
		}
	}
}

// Keys lists dotted leaf keys, and every one of them can be found again.
func TestKeys(t *testing.T) {
	keys := Keys()
	if len(keys) < 50 {
		t.Fatalf("%d keys", len(keys))
	}
	for _, k := range []string{"consensus.timeout_commit", "mempool.size", "p2p.max_num_inbound_peers"} {
		found := false
		for _, x := range keys {
			found = found || x == k
		}
		if !found {
			t.Errorf("%s not in Keys", k)
		}
	}
}
