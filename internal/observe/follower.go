// Package observe watches a running testnet: the block follower reads
// every block and matches its txs against the tx ledger.
package observe

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	"github.com/chainperf/chainperf/internal/load"
)

// A Block is what the follower records of one block.
type Block struct {
	Height   int64     `json:"height"`
	Time     time.Time `json:"time"` // header time (BFT time)
	Seen     time.Time `json:"seen"` // when chainperf first read it
	Txs      int       `json:"txs"`
	Ours     int       `json:"ours"` // txs of this run's ledger
	Failed   int       `json:"failed"`
	Bytes    int       `json:"bytes"`
	Round    int32     `json:"round"` // round in which it was committed; -1 when not known yet
	Proposer string    `json:"proposer"`
}

// A Ledger is where the follower reports the txs it finds in blocks.
type Ledger interface {
	Committed(h load.Hash, height int64, code uint32, seen time.Time) bool
	BlockTime(height int64, t time.Time)
}

// A Follower reads every block from a first height on, with no gaps,
// from the first node that answers; when a node stops answering it moves
// on to the next.
type Follower struct {
	rpcs   []string
	ledger Ledger
	poll   time.Duration
	log    *slog.Logger

	next    int64 // next height to read
	node    int   // index of the node read from
	held    *Block
	blocks  []Block
	onBlock func(Block)
}

// NewFollower returns a follower that reads from rpcs (in order of
// preference) starting at height from, reporting txs to ledger (may be nil)
// and each block, once its commit round is known, to onBlock (may be nil).
func NewFollower(rpcs []string, from int64, ledger Ledger, onBlock func(Block), log *slog.Logger) *Follower {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Follower{rpcs: rpcs, ledger: ledger, poll: 50 * time.Millisecond, log: log, next: max(1, from), onBlock: onBlock}
}

// Latest returns the latest height of the first node that answers.
func Latest(ctx context.Context, rpcs []string) (int64, error) {
	var last error
	for _, u := range rpcs {
		c, err := rpchttp.New(u, "/websocket")
		if err != nil {
			return 0, err
		}
		qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		st, err := c.Status(qctx)
		cancel()
		if err == nil {
			return st.SyncInfo.LatestBlockHeight, nil
		}
		last = err
	}
	return 0, fmt.Errorf("no node answers: %w", last)
}

// Run reads blocks until ctx ends. It returns nil then; errors of single
// nodes only move it to the next node.
func (f *Follower) Run(ctx context.Context) error {
	clients := make([]*rpchttp.HTTP, len(f.rpcs))
	for i, u := range f.rpcs {
		c, err := rpchttp.New(u, "/websocket")
		if err != nil {
			return err
		}
		clients[i] = c
	}
	tick := time.NewTicker(f.poll)
	defer tick.Stop()
	for {
		if err := f.catchUp(ctx, clients[f.node]); err != nil && ctx.Err() == nil {
			f.log.Warn("follower: node failed, moving on", "node", f.rpcs[f.node], "err", err)
			f.node = (f.node + 1) % len(clients)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// PollInterval is how often the follower asks for new blocks.
func (f *Follower) PollInterval() time.Duration { return f.poll }

// Next is the next height the follower will read.
func (f *Follower) Next() int64 { return f.next }

func (f *Follower) catchUp(ctx context.Context, c *rpchttp.HTTP) error {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	st, err := c.Status(qctx)
	cancel()
	if err != nil {
		return err
	}
	for ; f.next <= st.SyncInfo.LatestBlockHeight; f.next++ {
		if err := f.read(ctx, c, f.next); err != nil {
			return fmt.Errorf("height %d: %w", f.next, err)
		}
	}
	return nil
}

func (f *Follower) read(ctx context.Context, c *rpchttp.HTTP, h int64) error {
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rb, err := c.Block(qctx, &h)
	if err != nil {
		return err
	}
	seen := time.Now()
	res, err := c.BlockResults(qctx, &h)
	if err != nil {
		return err
	}
	b := Block{
		Height: h, Time: rb.Block.Time, Seen: seen, Txs: len(rb.Block.Txs),
		Bytes: rb.Block.Size(), Round: -1, Proposer: rb.Block.ProposerAddress.String(),
	}
	for i, tx := range rb.Block.Txs {
		var code uint32
		if i < len(res.TxsResults) {
			code = res.TxsResults[i].Code
		}
		if code != 0 {
			b.Failed++
		}
		if f.ledger != nil && f.ledger.Committed(load.Hash(tx.Hash()), h, code, seen) {
			b.Ours++
		}
	}
	if f.ledger != nil {
		f.ledger.BlockTime(h, b.Time)
	}
	// This block's LastCommit tells the round in which the previous one
	// was committed; the previous block is complete now.
	if f.held != nil && rb.Block.LastCommit != nil {
		f.held.Round = rb.Block.LastCommit.Round
		f.emit(*f.held)
	}
	f.held = &b
	return nil
}

func (f *Follower) emit(b Block) {
	f.blocks = append(f.blocks, b)
	if f.onBlock != nil {
		f.onBlock(b)
	}
}

// Flush emits the last block read (its round unknown) and returns every
// block read, in height order.
func (f *Follower) Flush() []Block {
	if f.held != nil {
		f.emit(*f.held)
		f.held = nil
	}
	return f.blocks
}
