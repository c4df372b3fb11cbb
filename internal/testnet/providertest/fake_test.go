package providertest

import (
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// FakeSubject is a fake provider over a 4-validator, 1-full-node testnet.
func fakeSubject(t *testing.T) Subject {
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 4\nfull_nodes = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	tn := testnet.New(s.Testnet, testnet.NewID(), t.TempDir(), "127.0.0.1", 0)
	return Subject{Provider: New(tn, Config{Interval: 50 * time.Millisecond}), Testnet: tn, Patience: 2 * time.Second, Block: 50 * time.Millisecond}
}

// The fake passes the checks every provider passes.
func TestFakeConformance(t *testing.T) { Conformance(t, fakeSubject(t)) }
