package chain

import (
	"context"
	"log/slog"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// KVStore is CometBFT's kvstore app: the embedded node (or the scenario's
// binary), homes as the testnet writes them, a fresh kvstore workload each
// phase (a replay goes on through the phases) and nothing to check after
// (no Checker: the ledger already matched every tx).
type KVStore struct{ w scenario.Workload }

var _ Adapter = KVStore{}

func newKVStore(_ context.Context, s *scenario.Scenario, _ *slog.Logger) (Adapter, error) {
	return KVStore{w: s.Workload}, nil
}

// Prepare has nothing to add to the homes.
func (KVStore) Prepare(context.Context, *testnet.Testnet) error { return nil }

// Workload is a replay's, read once; else nil: each phase makes its own
// from [workload].
func (k KVStore) Workload(context.Context, []string, *results.Run) (load.Workload, error) {
	if k.w.Kind == "replay" {
		return load.ReadReplay(k.w.ReplayFile)
	}
	return nil, nil
}
