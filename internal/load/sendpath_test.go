package load

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"testing"
	"time"
)

// BenchmarkSendPath is the generator's whole steady-state send path, one
// request a tx, against an in-process sink over loopback: pacing, making
// the tx, its hash, the request, the answer, parsing it and recording the
// send (ledger untracked, as `chainperf load --no-follow`; the tracked
// ledger's share is BenchmarkLedgerPerTx). An op is one tx; allocs/op
// counts both sides (the sink's share is its fasthttp server).
func BenchmarkSendPath(b *testing.B) {
	_, url := startSink(b)
	const rate = 1e9 // every tx due at once: the senders' own pace
	l := NewLedger(time.Now(), false)
	g, err := NewGenerator(Config{
		Model: Constant{R: rate, D: time.Duration(float64(b.N) / rate * float64(time.Second))}, Workload: KVStore{RunID: "bench", Size: 256},
		Targets: []string{url}, Method: "sync", Batch: 1, MaxInFlight: 64,
	}, l)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	n, err := g.Run(context.Background())
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if s := l.Summary(); s.Accepted != n {
		b.Fatalf("%d of %d txs accepted", s.Accepted, n)
	}
}

// BenchmarkLedgerPerTx is what the tracked ledger costs a tx from its
// send to its fate: begun, sent, seen in a block.
func BenchmarkLedgerPerTx(b *testing.B) {
	l := NewLedger(time.Now(), true)
	var h Hash
	var seq [8]byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		binary.BigEndian.PutUint64(seq[:], uint64(i))
		h = sha256.Sum256(seq[:])
		at := time.Duration(i) * time.Microsecond
		l.Begin(h, at)
		l.Sent(h, at, l.Start().Add(at), Accepted, "")
		l.Committed(h, int64(i/1000+1), TxResult{}, l.Start().Add(at+time.Second))
	}
}
