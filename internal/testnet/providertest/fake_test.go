package providertest

import (
	"context"
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

// A 2|2 split of the validators halts the fake chain only when no node
// outside the sides relays the votes (as CometBFT's gossip would).
func TestFakePartitionNeedsNoBridge(t *testing.T) {
	for _, tc := range []struct {
		name  string
		full  bool // the full node on a side
		halts bool
	}{{"full node outside relays", false, false}, {"full node on a side", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakeSubject(t)
			f, tn := s.Provider.(*Fake), s.Testnet
			ctx := context.Background()
			if err := f.Open(ctx); err != nil {
				t.Fatal(err)
			}
			defer f.Close(ctx)
			if err := f.Start(ctx, tn.Standing()...); err != nil {
				t.Fatal(err)
			}
			val := tn.ByRole(testnet.RoleValidator)
			side := []*testnet.Node{val[0], val[1]}
			if tc.full {
				side = append(side, tn.Node("full0"))
			}
			_ = f.Partition(ctx, [][]*testnet.Node{side, val[2:]})
			h0 := f.Height()
			time.Sleep(300 * time.Millisecond)
			if halted := f.Height() == h0; halted != tc.halts {
				t.Errorf("height %d -> %d; halted %v, want %v", h0, f.Height(), halted, tc.halts)
			}
		})
	}
}
