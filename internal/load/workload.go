package load

import (
	"fmt"
	"strconv"

	"github.com/chainperf/chainperf/internal/scenario"
)

// A Workload makes transactions: what one tx is.
type Workload interface {
	// Append appends tx number seq of this run to buf and returns it. It
	// must be safe for concurrent use and, in steady state, not allocate.
	Append(buf []byte, seq uint64) []byte
	String() string
}

// KVStore makes txs for CometBFT's kvstore app: "KEY=VALUE" where the key
// carries the run ID and the sequence number (so that no two txs of any two
// runs are equal) and the value pads the tx to Size bytes. Neither holds
// '=' or ':', which kvstore would read as a second separator.
type KVStore struct {
	RunID string // letters and digits only
	Size  int    // bytes per tx
}

func (k KVStore) Append(buf []byte, seq uint64) []byte {
	start := len(buf)
	buf = append(buf, "cp"...)
	buf = append(buf, k.RunID...)
	buf = append(buf, '.')
	buf = strconv.AppendUint(buf, seq, 10)
	buf = append(buf, '=')
	for i := len(buf) - start; i < k.Size; i++ {
		buf = append(buf, 'a'+byte((seq+uint64(i))%26))
	}
	return buf
}

func (k KVStore) String() string { return fmt.Sprintf("kvstore, %d-byte txs", k.Size) }

// WorkloadFrom builds the workload a scenario's [workload] section describes.
func WorkloadFrom(w scenario.Workload, runID string) (Workload, error) {
	switch w.Kind {
	case "kvstore":
		return KVStore{RunID: runID, Size: w.TxSize}, nil
	}
	return nil, fmt.Errorf("unknown workload %q", w.Kind)
}
