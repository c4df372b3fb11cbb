package load

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/cometbft/cometbft/test/loadtime/payload"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Bounds on a replay file: what one run can send and this machine hold.
const (
	MaxReplayTxs   = 10_000_000
	MaxReplayBytes = 2 << 30
	maxReplayLine  = 2<<20 + 2 // a 1 MiB tx in hex, and a CR LF
	// maxReplayFile: MaxReplayBytes of txs in hex, a line end each.
	maxReplayFile = 2*MaxReplayBytes + 2*MaxReplayTxs
)

// A Replay sends the txs of a recorded workload in the file's order: one
// tx a line, in hex (an optional 0x) or base64; blank lines and lines
// starting with '#' are skipped. A file of CometBFT loadtime txs is a
// payload stream: each tx is stamped again with its intended send time
// (id, rate, connections and size kept), so that CometBFT's report tool
// and chainperf's QA latency read the replay, not the recording. Phases
// go on where the last one stopped; a phase that would need more txs
// than are left is refused before it starts.
type Replay struct {
	File     string
	txs      [][]byte
	loadtime bool
	base     int          // txs the earlier phases used
	used     atomic.Int64 // this phase's highest seq + 1
}

var _ Stamper = (*Replay)(nil)

// ReadReplay reads a replay file.
func ReadReplay(path string) (*Replay, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("replay file: %w", err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("replay file %s is not a regular file", path)
	case fi.Size() > maxReplayFile:
		return nil, fmt.Errorf("replay file %s holds %d bytes, more than %d bytes of txs (one run's most) in hex: split it over several runs", path, fi.Size(), MaxReplayBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay file: %w", err)
	}
	defer f.Close()
	r := &Replay{File: path}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxReplayLine)
	var total int
	for line := 1; sc.Scan(); line++ {
		s := bytes.TrimSpace(sc.Bytes())
		if len(s) == 0 || s[0] == '#' {
			continue
		}
		tx, err := decodeTx(s)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if len(r.txs) == MaxReplayTxs {
			return nil, fmt.Errorf("%s:%d: more than %d txs: split the file over several runs", path, line, MaxReplayTxs)
		}
		if total += len(tx); total > MaxReplayBytes {
			return nil, fmt.Errorf("%s:%d: more than %d bytes of txs: split the file over several runs", path, line, MaxReplayBytes)
		}
		r.txs = append(r.txs, tx)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: a line longer than %d bytes (a tx is at most 1 MiB)", path, maxReplayLine)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.txs) == 0 {
		return nil, fmt.Errorf("%s holds no tx (one hex or base64 tx a line)", path)
	}
	if _, err := payload.FromBytes(r.txs[0]); err == nil {
		r.loadtime = true
		for i, tx := range r.txs {
			if _, err := payload.FromBytes(tx); err != nil {
				return nil, fmt.Errorf("%s: tx %d is not a loadtime payload like the first: %v", path, i+1, err)
			}
		}
	}
	return r, nil
}

// decodeTx reads one line: hex (with or without 0x) when it is that,
// else standard base64 (padded or not).
func decodeTx(s []byte) ([]byte, error) {
	h := bytes.TrimPrefix(bytes.TrimPrefix(s, []byte("0x")), []byte("0X"))
	if len(h)%2 == 0 && isHex(h) {
		return hex.DecodeString(string(h))
	}
	enc := base64.StdEncoding
	if len(s)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	tx, err := enc.DecodeString(string(s))
	if err != nil {
		return nil, fmt.Errorf("neither hex nor base64 (%v)", err)
	}
	if len(tx) == 0 {
		return nil, fmt.Errorf("an empty tx")
	}
	return tx, nil
}

func isHex(s []byte) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return len(s) > 0
}

// Len is how many txs the file holds.
func (r *Replay) Len() int { return len(r.txs) }

// Prepare moves past the txs the last phase used and refuses a phase
// that asks for more than are left (n = 0: no bound known).
func (r *Replay) Prepare(_ context.Context, n int) error {
	r.base += int(r.used.Swap(0))
	if left := len(r.txs) - r.base; n > left {
		return fmt.Errorf("the phase sends up to %d txs, %s has %d left of %d: shorten the load, lower the rate or record more", n, r.File, left, len(r.txs))
	}
	return nil
}

// Append appends tx seq of this phase as recorded (a loadtime payload
// stamped now; the generator calls AppendAt).
func (r *Replay) Append(ctx context.Context, buf []byte, seq uint64) ([]byte, error) {
	return r.AppendAt(ctx, buf, seq, time.Now())
}

// AppendAt appends tx seq of this phase; a loadtime payload is stamped
// with intended.
func (r *Replay) AppendAt(_ context.Context, buf []byte, seq uint64, intended time.Time) ([]byte, error) {
	for {
		u := r.used.Load()
		if int64(seq) < u || r.used.CompareAndSwap(u, int64(seq)+1) {
			break
		}
	}
	i := r.base + int(seq)
	if i >= len(r.txs) {
		return buf, fmt.Errorf("%s: all %d txs are sent", r.File, len(r.txs))
	}
	if !r.loadtime {
		return append(buf, r.txs[i]...), nil
	}
	p, err := payload.FromBytes(r.txs[i])
	if err != nil {
		return buf, err
	}
	p.Time = timestamppb.New(intended)
	tx, err := payload.NewBytes(p)
	if err != nil {
		return buf, err
	}
	return append(buf, tx...), nil
}

func (r *Replay) String() string {
	what := "txs as recorded"
	if r.loadtime {
		what = "loadtime payloads, stamped again when sent"
	}
	return fmt.Sprintf("replay of %s: %d %s", r.File, len(r.txs), what)
}
