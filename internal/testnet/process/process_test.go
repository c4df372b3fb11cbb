package process_test

import (
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet/process"
	"github.com/chainperf/chainperf/internal/testnet/providertest"
)

// The process provider passes the checks every provider passes, on real
// CometBFT nodes (the chainperf binary re-executed as `chainperf node`).
func TestProcessConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("real nodes")
	}
	exe := providertest.Chainperf(t)
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 4\nfull_nodes = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	tn := providertest.Testnet(t, s.Testnet)
	p := process.New(tn, exe)
	providertest.Setup(t, tn)
	providertest.Conformance(t, providertest.Subject{Provider: p, Testnet: tn, Patience: 30 * time.Second, Block: 1300 * time.Millisecond,
		Gone: func(t *testing.T) { providertest.NoProcessUnder(t, tn.Dir) }})
}
