package evm

import (
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/scenario"
)

// testnet.evm.pool_reads on a testnet of chainperf's with the app
// mempool is taken as given, and off by default (the refusals are in
// TestExternalScenario's table).
func TestEVMPoolReads(t *testing.T) {
	for text, want := range map[string]time.Duration{
		"[testnet]\nchain = \"evm\"\n[testnet.evm]\npool_reads = \"500ms\"\n[workload]\nkind = \"evm-transfer\"\n": 500 * time.Millisecond,
		"[testnet]\nchain = \"evm\"\n[workload]\nkind = \"evm-transfer\"\n":                                        0,
	} {
		s, err := scenario.Parse("e.toml", []byte(text))
		if err != nil || Of(s.Testnet).PoolReads.D() != want {
			t.Errorf("%q: %v, %v; want %v", text, Of(s.Testnet).PoolReads, err, want)
		}
	}
}
