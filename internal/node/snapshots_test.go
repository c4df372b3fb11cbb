package node

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
)

// TestSnapshotRestores: a snapshot taken at an interval's height, served
// chunk by chunk, restored into a fresh app, gives the same height and
// app hash, answers a query for a key, and goes on to the next block as
// the app it came from; a chunk whose bytes changed is refused.
func TestSnapshotRestores(t *testing.T) {
	ctx := context.Background()
	src := newSnapshotApp(Snapshots{Interval: 2, Keep: 2})
	if _, err := src.InitChain(ctx, &abci.RequestInitChain{}); err != nil {
		t.Fatal(err)
	}
	block := func(a *snapshotApp, h int64, txs ...string) []byte {
		var raw [][]byte
		for _, tx := range txs {
			raw = append(raw, []byte(tx))
		}
		res, err := a.FinalizeBlock(ctx, &abci.RequestFinalizeBlock{Height: h, Txs: raw})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Commit(ctx, &abci.RequestCommit{}); err != nil {
			t.Fatal(err)
		}
		return res.AppHash
	}
	for h := int64(1); h <= 4; h++ {
		block(src, h, fmt.Sprintf("k%d=v%d", h, h), fmt.Sprintf("x%d=y", h))
	}
	list, _ := src.ListSnapshots(ctx, nil)
	if len(list.Snapshots) != 2 || list.Snapshots[1].Height != 4 {
		t.Fatalf("snapshots %v; want heights 2 and 4", list.Snapshots)
	}
	snap := list.Snapshots[1]

	dst := newSnapshotApp(Snapshots{})
	if r, _ := dst.OfferSnapshot(ctx, &abci.RequestOfferSnapshot{Snapshot: snap}); r.Result != abci.ResponseOfferSnapshot_ACCEPT {
		t.Fatalf("offer: %v", r.Result)
	}
	for i := uint32(0); i < snap.Chunks; i++ {
		c, _ := src.LoadSnapshotChunk(ctx, &abci.RequestLoadSnapshotChunk{Height: snap.Height, Format: snap.Format, Chunk: i})
		if r, _ := dst.ApplySnapshotChunk(ctx, &abci.RequestApplySnapshotChunk{Index: i, Chunk: c.Chunk}); r.Result != abci.ResponseApplySnapshotChunk_ACCEPT {
			t.Fatalf("chunk %d: %v", i, r.Result)
		}
	}
	a, _ := src.Info(ctx, &abci.RequestInfo{})
	b, _ := dst.Info(ctx, &abci.RequestInfo{})
	if a.LastBlockHeight != 4 || b.LastBlockHeight != 4 || !bytes.Equal(a.LastBlockAppHash, b.LastBlockAppHash) {
		t.Fatalf("restored at height %d hash %X; the source at %d hash %X", b.LastBlockHeight, b.LastBlockAppHash, a.LastBlockHeight, a.LastBlockAppHash)
	}
	if q, _ := dst.Query(ctx, &abci.RequestQuery{Data: []byte("k3")}); string(q.Value) != "v3" {
		t.Errorf("query k3 after restore: %q", q.Value)
	}
	if h1, h2 := block(src, 5, "k5=v5"), block(dst, 5, "k5=v5"); !bytes.Equal(h1, h2) {
		t.Errorf("block 5: app hash %X restored, %X at the source", h2, h1)
	}

	bad := newSnapshotApp(Snapshots{})
	bad.OfferSnapshot(ctx, &abci.RequestOfferSnapshot{Snapshot: snap})
	c, _ := src.LoadSnapshotChunk(ctx, &abci.RequestLoadSnapshotChunk{Height: snap.Height, Format: 1, Chunk: 0})
	tampered := append([]byte(nil), c.Chunk...)
	tampered[len(tampered)-1] ^= 1
	if r, _ := bad.ApplySnapshotChunk(ctx, &abci.RequestApplySnapshotChunk{Index: 0, Chunk: tampered}); r.Result != abci.ResponseApplySnapshotChunk_REJECT_SNAPSHOT {
		t.Errorf("a changed chunk: %v; want REJECT_SNAPSHOT", r.Result)
	}
}

// FuzzSnapshotLoad: a snapshot's bytes come from peers; load either sets
// what dump would write back byte for byte, or fails, and never panics.
func FuzzSnapshotLoad(f *testing.F) {
	db := newSnapshotApp(Snapshots{}).db
	db.Set([]byte("k"), []byte("v"))
	db.Set([]byte("empty"), []byte{})
	good, _ := dump(db)
	f.Add(good)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{5, 'a'})
	f.Fuzz(func(t *testing.T, data []byte) {
		to := newSnapshotApp(Snapshots{}).db
		if err := load(to, data); err != nil {
			return
		}
		back, err := dump(to)
		if err != nil {
			t.Fatal(err)
		}
		// Keys come back sorted and once: a well-formed input in that
		// order reads back the same.
		if again := newSnapshotApp(Snapshots{}).db; load(again, back) != nil {
			t.Fatalf("dump of a load does not load: %x", back)
		}
	})
}
