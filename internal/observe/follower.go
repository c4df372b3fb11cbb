// Package observe watches a running testnet: the block follower reads
// every block and matches its txs against the tx ledger.
package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cometbft/cometbft/types"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/nodehttp"
)

// A Block is what the follower records of one block.
type Block struct {
	Height int64     `json:"height"`
	Time   time.Time `json:"time"` // header time (BFT time)
	Seen   time.Time `json:"seen"` // when chainperf first read it
	Txs    int       `json:"txs"`
	Ours   int       `json:"ours"` // txs of this run's ledger
	// OursFailed: those of Ours with a result code != 0 (not throughput).
	OursFailed int    `json:"ours_failed,omitempty"`
	Failed     int    `json:"failed"`
	Bytes      int    `json:"bytes"`
	Round      int32  `json:"round"` // round in which it was committed; -1 when not known yet
	Proposer   string `json:"proposer"`
	// Absent: the validators (addresses) whose precommit for this block
	// is not in its commit, known with its round.
	Absent []string `json:"absent,omitempty"`
	// Commit latency of the run's txs in this block, ms (0 when none).
	LatencyMean float64 `json:"latency_mean_ms"`
	LatencyMax  float64 `json:"latency_max_ms"`
}

// A Ledger is where the follower reports the txs it finds in blocks.
type Ledger interface {
	// Committed reports a tx found in a block, its result code and the
	// gas it used; ours says whether it is the ledger's, latency is its
	// commit latency then.
	Committed(h load.Hash, height int64, r load.TxResult, seen time.Time) (latency time.Duration, ours bool)
	// NoResult reports a tx found in a block whose results could not be
	// read; it reports whether the tx is the ledger's.
	NoResult(h load.Hash) bool
	// Pending says whether a tx of this hash is the ledger's and in no
	// block yet: the follower keeps only those of a block it reads.
	Pending(h load.Hash) bool
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
	// OnProblem, if set, hears what the run must say of the follower: a
	// node's answer over a cap, a height that makes no sense, a stall
	// and its end (kind, detail naming the node).
	OnProblem func(kind, detail string)
	// StallAfter: no block read for this long while a node says there
	// are more is a stall (0: 10 s).
	StallAfter time.Duration

	mu       sync.Mutex       // told: the block and results readers both say problems
	told     map[string]bool  // problems already said, by kind and node
	latest   map[string]int64 // the last latest height each node said
	tip      int64            // the highest height a node said it has, that the follower believed
	lastRead time.Time        // when a block was last read
	stalled  bool
	lastErr  string
	reads    map[string]*pendingRead // the block and results reads under way, or cut by the end

	next    atomic.Int64  // next height to read
	wake    chan struct{} // Wake's: a node committed a height not read yet
	woke    atomic.Int64  // when Wake last had news (unix ns)
	node    int           // index of the node read from
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
	f := &Follower{rpcs: rpcs, ledger: ledger, poll: 50 * time.Millisecond, log: log, onBlock: onBlock, latest: map[string]int64{},
		wake: make(chan struct{}, 1)}
	f.next.Store(max(1, from))
	return f
}

// Latest returns the latest height of the first node that answers.
func Latest(ctx context.Context, rpcs []string) (int64, error) {
	var last error
	for _, u := range rpcs {
		st, err := nodehttp.ReadStatus(ctx, u)
		if err == nil {
			return st.Height, nil
		}
		last = err
	}
	return 0, fmt.Errorf("no node answers: %w", last)
}

// MaxBehind is how far below a node's latest height the follower may
// begin: a start height further back than this is not believed (one bad
// answer must not make it read a chain's whole history).
const MaxBehind = 10_000

// Run reads blocks until ctx ends. It returns nil then; errors of single
// nodes only move it to the next node. Reading is two stages: blocks are
// read (and their seen time taken) as soon as they exist, while their
// results, which are much larger and slower to fetch, follow behind.
func (f *Follower) Run(ctx context.Context) error {
	read := make(chan fetched, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range read {
			f.resolve(ctx, b)
		}
	}()
	defer func() { close(read); <-done }()
	f.lastRead = time.Now()
	fails := 0
	for {
		wait := f.poll
		if f.woken() {
			wait = wokenPoll
		}
		began := time.Now()
		if err := f.catchUp(ctx, f.rpcs[f.node], read); err != nil && ctx.Err() == nil {
			// Back off while every node fails: one that answers 64 MiB
			// each time must not be asked 20 times a second.
			fails++
			wait = backoff(f.poll, fails/len(f.rpcs))
			f.log.Warn("follower: node failed, moving on", "node", f.rpcs[f.node], "err", err)
			f.lastErr = nodehttp.RedactString(f.rpcs[f.node]) + ": " + err.Error()
			if msg, over := nodehttp.OverCap(err); over {
				f.problem("node_answer", f.rpcs[f.node], msg)
			}
			f.node = (f.node + 1) % len(f.rpcs)
		} else {
			fails = 0
		}
		f.checkStall()
		wake := f.wake
		if fails > 0 {
			wake = nil // a failing node is asked no sooner than its backoff
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		case <-wake:
			// Not sooner than a poll after the last read: a node that
			// sends header events without end makes the follower ask no
			// more often than it polled before.
			if d := f.poll - time.Since(began); d > 0 {
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(d):
				}
			}
		}
	}
}

// backoff is base doubled n times, at most 2 s.
func backoff(base time.Duration, n int) time.Duration {
	return min(base<<min(n, 8), 2*time.Second)
}

// PollInterval is how often the follower asks for new blocks.
func (f *Follower) PollInterval() time.Duration { return f.poll }

// Next is the next height the follower will read.
func (f *Follower) Next() int64 { return f.next.Load() }

// fetched is a block read, waiting for its results.
type fetched struct {
	block *block
	seen  time.Time
}

func (f *Follower) catchUp(ctx context.Context, rpc string, out chan<- fetched) error {
	st, err := nodehttp.ReadStatusWith(ctx, statusClient, rpc)
	if err != nil {
		if errors.Is(err, nodehttp.ErrBadNumber) {
			f.problem("bad_height", rpc, err.Error())
		}
		return err
	}
	latest := st.Height
	before := f.latest[rpc]
	f.latest[rpc] = latest
	next, tip, kind, detail := heights(latest, before, f.next.Load(), f.tip)
	if kind != "" {
		f.problem(kind, rpc, detail)
	}
	f.next.Store(next)
	f.tip = tip
	for h := f.next.Load(); h <= latest; h = f.next.Load() {
		done := f.track(ctx, "block", fmt.Sprintf("block %d", h), rpc)
		blk, err := f.readBlock(ctx, rpc, h)
		done()
		if err != nil {
			var bad *badBlock
			if errors.As(err, &bad) {
				f.problem("bad_block", rpc, err.Error())
			}
			return fmt.Errorf("height %d: %w", h, err)
		}
		f.lastRead = time.Now()
		if f.stalled {
			f.stalled = false
			f.say("follower_resumed", fmt.Sprintf("blocks read again from %s at height %d", nodehttp.RedactString(rpc), h))
		}
		select {
		case out <- fetched{block: blk, seen: f.lastRead}:
		case <-ctx.Done():
			return nil
		}
		f.next.Add(1)
	}
	return nil
}

// badBlock is an answer to /block that is not the block asked for.
type badBlock struct{ msg string }

func (e *badBlock) Error() string { return e.msg }

// The follower's caps: a node that is slow to say its height or give a
// block is left for the next sooner than the general caps would (each
// second it waits is a second on the latency of the blocks it holds up).
var (
	statusClient  = nodehttp.Client(nodehttp.Limits{Bytes: nodehttp.Small.Bytes, Time: 2 * time.Second})
	blockClient   = nodehttp.Client(nodehttp.Limits{Bytes: nodehttp.Block.Bytes, Time: 10 * time.Second})
	resultsClient = nodehttp.Client(nodehttp.Block)
)

// readBlock reads the block at height h, within nodehttp.Block's caps,
// keeping the txs the ledger has pending; a block whose header is of
// another height is a *badBlock.
func (f *Follower) readBlock(ctx context.Context, rpc string, h int64) (*block, error) {
	data, err := nodehttp.Get(ctx, blockClient, fmt.Sprintf("%s/block?height=%d", rpc, h))
	if err != nil && len(data) == 0 {
		return nil, err
	}
	var keep func(load.Hash) bool
	if f.ledger != nil {
		keep = f.ledger.Pending
	}
	blk, err2 := decodeBlock(data, h, keep)
	if err2 != nil {
		if err != nil {
			return nil, err
		}
		return nil, err2
	}
	return blk, nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// resolve fetches a block's results, trying every node until one answers
// (or ctx ends), and reports its txs to the ledger.
func (f *Follower) resolve(ctx context.Context, fb fetched) {
	blk, h := fb.block, fb.block.Height
	var codes []load.TxResult
	for i := 0; ctx.Err() == nil; i++ {
		var err error
		done := f.track(ctx, "results", fmt.Sprintf("the results of block %d", h), f.rpcs[i%len(f.rpcs)])
		codes, err = txResults(ctx, f.rpcs[i%len(f.rpcs)], h)
		done()
		if err == nil {
			break
		}
		f.log.Warn("follower: block results failed", "height", h, "err", err)
		wait := backoff(100*time.Millisecond, (i+1)/len(f.rpcs))
		if msg, over := nodehttp.OverCap(err); over {
			f.problem("node_answer", f.rpcs[i%len(f.rpcs)], msg)
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	b := Block{
		Height: h, Time: blk.Time, Seen: fb.seen, Txs: blk.txs,
		Bytes: blk.bytes, Round: -1, Proposer: blk.ProposerAddress.String(),
	}
	for _, res := range codes[:min(len(codes), blk.txs)] {
		if !res.OK() {
			b.Failed++
		}
	}
	for _, tx := range blk.ours {
		if tx.i >= len(codes) {
			// No result read (the run ended first, or the node answered
			// short): the tx's code is not known, so it is not counted
			// committed.
			f.ledger.NoResult(tx.hash)
			continue
		}
		res := codes[tx.i]
		if lat, ok := f.ledger.Committed(tx.hash, h, res, fb.seen); ok {
			b.Ours++
			if !res.OK() {
				b.OursFailed++
			}
			ms := float64(lat) / float64(time.Millisecond)
			b.LatencyMean += ms
			b.LatencyMax = max(b.LatencyMax, ms)
		}
	}
	if b.Ours > 0 {
		b.LatencyMean /= float64(b.Ours)
	}
	if f.ledger != nil {
		f.ledger.BlockTime(h, b.Time)
	}
	// This block's LastCommit tells the round in which the previous one
	// was committed; the previous block is complete now.
	if f.held != nil && blk.LastCommit != nil {
		f.held.Round = blk.LastCommit.Round
		f.held.Absent = f.absent(ctx, blk.LastCommit)
		f.emit(*f.held)
	}
	f.held = &b
}

// absent names the validators whose precommit is not in a commit. An
// absent signature carries no address: its index in the height's
// validator set says whose it was, so the set is read (only then).
func (f *Follower) absent(ctx context.Context, c *types.Commit) []string {
	var idx []int
	for i, sig := range c.Signatures {
		if sig.BlockIDFlag == types.BlockIDFlagAbsent {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	var vals []string
	var err error
	for _, rpc := range f.rpcs {
		if vals, err = validatorsAt(ctx, rpc, c.Height); err == nil {
			break
		}
	}
	out := make([]string, 0, len(idx))
	for _, i := range idx {
		if err != nil || i >= len(vals) {
			out = append(out, fmt.Sprintf("#%d", i)) // its index, when the set could not be read
			continue
		}
		out = append(out, vals[i])
	}
	return out
}

// validatorsAt reads the addresses of a height's validator set, in the
// set's order, a page of 100 at a time (at most 100 pages).
func validatorsAt(ctx context.Context, rpc string, height int64) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var out []string
	for page := 1; page <= 100; page++ {
		data, err := nodehttp.Get(ctx, queryClient, fmt.Sprintf("%s/validators?height=%d&page=%d&per_page=100", rpc, height, page))
		if err != nil {
			return nil, err
		}
		var r struct {
			Result *struct {
				Validators []struct {
					Address string `json:"address"`
				} `json:"validators"`
				Total int `json:"total,string"`
			} `json:"result"`
		}
		if err := json.Unmarshal(data, &r); err != nil || r.Result == nil {
			return nil, fmt.Errorf("validators at %d: not a validators answer", height)
		}
		for _, v := range r.Result.Validators {
			out = append(out, v.Address)
		}
		if len(out) >= r.Result.Total || len(r.Result.Validators) == 0 {
			return out, nil
		}
	}
	return out, nil
}

// txResults reads the result codes and gas of a block's txs. Only these
// are decoded (readResults): the full results (events and all, through
// gogoproto's jsonpb) cost the follower half its CPU.
func txResults(ctx context.Context, rpc string, height int64) ([]load.TxResult, error) {
	data, err := nodehttp.Get(ctx, resultsClient, fmt.Sprintf("%s/block_results?height=%d", rpc, height))
	if err != nil && len(data) == 0 {
		return nil, err
	}
	txs, ok := readResults(data)
	if !ok { // not in CometBFT's shape: encoding/json reads it, or says why not
		var r resultsJSON
		if jerr := json.Unmarshal(data, &r); jerr != nil {
			return nil, fmt.Errorf("block_results %d: %w", height, errors.Join(err, jerr))
		}
		if r.Error != nil || r.Result == nil {
			if r.Error == nil {
				return nil, fmt.Errorf("block_results %d: no result (%v)", height, err)
			}
			return nil, fmt.Errorf("block_results %d: %s %s", height, r.Error.Message, r.Error.Data)
		}
		txs = r.Result.TxsResults
	}
	out := make([]load.TxResult, len(txs))
	for i, t := range txs {
		out[i] = load.TxResult{Code: t.Code, Gas: t.Gas}
		if t.Code != 0 {
			out[i].Log = t.Log
		} else if len(t.Data) > 0 {
			out[i].Reverted = vmError(t.Data)
		}
	}
	return out, nil
}

// evmResponse is the type of Cosmos EVM's answer to an EVM tx.
const evmResponse = "/cosmos.evm.vm.v1.MsgEthereumTxResponse"

// vmError reads why an EVM tx failed from a code-0 result's data (the
// SDK's TxMsgData whose msg_responses hold Cosmos EVM's
// MsgEthereumTxResponse, vm_error in field 4): a reverted EVM tx still
// has code 0. "" for anything else.
func vmError(data []byte) string {
	for b := data; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return ""
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return ""
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return ""
		}
		b = b[n:]
		if num != 2 { // msg_responses
			continue
		}
		url, value := anyParts(v)
		if url != evmResponse {
			continue
		}
		for r := value; len(r) > 0; {
			num, typ, n := protowire.ConsumeTag(r)
			if n < 0 {
				return ""
			}
			r = r[n:]
			n = protowire.ConsumeFieldValue(num, typ, r)
			if n < 0 {
				return ""
			}
			if num == 4 && typ == protowire.BytesType {
				s, _ := protowire.ConsumeBytes(r)
				return string(s)
			}
			r = r[n:]
		}
	}
	return ""
}

// anyParts splits a protobuf Any into its type URL and value.
func anyParts(b []byte) (url string, value []byte) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType {
			return url, value
		}
		b = b[n:]
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return url, value
		}
		b = b[n:]
		switch num {
		case 1:
			url = string(v)
		case 2:
			value = v
		}
	}
	return url, value
}

var queryClient = nodehttp.Client(nodehttp.Query)

func (f *Follower) emit(b Block) {
	f.blocks = append(f.blocks, b)
	if f.onBlock != nil {
		f.onBlock(b)
	}
}

// Flush emits the last block read (its round unknown) and returns every
// block read, in height order. Call it after Run has returned.
func (f *Follower) Flush() []Block {
	if f.held != nil {
		f.emit(*f.held)
		f.held = nil
	}
	return f.blocks
}
