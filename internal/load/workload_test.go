package load

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/cometbft/cometbft/test/loadtime/payload"
)

// TestKVStoreTxs: txs have the asked size, one '=', no ':', and differ by
// sequence number and by run.
func TestKVStoreTxs(t *testing.T) {
	w := KVStore{RunID: "20261122-101010-ab12.0", Size: 100}
	seen := map[string]bool{}
	for seq := uint64(0); seq < 2000; seq++ {
		tx := must(w.Append(context.Background(), nil, seq))
		if len(tx) != 100 {
			t.Fatalf("tx %d is %d bytes; want 100", seq, len(tx))
		}
		if bytes.Count(tx, []byte("=")) != 1 || bytes.Contains(tx, []byte(":")) || tx[0] == '=' || tx[len(tx)-1] == '=' {
			t.Fatalf("tx %d = %q is not a valid kvstore tx", seq, tx)
		}
		seen[string(tx)] = true
	}
	other := KVStore{RunID: "20261122-101010-ab12.1", Size: 100}
	for seq := uint64(0); seq < 2000; seq++ {
		seen[string(must(other.Append(context.Background(), nil, seq)))] = true
	}
	if len(seen) != 4000 {
		t.Errorf("%d distinct txs of 4000", len(seen))
	}
}

// BenchmarkBuildTx measures building and encoding one kvstore tx and its
// JSON-RPC request; steady state must not allocate.
func BenchmarkBuildTx(b *testing.B) {
	w := KVStore{RunID: "20261122-101010-ab12.0", Size: 256}
	var tx, body []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		tx = must(w.Append(context.Background(), tx[:0], uint64(i)))
		body = AppendRequest(body[:0], "broadcast_tx_sync", uint64(i), tx)
	}
}

func TestBuildTxAllocs(t *testing.T) {
	w := KVStore{RunID: "r", Size: 256}
	tx, body := make([]byte, 0, 512), make([]byte, 0, 1024)
	i := uint64(0)
	allocs := testing.AllocsPerRun(1000, func() {
		tx = must(w.Append(context.Background(), tx[:0], i))
		body = AppendRequest(body[:0], "broadcast_tx_sync", i, tx)
		i++
	})
	if allocs != 0 {
		t.Errorf("building a tx and its request: %.1f allocations; want 0", allocs)
	}
}

// TestKVStoreAccounts: with accounts the key is the picked account and the
// tx stays unique and valid.
func TestKVStoreAccounts(t *testing.T) {
	z, _ := NewZipf(10, 2.7, 1, 3)
	w := KVStore{RunID: "r1", Size: 80, Accounts: z}
	seen := map[string]bool{}
	for seq := uint64(0); seq < 500; seq++ {
		tx := must(w.Append(context.Background(), nil, seq))
		key, _, _ := bytes.Cut(tx, []byte("="))
		if want := fmt.Sprintf("acct%d", z.Pick(seq)); string(key) != want || len(tx) != 80 || bytes.Count(tx, []byte("=")) != 1 {
			t.Fatalf("tx %d = %q; want key %s, 80 bytes, one '='", seq, tx, want)
		}
		seen[string(tx)] = true
	}
	if len(seen) != 500 {
		t.Errorf("%d distinct txs of 500", len(seen))
	}
}

// must is a tx whose making cannot fail (a kvstore tx).
func must(tx []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return tx
}

// TestLoadtimeTx: a loadtime tx is what CometBFT's payload package reads
// back: the run's experiment ID, the phase's rate and connections, the
// intended time given, tx_size bytes; the smallest size is the scenario's.
func TestLoadtimeTx(t *testing.T) {
	if MinLoadtimeSize != scenario.LoadtimeMinSize {
		t.Fatalf("the payload needs %d bytes, the scenario checks %d", MinLoadtimeSize, scenario.LoadtimeMinSize)
	}
	l, err := NewLoadtime("run-1", 4, 250, 300)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 23, 10, 0, 0, 123456789, time.UTC)
	tx, err := l.AppendAt(context.Background(), []byte("x"), 7, at)
	if err != nil {
		t.Fatal(err)
	}
	tx = tx[1:]
	p, err := payload.FromBytes(tx)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Time.AsTime().Equal(at) || p.Rate != 250 || p.Connections != 4 || p.Size != 300 || !bytes.Equal(p.Id, l.ID[:]) {
		t.Errorf("payload %v", p)
	}
	if len(tx) < 298 || len(tx) > 300 {
		t.Errorf("%d bytes; want 300 (less one when the padding's hex is odd)", len(tx))
	}
	other, _ := NewLoadtime("run-2", 4, 250, 300)
	if other.ID == l.ID {
		t.Error("two runs share an experiment ID")
	}
	if _, err := NewLoadtime("r", 1, 1, MinLoadtimeSize-1); err == nil {
		t.Error("a loadtime tx too small for its payload accepted")
	}
}
