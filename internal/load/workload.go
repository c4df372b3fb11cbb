package load

import (
	"context"
	"fmt"
	"strconv"

	"github.com/chainperf/chainperf/internal/scenario"
)

// A Workload makes transactions: what one tx is.
type Workload interface {
	// Append appends tx number seq of this run to buf and returns it. It
	// must be safe for concurrent use and, in steady state, not allocate.
	// It may wait (a Cosmos wallet whose previous tx has no answer yet)
	// until ctx ends. An error ends the phase: the generator stops and
	// returns it.
	Append(ctx context.Context, buf []byte, seq uint64) ([]byte, error)
	String() string
}

// A Preparer readies a workload for a phase of at most n txs before it
// starts (a Cosmos workload signs them all then).
type Preparer interface {
	Prepare(ctx context.Context, n int) error
}

// An Observer hears how the send of each tx ended.
type Observer interface {
	Sent(seq uint64, o Outcome, why string)
}

// A Queuer says which refusals leave the tx queued in the node rather
// than dropped (an EVM application-side mempool answers a nonce gap with
// an error and queues the tx): the generator reports those Queued.
type Queuer interface {
	Queued(why string) bool
}

// A Carrier carries its txs in requests of its own instead of CometBFT's
// broadcast methods (an EVM chain's eth_sendRawTransaction), to targets of
// its own listed in the order of the RPC nodes' (a Router's index picks
// from both alike). The ledger follows each tx by the CometBFT hash of
// the bytes Append made; the request may carry other bytes that the node
// turns into those.
type Carrier interface {
	Targets() []string
	AppendRequest(buf []byte, id uint64, tx []byte) []byte
}

// A Router pins each tx to one of the targets (a wallet's txs to one node,
// so that its sequence numbers never race across mempools).
type Router interface {
	Route(seq uint64) int
}

// KVStore makes txs for CometBFT's kvstore app: "KEY=VALUE". Without
// accounts the key carries the run ID and the sequence number; with them
// the key is the picked account ("acct17") and the value carries run ID and
// sequence number. Either way no two txs of any two runs are equal, and the
// value pads the tx to Size bytes. Nothing holds '=' or ':', which kvstore
// would read as a second separator.
type KVStore struct {
	RunID    string   // letters, digits, '-' and '.' only
	Size     int      // bytes per tx
	Accounts Selector // nil: a key per tx
}

func (k KVStore) Append(_ context.Context, buf []byte, seq uint64) ([]byte, error) {
	start := len(buf)
	if k.Accounts != nil {
		buf = append(buf, "acct"...)
		buf = strconv.AppendInt(buf, int64(k.Accounts.Pick(seq)), 10)
		buf = append(buf, '=')
	}
	buf = append(buf, "cp"...)
	buf = append(buf, k.RunID...)
	buf = append(buf, '.')
	buf = strconv.AppendUint(buf, seq, 10)
	if k.Accounts == nil {
		buf = append(buf, '=')
	}
	buf = append(buf, '.')
	for i := len(buf) - start; i < k.Size; i++ {
		buf = append(buf, 'a'+byte((seq+uint64(i))%26))
	}
	return buf, nil
}

func (k KVStore) String() string {
	if k.Accounts != nil {
		return fmt.Sprintf("kvstore, %d-byte txs, %s", k.Size, k.Accounts)
	}
	return fmt.Sprintf("kvstore, %d-byte txs", k.Size)
}

// WorkloadFrom builds the workload a scenario's [workload] section
// describes, for a phase of load l.
func WorkloadFrom(w scenario.Workload, l scenario.Load, runID string) (Workload, error) {
	switch w.Kind {
	case "loadtime":
		return NewLoadtime(runID, l.Connections, l.Rate, w.TxSize)
	case "replay":
		return ReadReplay(w.ReplayFile)
	case "kvstore":
		k := KVStore{RunID: runID, Size: w.TxSize}
		if w.Accounts > 0 {
			switch w.Selection {
			case "zipf":
				z, err := NewZipf(w.Accounts, w.ZipfShift, w.ZipfExponent, w.Seed)
				if err != nil {
					return nil, err
				}
				k.Accounts = z
			default:
				k.Accounts = Uniform{N: w.Accounts, Seed: w.Seed}
			}
		}
		return k, nil
	}
	if c := scenario.ChainOfWorkload(w.Kind); c != "" {
		return nil, fmt.Errorf("workload %q sends from wallets funded in a genesis chainperf writes: use `chainperf run` with testnet.chain = %q", w.Kind, c)
	}
	return nil, fmt.Errorf("unknown workload %q", w.Kind)
}
