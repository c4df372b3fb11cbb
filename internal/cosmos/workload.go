package cosmos

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/msgtemplate"
	"github.com/chainperf/chainperf/internal/nodehttp"
)

// Kinds of Cosmos workloads.
const (
	KindSend      = "cosmos-send"
	KindMultiSend = "cosmos-multisend"
	KindMix       = "cosmos-mix"
)

// Message kinds a mix draws from.
const (
	MsgSendKind       = "send"
	MsgMultiSendKind  = "multisend"
	MsgDelegateKind   = "delegate"
	MsgUndelegateKind = "undelegate"
	MsgRedelegateKind = "redelegate"
)

// MsgKinds lists the message kinds.
var MsgKinds = []string{MsgSendKind, MsgMultiSendKind, MsgDelegateKind, MsgUndelegateKind, MsgRedelegateKind}

// A MixEntry is one message kind of a workload and its share.
type MixEntry struct {
	Msg     string
	Weight  float64
	Amount  uint64 // to each receiver, or staked
	Outputs int    // receivers of a multisend
	// Validator a wallet stakes with: -1 its own (wallet i with validator
	// i mod n), else that index. A redelegation moves stake from it to
	// the next validator.
	Validator int
	// Template, if set, is the message (Msg is then the user's name for
	// it): what it does to balances is read from the chain's events.
	Template *msgtemplate.Template
}

// staking says whether the kind moves stake.
func (m MixEntry) staking() bool {
	return m.Msg == MsgDelegateKind || m.Msg == MsgUndelegateKind || m.Msg == MsgRedelegateKind
}

// WorkloadConfig is what a Cosmos workload sends.
type WorkloadConfig struct {
	Kind    string // the workload's name (KindSend, KindMultiSend, KindMix)
	Live    bool   // sign when due; else pregenerate each phase
	ChainID string
	Denom   string
	// Mix lists the message kinds, each message of a tx drawn by weight
	// from MixSeed; MsgsPerTx messages a tx (0: 1).
	Mix       []MixEntry
	MsgsPerTx int
	MixSeed   uint64
	// Validators are the operator addresses staking messages go to.
	Validators []string
	// Unordered sends Cosmos SDK v0.53 unordered txs: no sequence, a
	// timeout Timeout after signing, many in flight per wallet.
	Unordered bool
	Timeout   time.Duration
	GasLimit  uint64
	Fee       uint64
	Funded    uint64 // each wallet's genesis balance
	// Start, if set, is each wallet's balance at the start instead (funded
	// on a running chain, where earlier runs may have left more), and
	// Sequences each one's next sequence there (earlier runs used some).
	Start     []uint64
	Sequences []uint64
	// GasPrice prices the fee when FeeFromGas is set: fee = ceil(gas x
	// price), after a simulation sets the gas limit.
	GasPrice   float64
	FeeFromGas bool
	// Senders and Receivers pick wallet indexes (over the same wallets,
	// with different seeds).
	Senders, Receivers load.Selector
	Targets            int      // RPC nodes; wallet i sends to node i % Targets
	RPCs               []string // to read sequences from (live repair, phase starts)
	// Keys derives wallet i's key, for wallets that came without one
	// (Unkeyed): derived when the wallet first signs, and kept.
	Keys func(i int) (Wallet, error)
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
	keys    []atomic.Pointer[Wallet] // unkeyed wallets' keys, once derived
	state   []wstate
	http    *http.Client

	mu       sync.Mutex
	pre      [][]byte // this phase's pregenerated txs, by seq
	seqs     []txRef  // this phase's txs, by seq (live txs too)
	used     atomic.Int64
	effects  map[load.Hash]*effect // every tx made, for the balance check
	credits  map[string]uint64     // what txs not of the load gave wallets (Credit)
	kinds    []KindCounts          // by mix entry
	weights  float64               // sum of the mix's weights
	height   int64                 // highest block holding one of them
	signed   atomic.Int64          // memo numbers handed out
	cached   atomic.Int64          // txs read from the cache, not signed
	live     atomic.Int64          // txs signed live past the pregenerated ones
	repaired atomic.Int64          // sequence repairs
	skipped  atomic.Int64          // senders skipped for want of funds (live)
	expired  int64                 // accepted unordered txs no block held by their timeout
	signTime time.Duration         // pregeneration, all phases
}

type wstate struct {
	// gate is held from a tx's Append to its Sent: a wallet's next tx
	// leaves only after the node answered for the one before, so that
	// sequences reach the node in order even over many connections.
	gate   gate
	mu     sync.Mutex
	next   uint64 // sequence of the wallet's next tx
	spent  uint64 // sent, staked and fees, counted when signed (live mode's balance check)
	bonded int64  // staked with its own validator by its txs so far, as signed
	stale  bool   // re-read the sequence before the next tx
}

type txRef struct {
	from  int32
	nonce uint64
	ok    bool
	eff   *effect
}

// effect is what a tx does to balances and stake if it commits.
type effect struct {
	from     int32
	msgs     []msgEffect
	code     int64 // -1 until committed
	accepted bool  // a node took it into its mempool
	timeout  int64 // an unordered tx's, Unix ns
}

// msgEffect is one message of a tx: its mix entry and whom it pays or
// which validators it stakes with; a template's {other} and its number in
// the run ({counter}, and the seed of its random placeholders).
type msgEffect struct {
	kind     uint8
	to       []int32
	val, dst int32
	n        uint64
}

// NewWorkload returns a workload over wallets (numbered as funded).
func NewWorkload(cfg WorkloadConfig, wallets []Wallet) (*Workload, error) {
	switch {
	case cfg.Kind != KindSend && cfg.Kind != KindMultiSend && cfg.Kind != KindMix:
		return nil, fmt.Errorf("unknown Cosmos workload %q", cfg.Kind)
	case len(wallets) < 2:
		return nil, fmt.Errorf("a Cosmos workload needs at least 2 wallets")
	case cfg.Start != nil && len(cfg.Start) != len(wallets):
		return nil, fmt.Errorf("%d start balances for %d wallets", len(cfg.Start), len(wallets))
	case cfg.Sequences != nil && len(cfg.Sequences) != len(wallets):
		return nil, fmt.Errorf("%d start sequences for %d wallets", len(cfg.Sequences), len(wallets))
	case len(cfg.Mix) == 0 || len(cfg.Mix) > 255:
		return nil, fmt.Errorf("a Cosmos workload needs 1 to 255 message kinds, not %d", len(cfg.Mix))
	case cfg.Unordered && cfg.Timeout <= 0:
		return nil, fmt.Errorf("unordered txs need a timeout")
	}
	cfg.Targets = max(cfg.Targets, 1)
	cfg.MsgsPerTx = max(cfg.MsgsPerTx, 1)
	seen := map[string]bool{}
	for i, m := range cfg.Mix {
		switch {
		case seen[m.Msg]:
			return nil, fmt.Errorf("message kind %q twice in the mix", m.Msg)
		case !(m.Weight > 0):
			return nil, fmt.Errorf("message kind %q: weight %v, want > 0", m.Msg, m.Weight)
		case m.staking() && len(cfg.Validators) == 0:
			return nil, fmt.Errorf("message kind %q needs the chain's validators", m.Msg)
		case m.Msg == MsgRedelegateKind && len(cfg.Validators) < 2:
			return nil, fmt.Errorf("redelegate needs 2 validators, the chain has %d", len(cfg.Validators))
		case m.staking() && m.Validator >= len(cfg.Validators):
			return nil, fmt.Errorf("message kind %q: validator %d of %d", m.Msg, m.Validator, len(cfg.Validators))
		case m.Template != nil:
			cfg.Mix[i].Outputs = 1 // the wallet {other} names
		case m.Msg == MsgSendKind:
			cfg.Mix[i].Outputs = 1
		case m.Msg == MsgMultiSendKind && m.Outputs < 1:
			return nil, fmt.Errorf("multisend needs outputs >= 1")
		case !m.staking() && m.Msg != MsgMultiSendKind:
			return nil, fmt.Errorf("unknown message kind %q (want one of %v)", m.Msg, MsgKinds)
		}
		seen[m.Msg] = true
	}
	if (seen[MsgUndelegateKind] || seen[MsgRedelegateKind]) && !seen[MsgDelegateKind] {
		return nil, fmt.Errorf("undelegate and redelegate need delegate in the mix: a wallet has stake to move only once it delegated")
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	state := make([]wstate, len(wallets))
	for i := range state {
		if cfg.Sequences != nil {
			state[i].next = cfg.Sequences[i]
		}
	}
	kinds := make([]KindCounts, len(cfg.Mix))
	var weights float64
	for i := range kinds {
		kinds[i] = NewKindCounts()
		weights += cfg.Mix[i].Weight
	}
	w := &Workload{cfg: cfg, wallets: wallets, state: state, kinds: kinds, weights: weights,
		http: nodehttp.Client(nodehttp.Query), effects: map[load.Hash]*effect{}}
	if slices.ContainsFunc(wallets, func(w Wallet) bool { return w.Key == nil }) {
		if cfg.Keys == nil {
			return nil, fmt.Errorf("wallets without keys and no way to derive them")
		}
		w.keys = make([]atomic.Pointer[Wallet], len(wallets))
	}
	return w, nil
}

// signer is wallet i with its key: an unkeyed wallet's derived the first
// time it signs, and checked against its address.
func (w *Workload) signer(i int32) (*Wallet, error) {
	wl := &w.wallets[i]
	if wl.Key != nil {
		return wl, nil
	}
	if k := w.keys[i].Load(); k != nil {
		return k, nil
	}
	k, err := WithKey(*wl, int(i), w.cfg.Keys)
	if err != nil {
		return nil, err
	}
	w.keys[i].Store(&k)
	return &k, nil
}

func (w *Workload) String() string {
	mode := "pregenerated"
	if w.cfg.Live {
		mode = "live"
	}
	var what []string
	for _, m := range w.cfg.Mix {
		s := m.Msg
		if m.Msg == MsgMultiSendKind {
			s += fmt.Sprintf(" to %d", m.Outputs)
		}
		if len(w.cfg.Mix) > 1 {
			s += fmt.Sprintf(" x%g", m.Weight)
		}
		what = append(what, s)
	}
	if w.cfg.MsgsPerTx > 1 {
		what = append(what, fmt.Sprintf("%d msgs a tx", w.cfg.MsgsPerTx))
	}
	if w.cfg.Unordered {
		what = append(what, "unordered, timeout "+w.cfg.Timeout.String())
	}
	return fmt.Sprintf("%s (%s, %s), %d wallets, %s, gas %d, fee %d%s", w.cfg.Kind, strings.Join(what, ", "), mode, len(w.wallets), w.cfg.Senders, w.cfg.GasLimit, w.cfg.Fee, w.cfg.Denom)
}

// GasAdjustment multiplies the simulated gas, as the SDK CLI's
// --gas-adjustment does: a tx's gas varies a little with the state.
const GasAdjustment = 1.3

// SimulateGas sets the gas limit (and a fee priced from it) from
// simulations on the first node: one tx of MsgsPerTx messages of each
// kind of the mix, the costliest setting the limit for every tx (one fee
// for all keeps the balance check exact). An undelegate or redelegate is
// simulated after a delegate in the same tx, since the sender has nothing
// staked yet: an upper bound. An unordered tx's nonce is not stored in a
// simulation (some 4,000 gas): the adjustment covers it. Call it before
// any tx is sent: the simulated txs use their sender's next sequence.
func (w *Workload) SimulateGas(ctx context.Context) (used uint64, err error) {
	if len(w.cfg.RPCs) == 0 {
		return 0, fmt.Errorf("simulate: no RPC node")
	}
	from := w.cfg.Senders.Pick(0)
	// A fee of at least 1: paying one costs gas (a bank transfer to the
	// fee collector; about 18,000 gas in the one comparison made), which
	// a fee-less simulation leaves out.
	fee := max(w.cfg.Fee, 1)
	// The simulated tx asks for a generous limit, but no more than a block
	// may hold: a chain with a block gas limit refuses a tx over it.
	// A node may not have the latest height's parameters saved yet: ask
	// again for a few seconds, then keep the generous limit (a refusal
	// then names the reason).
	limit := uint64(50_000_000)
	for range 10 {
		maxGas, err := BlockMaxGas(ctx, w.http, w.cfg.RPCs[0])
		if err == nil {
			if maxGas > 0 && uint64(maxGas) < limit {
				limit = uint64(maxGas)
			}
			break
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
	var b Builder
	for k, m := range w.cfg.Mix {
		mix := w.cfg.Mix
		e := &effect{from: int32(from)}
		if m.Msg == MsgUndelegateKind || m.Msg == MsgRedelegateKind {
			d := w.delegateEntry()
			e.msgs = append(e.msgs, msgEffect{kind: uint8(d), val: int32(w.validatorOf(from, d))})
			mix = slices.Clone(mix)
			mix[d].Amount = m.Amount * uint64(w.cfg.MsgsPerTx)
		}
		for j := range w.cfg.MsgsPerTx {
			e.msgs = append(e.msgs, w.message(k, uint64(j), from))
		}
		tx, err := w.signWith(&b, txRef{from: int32(from), nonce: w.state[from].next, ok: true, eff: e}, 0, mix, limit, fee)
		if err != nil {
			return 0, err
		}
		u, err := Simulate(ctx, w.http, w.cfg.RPCs[0], tx)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", m.Msg, err)
		}
		used = max(used, u)
	}
	w.cfg.GasLimit = uint64(math.Ceil(float64(used) * GasAdjustment))
	if w.cfg.FeeFromGas {
		w.cfg.Fee = uint64(math.Ceil(float64(w.cfg.GasLimit) * w.cfg.GasPrice))
	}
	return used, nil
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

var builders = sync.Pool{New: func() any { return new(Builder) }}

// Append appends tx seq: the pregenerated one, or one signed now. For
// ordered txs it waits while the sender's previous tx has no answer yet;
// the generator must call Sent for every tx it appended (one tx per
// request).
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
		if !w.cfg.Unordered {
			if err := w.state[from].gate.lock(ctx); err != nil {
				return buf, err
			}
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
	if st.stale && !w.cfg.Unordered {
		if a, err := QueryAccount(ctx, w.http, w.cfg.RPCs[0], w.wallets[from].Address); err == nil {
			st.next, st.stale = a.Sequence, false
		}
	}
	ref := w.take(st, w.plan(seq, from, st))
	st.mu.Unlock()
	b := builders.Get().(*Builder)
	tx, err := w.sign(b, ref, w.signed.Add(1))
	builders.Put(b)
	if err != nil {
		st.mu.Lock()
		if !w.cfg.Unordered {
			st.next--
		}
		w.untake(st, ref.eff)
		st.mu.Unlock()
		if !w.cfg.Unordered {
			st.gate.unlock() // no Sent will come for a tx that was not made
		}
		return buf, fmt.Errorf("sign tx %d of wallet %d: %w", seq, from, err)
	}
	w.mu.Lock()
	for uint64(len(w.seqs)) <= seq {
		w.seqs = append(w.seqs, txRef{})
	}
	w.seqs[seq] = ref
	w.effects[sha256.Sum256(tx)] = ref.eff
	w.mu.Unlock()
	return append(buf, tx...), nil
}

// pickFree picks seq's sender and, for ordered txs, takes its gate. In
// live mode it passes over senders whose local balance cannot pay and
// senders whose previous tx still waits for its answer (up to 16 picks;
// then it waits for the last one and lets the chain judge the balance):
// a busy wallet does not hold up the schedule.
func (w *Workload) pickFree(ctx context.Context, seq uint64) (int, error) {
	from := w.cfg.Senders.Pick(seq)
	if !w.cfg.Live {
		if w.cfg.Unordered {
			return from, nil
		}
		return from, w.state[from].gate.lock(ctx)
	}
	for k := uint64(1); k <= 16; k++ {
		st := &w.state[from]
		st.mu.Lock()
		funded := st.spent+w.cost(w.plan(seq, from, st)) <= w.start(from)
		st.mu.Unlock()
		switch {
		case !funded:
			w.skipped.Add(1)
		case w.cfg.Unordered:
			return from, nil
		case st.gate.tryLock():
			return from, nil
		}
		from = w.cfg.Senders.Pick(seq + k<<40)
	}
	if w.cfg.Unordered {
		return from, nil
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
	if ref.ok {
		ref.eff.accepted = o == load.Accepted
		w.count(ref.eff, func(k *KindCounts) { k.Sent(o == load.Accepted) })
	}
	w.mu.Unlock()
	if !ref.ok {
		return
	}
	if !w.cfg.Unordered {
		w.state[ref.from].gate.unlock()
	}
	if o == load.Accepted {
		return
	}
	st := &w.state[ref.from]
	st.mu.Lock()
	defer st.mu.Unlock()
	if o == load.Rejected {
		w.untake(st, ref.eff)
	}
	if w.cfg.Unordered {
		return
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

// Committed records the result of one of our txs in a block: its code for
// the balance check, and by message kind the commit, its latency and a
// share of the tx's gas.
func (w *Workload) Committed(h load.Hash, height int64, r load.TxResult, latency time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.effects[h]
	if e == nil {
		return
	}
	e.code = int64(r.Code)
	w.height = max(w.height, height)
	gas := float64(r.Gas) / float64(len(e.msgs))
	w.count(e, func(k *KindCounts) { k.Committed(r.Code == 0, gas, latency) })
}
