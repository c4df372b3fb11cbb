package cosmos

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chainperf/chainperf/internal/load"
)

// Kinds of Cosmos workloads.
const (
	KindSend      = "cosmos-send"
	KindMultiSend = "cosmos-multisend"
)

// WorkloadConfig is what a Cosmos workload sends.
type WorkloadConfig struct {
	Kind     string
	Live     bool // sign when due; else pregenerate each phase
	ChainID  string
	Denom    string
	Amount   uint64 // to each receiver
	Outputs  int    // receivers of a multisend
	GasLimit uint64
	Fee      uint64
	Funded   uint64 // each wallet's genesis balance
	// Start, if set, is each wallet's balance at the start instead (funded
	// on a running chain, where earlier runs may have left more).
	Start []uint64
	// GasPrice prices the fee when FeeFromGas is set: fee = ceil(gas x
	// price), after a simulation sets the gas limit.
	GasPrice   float64
	FeeFromGas bool
	// Senders and Receivers pick wallet indexes (over the same wallets,
	// with different seeds).
	Senders, Receivers load.Selector
	Targets            int      // RPC nodes; wallet i sends to node i % Targets
	RPCs               []string // to read sequences from (live repair, phase starts)
	// CacheDir, if set, keeps each phase's pregenerated txs in a file named
	// by a hash of all that makes them: a repeated run reads them back.
	CacheDir string
	Logf     func(string, ...any)
}

// A Workload sends bank txs from the funded wallets, keeping each wallet's
// sequence and balance locally: across phases and, in live mode, repaired
// from the node's own word when they drift. It remembers every tx it made,
// so that after a run balances can be checked against the txs the chain
// committed.
type Workload struct {
	cfg     WorkloadConfig
	wallets []Wallet
	state   []wstate
	http    *http.Client

	mu       sync.Mutex
	pre      [][]byte // this phase's pregenerated txs, by seq
	seqs     []txRef  // this phase's txs, by seq (live txs too)
	used     atomic.Int64
	effects  map[load.Hash]*effect // every tx made, for the balance check
	height   int64                 // highest block holding one of them
	signed   atomic.Int64          // memo numbers handed out
	cached   atomic.Int64          // txs read from the cache, not signed
	live     atomic.Int64          // txs signed live past the pregenerated ones
	repaired atomic.Int64          // sequence repairs
	skipped  atomic.Int64          // senders skipped for want of funds (live)
	signTime time.Duration         // pregeneration, all phases
}

type wstate struct {
	// gate is held from a tx's Append to its Sent: a wallet's next tx
	// leaves only after the node answered for the one before, so that
	// sequences reach the node in order even over many connections.
	gate  gate
	mu    sync.Mutex
	next  uint64 // sequence of the wallet's next tx
	spent uint64 // sent and fees, counted when signed (live mode's balance check)
	stale bool   // re-read the sequence before the next tx
}

type txRef struct {
	from  int32
	nonce uint64
	ok    bool
	eff   *effect
}

// effect is what a tx does to balances if it commits.
type effect struct {
	from     int32
	to       []int32
	code     int64 // -1 until committed
	accepted bool  // a node took it into its mempool
}

// NewWorkload returns a workload over wallets (numbered as funded).
func NewWorkload(cfg WorkloadConfig, wallets []Wallet) (*Workload, error) {
	switch {
	case cfg.Kind != KindSend && cfg.Kind != KindMultiSend:
		return nil, fmt.Errorf("unknown Cosmos workload %q", cfg.Kind)
	case len(wallets) < 2:
		return nil, fmt.Errorf("a Cosmos workload needs at least 2 wallets")
	case cfg.Start != nil && len(cfg.Start) != len(wallets):
		return nil, fmt.Errorf("%d start balances for %d wallets", len(cfg.Start), len(wallets))
	case cfg.Targets < 1:
		cfg.Targets = 1
	}
	if cfg.Kind == KindSend {
		cfg.Outputs = 1
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	state := make([]wstate, len(wallets))
	for i := range state {
		state[i].gate = gate{ch: make(chan struct{}, 1)}
	}
	return &Workload{cfg: cfg, wallets: wallets, state: state,
		http: &http.Client{Timeout: 10 * time.Second}, effects: map[load.Hash]*effect{}}, nil
}

func (w *Workload) String() string {
	mode := "pregenerated"
	if w.cfg.Live {
		mode = "live"
	}
	what := "MsgSend"
	if w.cfg.Kind == KindMultiSend {
		what = fmt.Sprintf("MsgMultiSend to %d", w.cfg.Outputs)
	}
	return fmt.Sprintf("%s (%s, %s), %d wallets, %s, gas %d, fee %d%s", w.cfg.Kind, what, mode, len(w.wallets), w.cfg.Senders, w.cfg.GasLimit, w.cfg.Fee, w.cfg.Denom)
}

// GasAdjustment multiplies the simulated gas, as the SDK CLI's
// --gas-adjustment does: a tx's gas varies a little with the state.
const GasAdjustment = 1.3

// SimulateGas sets the gas limit (and a fee priced from it) from a
// simulation of one tx of this workload on the first node. Call it before
// any tx is sent: the simulated tx uses its sender's next sequence.
func (w *Workload) SimulateGas(ctx context.Context) (used uint64, err error) {
	if len(w.cfg.RPCs) == 0 {
		return 0, fmt.Errorf("simulate: no RPC node")
	}
	from := w.cfg.Senders.Pick(0)
	keep := w.cfg
	w.cfg.GasLimit, w.cfg.Fee = 50_000_000, 0
	var b Builder
	tx, _, err := w.sign(&b, 0, txRef{from: int32(from), nonce: w.state[from].next, ok: true}, 0)
	w.cfg = keep
	if err != nil {
		return 0, err
	}
	if used, err = Simulate(ctx, w.http, w.cfg.RPCs[0], tx); err != nil {
		return 0, err
	}
	w.cfg.GasLimit = uint64(math.Ceil(float64(used) * GasAdjustment))
	if w.cfg.FeeFromGas {
		w.cfg.Fee = uint64(math.Ceil(float64(w.cfg.GasLimit) * w.cfg.GasPrice))
	}
	return used, nil
}

// start is wallet i's balance at the start.
func (w *Workload) start(i int) uint64 {
	if w.cfg.Start != nil {
		return w.cfg.Start[i]
	}
	return w.cfg.Funded
}

// cost is what one tx takes from its sender's balance.
func (w *Workload) cost() uint64 { return w.cfg.Amount*uint64(w.cfg.Outputs) + w.cfg.Fee }

// receivers picks tx seq's receivers, never the sender.
func (w *Workload) receivers(seq uint64, from int, to []int32) []int32 {
	n := len(w.wallets)
	for j := 0; j < w.cfg.Outputs; j++ {
		r := w.cfg.Receivers.Pick(seq*uint64(w.cfg.Outputs) + uint64(j))
		if r == from {
			r = (r + 1) % n
		}
		to = append(to, int32(r))
	}
	return to
}

// Route pins a wallet's txs to one node.
func (w *Workload) Route(seq uint64) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if seq < uint64(len(w.seqs)) && w.seqs[seq].ok {
		return int(w.seqs[seq].from) % w.cfg.Targets
	}
	return w.cfg.Senders.Pick(seq) % w.cfg.Targets
}

// Prepare settles the last phase (sequences of txs that were never sent are
// given back; wallets whose txs were refused are re-read from the chain)
// and, in pregenerate mode, signs the next phase's n txs on every core.
func (w *Workload) Prepare(ctx context.Context, n int) error {
	w.mu.Lock()
	used := int(w.used.Load())
	for seq := len(w.seqs) - 1; seq >= used && seq >= 0; seq-- {
		if r := w.seqs[seq]; r.ok {
			st := &w.state[r.from]
			if st.next == r.nonce+1 {
				st.next--
				st.spent -= w.cost()
			} else {
				st.stale = true
			}
		}
	}
	w.seqs, w.pre = w.seqs[:0], nil
	w.used.Store(0)
	w.mu.Unlock()
	if err := w.resync(ctx); err != nil {
		return err
	}
	if w.cfg.Live || n == 0 {
		return nil
	}
	began := time.Now()
	refs := make([]txRef, n)
	for seq := 0; seq < n; seq++ {
		from := w.cfg.Senders.Pick(uint64(seq))
		st := &w.state[from]
		refs[seq] = txRef{from: int32(from), nonce: st.next, ok: true}
		st.next++
		st.spent += w.cost()
	}
	memo := w.signed.Load() + 1 // tx seq gets memo+seq: the same txs every time
	w.signed.Add(int64(n))
	effects := make([]*effect, n)
	for seq := range refs {
		effects[seq] = &effect{from: refs[seq].from, to: w.receivers(uint64(seq), int(refs[seq].from), nil), code: -1}
	}
	cache := w.cachePath(refs, effects, memo)
	pre, err := readCache(cache, n)
	if err != nil {
		w.cfg.Logf("pregenerated txs: %v; signing them again", err)
	}
	if pre == nil {
		if pre, err = w.signAll(ctx, refs, memo); err != nil {
			return err
		}
		if err := writeCache(cache, pre); err != nil {
			w.cfg.Logf("pregenerated txs not cached: %v", err)
		}
	} else {
		w.cached.Add(int64(n))
		w.cfg.Logf("read %d pregenerated txs from %s", n, cache)
	}
	w.mu.Lock()
	w.pre, w.seqs = pre, refs
	for i, tx := range pre {
		w.effects[sha256.Sum256(tx)] = effects[i]
		refs[i].eff = effects[i]
	}
	w.signTime += time.Since(began)
	w.mu.Unlock()
	w.cfg.Logf("%d txs ready in %s (%.0f tx/s)", n, time.Since(began).Round(time.Millisecond), float64(n)/time.Since(began).Seconds())
	return nil
}

// signAll signs refs on every core; tx seq gets memo number memo+seq.
func (w *Workload) signAll(ctx context.Context, refs []txRef, memo int64) ([][]byte, error) {
	n := len(refs)
	pre := make([][]byte, n)
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var b Builder
			for seq := k; seq < n; seq += workers {
				if ctx.Err() != nil {
					errs[k] = ctx.Err()
					return
				}
				tx, _, err := w.sign(&b, uint64(seq), refs[seq], memo+int64(seq))
				if err != nil {
					errs[k] = err
					return
				}
				pre[seq] = tx
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return pre, nil
}

// resync re-reads the sequences of stale wallets from the first node.
func (w *Workload) resync(ctx context.Context) error {
	var stale []int
	for i := range w.state {
		if w.state[i].stale {
			stale = append(stale, i)
		}
	}
	if len(stale) == 0 || len(w.cfg.RPCs) == 0 {
		return nil
	}
	for _, i := range stale {
		a, err := QueryAccount(ctx, w.http, w.cfg.RPCs[0], w.wallets[i].Address)
		if err != nil {
			return fmt.Errorf("re-read the sequence of wallet %d: %w", i, err)
		}
		st := &w.state[i]
		st.mu.Lock()
		st.next, st.stale = a.Sequence, false
		st.mu.Unlock()
	}
	w.repaired.Add(int64(len(stale)))
	w.cfg.Logf("re-read the sequences of %d wallets", len(stale))
	return nil
}

// sign builds and signs tx seq as ref says; memo numbers it.
func (w *Workload) sign(b *Builder, seq uint64, ref txRef, memo int64) ([]byte, *effect, error) {
	from := &w.wallets[ref.from]
	to := w.receivers(seq, int(ref.from), make([]int32, 0, w.cfg.Outputs))
	coin := Coin{Denom: w.cfg.Denom, Amount: w.cfg.Amount}
	// The memo numbers every tx the workload signs: no two are the same
	// bytes (and hash) even when a repaired sequence is used again.
	var m [24]byte
	spec := TxSpec{ChainID: w.cfg.ChainID, Fee: Coin{Denom: w.cfg.Denom, Amount: w.cfg.Fee}, GasLimit: w.cfg.GasLimit,
		Memo: string(strconv.AppendInt(append(m[:0], "cp"...), memo, 10))}
	if w.cfg.Kind == KindSend {
		spec.MsgURL, spec.Msg = URLMsgSend, MsgSend(nil, from.Address, w.wallets[to[0]].Address, coin)
	} else {
		addrs := make([]string, len(to))
		for i, r := range to {
			addrs[i] = w.wallets[r].Address
		}
		spec.MsgURL, spec.Msg = URLMsgMultiSend, MsgMultiSend(nil, from.Address, addrs, coin)
	}
	tx, err := b.Append(nil, &spec, from, ref.nonce)
	return tx, &effect{from: ref.from, to: to, code: -1}, err
}

// A gate is a lock that a waiter can give up on when its context ends.
type gate struct{ ch chan struct{} }

func (g *gate) lock(ctx context.Context) error {
	select {
	case g.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) tryLock() bool {
	select {
	case g.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

func (g *gate) unlock() { <-g.ch }

var builders = sync.Pool{New: func() any { return new(Builder) }}

// Append appends tx seq: the pregenerated one, or one signed now. It waits
// while the sender's previous tx has no answer yet; the generator must
// call Sent for every tx it appended (one tx per request).
func (w *Workload) Append(ctx context.Context, buf []byte, seq uint64) ([]byte, error) {
	for {
		u := w.used.Load()
		if int64(seq) < u || w.used.CompareAndSwap(u, int64(seq)+1) {
			break
		}
	}
	w.mu.Lock()
	if seq < uint64(len(w.pre)) {
		tx, from := w.pre[seq], w.seqs[seq].from
		w.mu.Unlock()
		if err := w.state[from].gate.lock(ctx); err != nil {
			return buf, err
		}
		return append(buf, tx...), nil
	}
	w.mu.Unlock()
	if !w.cfg.Live {
		w.live.Add(1)
	}
	from, err := w.pickFree(ctx, seq)
	if err != nil {
		return buf, err
	}
	st := &w.state[from]
	st.mu.Lock()
	if st.stale {
		if a, err := QueryAccount(ctx, w.http, w.cfg.RPCs[0], w.wallets[from].Address); err == nil {
			st.next, st.stale = a.Sequence, false
		}
	}
	ref := txRef{from: int32(from), nonce: st.next, ok: true}
	st.next++
	st.spent += w.cost()
	st.mu.Unlock()
	b := builders.Get().(*Builder)
	tx, eff, err := w.sign(b, seq, ref, w.signed.Add(1))
	builders.Put(b)
	if err != nil {
		st.mu.Lock()
		st.next--
		st.spent -= w.cost()
		st.mu.Unlock()
		st.gate.unlock() // no Sent will come for a tx that was not made
		return buf, fmt.Errorf("sign tx %d of wallet %d: %w", seq, from, err)
	}
	w.mu.Lock()
	for uint64(len(w.seqs)) <= seq {
		w.seqs = append(w.seqs, txRef{})
	}
	ref.eff = eff
	w.seqs[seq] = ref
	w.effects[sha256.Sum256(tx)] = eff
	w.mu.Unlock()
	return append(buf, tx...), nil
}

// pickFree picks seq's sender and takes its gate. In live mode it passes
// over senders whose local balance cannot pay and senders whose previous tx
// still waits for its answer (up to 16 picks; then it waits for the last
// one and lets the chain judge the balance): a busy wallet does not hold
// up the schedule.
func (w *Workload) pickFree(ctx context.Context, seq uint64) (int, error) {
	from := w.cfg.Senders.Pick(seq)
	if !w.cfg.Live {
		return from, w.state[from].gate.lock(ctx)
	}
	for k := uint64(1); k <= 16; k++ {
		st := &w.state[from]
		st.mu.Lock()
		funded := st.spent+w.cost() <= w.start(from)
		st.mu.Unlock()
		if !funded {
			w.skipped.Add(1)
		} else if st.gate.tryLock() {
			return from, nil
		}
		from = w.cfg.Senders.Pick(seq + k<<40)
	}
	return from, w.state[from].gate.lock(ctx)
}

var mismatchRE = regexp.MustCompile(`account sequence mismatch, expected (\d+), got (\d+)`)

// Sent repairs a wallet's sequence after a refusal: the node's expected
// sequence when it says it; one back when the refused tx was the wallet's
// last; otherwise a re-read before the wallet's next tx.
func (w *Workload) Sent(seq uint64, o load.Outcome, why string) {
	w.mu.Lock()
	var ref txRef
	if seq < uint64(len(w.seqs)) {
		ref = w.seqs[seq]
	}
	if ref.ok && o == load.Accepted {
		ref.eff.accepted = true
	}
	w.mu.Unlock()
	if !ref.ok {
		return
	}
	w.state[ref.from].gate.unlock()
	if o == load.Accepted {
		return
	}
	st := &w.state[ref.from]
	st.mu.Lock()
	defer st.mu.Unlock()
	if o == load.Rejected {
		st.spent -= w.cost()
	}
	if m := mismatchRE.FindStringSubmatch(why); m != nil && w.cfg.Live {
		expected, _ := strconv.ParseUint(m[1], 10, 64)
		st.next = expected
		w.repaired.Add(1)
		return
	}
	switch {
	case o == load.SendError:
		st.stale = true // the node may or may not have taken it
	case st.next == ref.nonce+1:
		st.next = ref.nonce
	default:
		st.stale = true
	}
}

// Committed records the result code of one of our txs in a block.
func (w *Workload) Committed(h load.Hash, height int64, code uint32) {
	w.mu.Lock()
	if e := w.effects[h]; e != nil {
		e.code = int64(code)
		w.height = max(w.height, height)
	}
	w.mu.Unlock()
}

// Stats are what the workload did besides sending.
type Stats struct {
	Signed      int     `json:"signed"`
	Cached      int64   `json:"read_from_cache,omitempty"`
	PregenSecs  float64 `json:"pregenerate_s"`
	SignedLive  int64   `json:"signed_live"` // past the pregenerated txs
	Repairs     int64   `json:"sequence_repairs"`
	SkippedPoor int64   `json:"senders_skipped"`
}

// Stats reports signing and repair counts.
func (w *Workload) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Stats{Signed: int(w.signed.Load() - w.cached.Load()), Cached: w.cached.Load(), PregenSecs: w.signTime.Seconds(), SignedLive: w.live.Load(), Repairs: w.repaired.Load(), SkippedPoor: w.skipped.Load()}
}
