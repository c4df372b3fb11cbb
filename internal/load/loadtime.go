package load

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"time"

	"github.com/cometbft/cometbft/test/loadtime/payload"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// A Stamper writes each tx's intended send time into the tx: the generator
// calls AppendAt instead of Append, with the time the schedule gave it.
type Stamper interface {
	AppendAt(ctx context.Context, buf []byte, seq uint64, intended time.Time) ([]byte, error)
}

// Loadtime makes the txs of CometBFT's own load tool (test/loadtime): "a="
// and the hex of its protobuf Payload (experiment ID, connections, rate,
// size, the tx's time, random padding to Size bytes), encoded by CometBFT's
// payload package itself. CometBFT's `report` tool reads such txs from a
// node's block store; the time written is the tx's intended send time,
// which chainperf's own QA latency counts from. kvstore stores every one
// under the key "a".
type Loadtime struct {
	ID          [16]byte // the experiment's UUID, one per run
	Connections uint64
	Rate        uint64
	Size        uint64 // bytes per tx, at least MinLoadtimeSize
}

var _ Stamper = (*Loadtime)(nil)

// MinLoadtimeSize is the smallest tx any payload fits in: the largest
// counts, a 16-byte ID and a time up to the year 2200 with nanoseconds
// (payload.MaxUnpaddedSize leaves out the ID, and its own time varies).
var MinLoadtimeSize = func() int {
	n, err := payload.CalculateUnpaddedSize(&payload.Payload{Connections: math.MaxUint64, Rate: math.MaxUint64, Size: math.MaxUint64,
		Time: timestamppb.New(time.Date(2200, 1, 1, 0, 0, 0, 999_999_999, time.UTC)), Id: make([]byte, 16), Padding: make([]byte, 1)})
	if err != nil {
		panic(err)
	}
	return n
}()

// NewLoadtime is the loadtime workload of run runID.
func NewLoadtime(runID string, connections int, rate float64, size int) (*Loadtime, error) {
	if size < MinLoadtimeSize {
		return nil, fmt.Errorf("workload.tx_size %d: a loadtime payload needs at least %d bytes", size, MinLoadtimeSize)
	}
	sum := sha256.Sum256([]byte("chainperf loadtime " + runID))
	var id [16]byte
	copy(id[:], sum[:])
	id[6], id[8] = id[6]&0x0f|0x50, id[8]&0x3f|0x80 // a version-5-shaped UUID
	return &Loadtime{ID: id, Connections: uint64(connections), Rate: uint64(rate), Size: uint64(size)}, nil
}

// Append stamps the tx with the time it is made (the generator calls
// AppendAt with the intended time instead).
func (l *Loadtime) Append(ctx context.Context, buf []byte, seq uint64) ([]byte, error) {
	return l.AppendAt(ctx, buf, seq, time.Now())
}

// AppendAt appends a loadtime tx stamped with intended.
func (l *Loadtime) AppendAt(_ context.Context, buf []byte, _ uint64, intended time.Time) ([]byte, error) {
	tx, err := payload.NewBytes(&payload.Payload{Connections: l.Connections, Rate: l.Rate, Size: l.Size,
		Time: timestamppb.New(intended), Id: l.ID[:]})
	if err != nil {
		return buf, err
	}
	return append(buf, tx...), nil
}

func (l *Loadtime) String() string {
	u := l.ID
	return fmt.Sprintf("loadtime (CometBFT's payload), %d-byte txs, experiment %x-%x-%x-%x-%x", l.Size, u[0:4], u[4:6], u[6:8], u[8:10], u[10:])
}
