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
// phase and nothing to check after (no Checker: the ledger already matched
// every tx).
type KVStore struct{}

var _ Adapter = KVStore{}

func newKVStore(context.Context, *scenario.Scenario, *slog.Logger) (Adapter, error) {
	return KVStore{}, nil
}

// Prepare has nothing to add to the homes.
func (KVStore) Prepare(context.Context, *testnet.Testnet) error { return nil }

// Workload is nil: each phase makes its own from [workload].
func (KVStore) Workload(context.Context, []string, *results.Run) (load.Workload, error) {
	return nil, nil
}
