// Package chain holds the chain adapters: what differs between the chains
// chainperf can run (kvstore, a Cosmos SDK chain, a Cosmos EVM chain). Adding
// file here that implements Adapter and one entry in All.
package chain

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// An Adapter sets a chain up on a testnet, makes its workload and checks
// it after the run. One adapter serves one run.
type Adapter interface {
	// Prepare fits the homes the testnet wrote to the chain (the node
	// command, genesis accounts, app config). It runs before any node
	// starts; on error the caller removes the homes.
	Prepare(ctx context.Context, t *testnet.Testnet) error
	// Workload is the run's workload over the RPC nodes, one for every
	// phase (so state such as sequences carries over), and records what
	// the run is about in r; nil: a fresh workload each phase from the
	// scenario's [workload].
	Workload(ctx context.Context, rpcs []string, r *results.Run) (load.Workload, error)
}

// A Checker checks the chain after the last phase, while the nodes still
// run (the Cosmos balance check), and records what it found in r. An
// error fails the run. A chain with nothing to check does not implement it.
type Checker interface {
	Finish(ctx context.Context, follow []string, r *results.Run) error
}

// A Tracer is a chain whose nodes can send the application's own
// OpenTelemetry spans: TraceTo, called before Prepare, has Prepare set
// each node to send them to url (a node whose binary cannot is left as
// it is, and sends none).
type Tracer interface {
	TraceTo(url string)
}

// A Relayed chain can be one end of the IBC relayer a run starts: Relay,
// called before Prepare, has Prepare fund the relayer's key (a BIP-39
// mnemonic) in genesis and turn every node's gRPC server on; RelayEnd,
// once prepared, is what the relayer needs to know of the chain; Refunded,
// before the chain's check, is what the relayer's txs gave back to which
// address (transfers refused or timed out), for its balance check.
type Relayed interface {
	Relay(mnemonic string)
	RelayEnd() RelayEnd
	Refunded(by map[string]uint64)
}

// RelayerMnemonic is the relayer's key on both chains of a run: made from a
// fixed seed, like the wallets' keys, for chains of chainperf's own making.
func RelayerMnemonic() string { return cosmos.MnemonicOf("chainperf", "relayer") }

// A RelayEnd is a prepared chain as a relayer sees it: its account
// address prefix, its denom and the gas price its txs pay.
type RelayEnd struct {
	Prefix, Denom string
	GasPrice      float64
}

// A Committer hears about each of the run's txs a block holds: its
// result and commit latency (a workload that keeps balances and results
// by message kind does).
type Committer interface {
	Committed(h load.Hash, height int64, r load.TxResult, latency time.Duration)
}

// An Entry is one chain: its name in scenarios ([testnet] chain) and how
// to make its adapter. New may take time (a chain binary built from
// source) and runs before any port is taken.
type Entry struct {
	Name string
	New  func(ctx context.Context, s *scenario.Scenario, log *slog.Logger) (Adapter, error)
}

// All lists the chains.
var All = []Entry{
	{Name: "kvstore", New: newKVStore},
	{Name: "cosmos", New: newCosmos},
	{Name: "evm", New: newEVM},
}

// New makes the adapter of the chain s names.
func New(ctx context.Context, s *scenario.Scenario, log *slog.Logger) (Adapter, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, e := range All {
		if e.Name == s.Testnet.Chain {
			return e.New(ctx, s, log)
		}
	}
	return nil, fmt.Errorf("unknown chain %q", s.Testnet.Chain)
}

// nodeVersion names the chain binary as the run's node, unless the run
// built it and already says what it was built from.
func nodeVersion(r *results.Run, binary string) {
	if r.Versions.Node == "" || strings.HasPrefix(r.Versions.Node, "embedded ") {
		r.Versions.Node = binary
	}
}
