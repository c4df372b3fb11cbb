package node

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	dbm "github.com/cometbft/cometbft-db"
	"github.com/cometbft/cometbft/abci/example/kvstore"
	abci "github.com/cometbft/cometbft/abci/types"
)

// SnapshotsFile in a node's config dir turns on state-sync snapshots in
// the embedded node (chainperf writes it; CometBFT's kvstore keeps none).
const SnapshotsFile = "chainperf-snapshots.json"

// Snapshots says how often the embedded node snapshots its state, and how
// many snapshots it keeps, for nodes that join by state sync.
type Snapshots struct {
	Interval int64 `json:"interval"` // heights between snapshots; 0: none
	Keep     int   `json:"keep"`
}

// WriteSnapshots writes s into home's config dir (nothing when off).
func WriteSnapshots(home string, s Snapshots) error {
	if s.Interval <= 0 {
		return nil
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, "config", SnapshotsFile), data, 0o644)
}

func readSnapshots(home string) (Snapshots, error) {
	var s Snapshots
	path := filepath.Join(home, "config", SnapshotsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil || s.Interval < 0 || s.Keep < 0 {
		return s, fmt.Errorf("%s: not a snapshots file chainperf wrote (%v): remove it", path, err)
	}
	if s.Keep == 0 {
		s.Keep = 5
	}
	return s, nil
}

// chunkSize is the most a snapshot chunk holds (CometBFT takes up to 16 MB).
const chunkSize = 4 << 20

// snapshotApp is the kvstore with state-sync snapshots: every interval
// heights, at Commit, the whole state (its database's keys and values)
// serialized, split in chunks and kept in memory; a node that joins by
// state sync restores one and goes on from its height. The ABCI local
// client calls one method at a time, so the app behind can be swapped
// when a restore completes.
type snapshotApp struct {
	*kvstore.Application
	db  dbm.DB
	cfg Snapshots

	mu    sync.Mutex
	taken []*taken

	restoring *abci.Snapshot
	chunks    [][]byte
}

type taken struct {
	snap   abci.Snapshot
	chunks [][]byte
}

// newSnapshotApp is the in-memory kvstore, snapshotting as cfg says.
func newSnapshotApp(cfg Snapshots) *snapshotApp {
	db := dbm.NewMemDB()
	return &snapshotApp{Application: kvstore.NewApplication(db), db: db, cfg: cfg}
}

// Commit commits the block, then at every interval's height snapshots
// the state it committed.
func (a *snapshotApp) Commit(ctx context.Context, req *abci.RequestCommit) (*abci.ResponseCommit, error) {
	res, err := a.Application.Commit(ctx, req)
	if err != nil || a.cfg.Interval <= 0 {
		return res, err
	}
	info, err := a.Application.Info(ctx, &abci.RequestInfo{})
	if err != nil || info.LastBlockHeight%a.cfg.Interval != 0 {
		return res, err
	}
	data, err := dump(a.db)
	if err != nil {
		return nil, fmt.Errorf("snapshot at height %d: %w", info.LastBlockHeight, err)
	}
	sum := sha256.Sum256(data)
	t := &taken{chunks: split(data)}
	t.snap = abci.Snapshot{Height: uint64(info.LastBlockHeight), Format: 1, Chunks: uint32(len(t.chunks)), Hash: sum[:]}
	a.mu.Lock()
	a.taken = append(a.taken, t)
	if len(a.taken) > a.cfg.Keep {
		a.taken = a.taken[len(a.taken)-a.cfg.Keep:]
	}
	a.mu.Unlock()
	return res, nil
}

func (a *snapshotApp) ListSnapshots(context.Context, *abci.RequestListSnapshots) (*abci.ResponseListSnapshots, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	res := &abci.ResponseListSnapshots{}
	for _, t := range a.taken {
		s := t.snap
		res.Snapshots = append(res.Snapshots, &s)
	}
	return res, nil
}

func (a *snapshotApp) LoadSnapshotChunk(_ context.Context, req *abci.RequestLoadSnapshotChunk) (*abci.ResponseLoadSnapshotChunk, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.taken {
		if t.snap.Height == req.Height && t.snap.Format == req.Format && int(req.Chunk) < len(t.chunks) {
			return &abci.ResponseLoadSnapshotChunk{Chunk: t.chunks[req.Chunk]}, nil
		}
	}
	return &abci.ResponseLoadSnapshotChunk{}, nil
}

// OfferSnapshot takes a snapshot of the one format it writes, into an
// app that has committed nothing yet.
func (a *snapshotApp) OfferSnapshot(ctx context.Context, req *abci.RequestOfferSnapshot) (*abci.ResponseOfferSnapshot, error) {
	if req.Snapshot == nil || req.Snapshot.Format != 1 || req.Snapshot.Chunks == 0 {
		return &abci.ResponseOfferSnapshot{Result: abci.ResponseOfferSnapshot_REJECT_FORMAT}, nil
	}
	a.restoring, a.chunks = req.Snapshot, make([][]byte, req.Snapshot.Chunks)
	return &abci.ResponseOfferSnapshot{Result: abci.ResponseOfferSnapshot_ACCEPT}, nil
}

// ApplySnapshotChunk keeps each chunk; with the last, it checks the
// whole against the snapshot's hash, loads it into a fresh database and
// makes a kvstore of it the app.
func (a *snapshotApp) ApplySnapshotChunk(_ context.Context, req *abci.RequestApplySnapshotChunk) (*abci.ResponseApplySnapshotChunk, error) {
	if a.restoring == nil || int(req.Index) >= len(a.chunks) {
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_ABORT}, nil
	}
	a.chunks[req.Index] = req.Chunk
	for _, c := range a.chunks {
		if c == nil {
			return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_ACCEPT}, nil
		}
	}
	data := bytes.Join(a.chunks, nil)
	if sum := sha256.Sum256(data); !bytes.Equal(sum[:], a.restoring.Hash) {
		a.restoring, a.chunks = nil, nil
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_REJECT_SNAPSHOT}, nil
	}
	db := dbm.NewMemDB()
	if err := load(db, data); err != nil {
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_REJECT_SNAPSHOT}, nil
	}
	a.db, a.Application = db, kvstore.NewApplication(db)
	a.restoring, a.chunks = nil, nil
	return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_ACCEPT}, nil
}

// dump writes every key and value of db, each length-prefixed.
func dump(db dbm.DB) ([]byte, error) {
	it, err := db.Iterator(nil, nil)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var b bytes.Buffer
	for ; it.Valid(); it.Next() {
		for _, x := range [][]byte{it.Key(), it.Value()} {
			b.Write(binary.AppendUvarint(nil, uint64(len(x))))
			b.Write(x)
		}
	}
	return b.Bytes(), it.Error()
}

// load sets into db the keys and values dump wrote.
func load(db dbm.DB, data []byte) error {
	r := bytes.NewReader(data)
	next := func() ([]byte, error) {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, err
		}
		if n > uint64(r.Len()) {
			return nil, io.ErrUnexpectedEOF
		}
		x := make([]byte, n)
		_, err = io.ReadFull(r, x)
		return x, err
	}
	for r.Len() > 0 {
		k, err := next()
		if err != nil {
			return err
		}
		v, err := next()
		if err != nil {
			return err
		}
		if err := db.Set(k, v); err != nil {
			return err
		}
	}
	return nil
}

func split(data []byte) [][]byte {
	var out [][]byte
	for len(data) > chunkSize {
		out = append(out, data[:chunkSize])
		data = data[chunkSize:]
	}
	return append(out, data)
}
