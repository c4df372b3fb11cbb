package evm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/nodehttp"
)

// TransferGas is what a native value transfer costs; ERC20Gas is the gas
// limit of a token transfer (it uses about 35,000-52,000).
const (
	TransferGas = 21000
	ERC20Gas    = 80000
)

// WorkloadConfig says what txs a Workload makes.
type WorkloadConfig struct {
	ChainID uint64
	Denom   string
	MaxFee  uint64 // wei per gas: the fee cap, or a legacy tx's price
	Tip     uint64 // wei per gas
	Legacy  bool
	// Senders and Receivers pick a tx's wallets by its number.
	Senders, Receivers load.Selector
	// Targets is how many nodes the txs go to; RPCs their CometBFT RPC
	// (nonces are re-read there) and Prefix the chain's bech32 prefix.
	Targets int
	RPCs    []string
	Prefix  string
	// Mix is the kinds of tx drawn by weight (one entry: every tx is of
	// that kind); MixSeed seeds the draws.
	Mix     []MixEntry
	MixSeed uint64
	// Token is the deployed token ERC20 txs call, TokenEach each wallet's
	// tokens at the start; JSONRPC is a node's JSON-RPC server the token
	// balances are read from after the run.
	Token     Address
	TokenEach *big.Int
	JSONRPC   string
	// PerAccount is how many txs of one account are in flight at once (0
	// is 1); AppMempool says the nodes queue a tx whose nonce leaves a gap
	// (Cosmos EVM's application-side mempool) instead of refusing it.
	PerAccount int
	AppMempool bool
	// Store and Burner are the deployed contracts store and burn txs call.
	Store, Burner Address
	// Extra are accounts funded like the wallets that send no load (the
	// token's deployer): their balances count in the check.
	Extra []Wallet
	// Start is each wallet's nonce at the start (nil: 0, funded in genesis
	// and never used). External says the chain is not chainperf's: other
	// accounts' txs move its fee collector, so the check reads each
	// wallet's own balance and nonce and reckons the fees from the
	// committed txs' gas and their blocks' base fees.
	Start    []uint64
	External bool
	// Pregenerate signs each phase's txs before it (Prepare), senders
	// and nonces assigned ahead; else each tx is signed when due, from a
	// sender with a slot free, and a refused tx's nonce is used again.
	Pregenerate bool
	// Persistent reads each sender's nonce and balance from the chain
	// (JSONRPCs[its target], else JSONRPC) before the first phase and
	// after each of its txs is in a block, before its next (persistent.go).
	Persistent bool
	JSONRPCs   []string
}

// Kinds of tx.
const (
	Native = "native" // a value transfer of Amount wei
	ERC20  = "erc20"  // transfer(receiver, Amount token units) to the token
	Store  = "store"  // two storage writes: a slot of the sender's own and the count
	Burn   = "burn"   // Amount turns of the burner's loop (BurnTurnGas each)
	Create = "deploy" // a contract created (the store contract's code)
)

// Kinds are the kinds of tx a mix draws from.
var Kinds = []string{Native, ERC20, Store, Burn, Create}

// A MixEntry is one kind of tx, its weight and amount.
type MixEntry struct {
	Kind   string
	Weight float64
	Amount uint64
}

// A Workload makes EVM txs from the funded wallets, of the kinds drawn
// from its mix, each signed when due with its sender's next nonce
// (counted here; PerAccount txs in flight a sender, nonces assigned ahead
// of the answers), in the Cosmos envelope CometBFT's broadcast_tx_sync
// takes.
type Workload struct {
	cfg     WorkloadConfig
	wallets []Wallet
	state   []wstate
	http    *http.Client

	mu        sync.Mutex
	refs      map[uint64]ref      // tx number -> sender and nonce, until Sent
	hashes    map[load.Hash]pair  // tx -> its wallets, until a block holds it
	committed []int64             // per wallet: its txs committed with code 0
	tokens    []big.Int           // per wallet: tokens its successful transfers moved in (-out)
	reverted  int64               // txs committed with code 0 and receipt status 0
	made      []madeBy            // store and deploy txs committed and not reverted
	burns     int64               // burn txs committed and not reverted
	short     int64               // of those, burns that used less gas than their turns cost
	shortSeen []string            // the first 5 of them, said
	height    int64               // the highest block that held one of the txs
	gasAt     map[int64]uint64    // gas the txs committed with code 0 used, by height
	kinds     []cosmos.KindCounts // by Mix entry
	total     float64             // the mix's weights summed

	signed, repaired, reread atomic.Int64

	pre          []preTx      // this phase's pregenerated txs, by seq
	used         atomic.Int64 // pregenerated txs appended: the highest seq + 1
	live         atomic.Int64 // txs signed live past the pregenerated ones
	pregenerated int64
	pregenTime   time.Duration

	persist persistence
	costs   []*big.Int // by Mix entry: what a tx may take from its sender
	pool    *poolWatch // the nodes' EVM mempools read (WatchPool), or nil
}

type wstate struct {
	gate  chan struct{} // a slot held from Append to Sent: PerAccount in flight
	mu    sync.Mutex
	next  uint64 // nonce of the wallet's next tx
	stale bool   // the node may or may not hold the last tx: re-read
	// balance as last read from the chain (Persistent; nil: not read);
	// out: it cannot pay, its slot kept so that it sends no more
	balance *big.Int
	out     atomic.Bool
	// Persistent: the accepted tx whose block frees the sender, and the
	// timer that gives up on it (persistStuck).
	waiting load.Hash
	stuck   *time.Timer
}

type ref struct {
	from  int
	nonce uint64
	hash  load.Hash
	kind  int
}

// pair is a tx's sender, receiver, mix entry and nonce.
type pair struct {
	from, to, kind int32
	nonce          uint64
}

// madeBy is a store or deploy tx's mix entry, sender and nonce: what it
// left on the chain follows from them.
type madeBy struct {
	kind  int32
	from  int32
	nonce uint64
}

var (
	_ load.Workload = (*Workload)(nil)
	_ load.Observer = (*Workload)(nil)
	_ load.Router   = (*Workload)(nil)
	_ load.Queuer   = (*Workload)(nil)
	_ load.Preparer = (*Workload)(nil)
)

// NewWorkload makes the workload over wallets, whose nonces start at
// cfg.Start (0 without it).
func NewWorkload(cfg WorkloadConfig, wallets []Wallet) (*Workload, error) {
	if len(wallets) < 2 || cfg.Targets < 1 || cfg.Senders == nil || cfg.Receivers == nil || len(cfg.Mix) == 0 {
		return nil, fmt.Errorf("evm workload: %d wallets, %d targets, %d kinds: need 2 wallets, a target and a kind", len(wallets), cfg.Targets, len(cfg.Mix))
	}
	if cfg.Persistent && cfg.PerAccount > 1 {
		return nil, fmt.Errorf("evm workload: persistent execution sends one tx per sender at a time, not %d", cfg.PerAccount)
	}
	if cfg.Start != nil && len(cfg.Start) != len(wallets) {
		return nil, fmt.Errorf("evm workload: %d start nonces for %d wallets", len(cfg.Start), len(wallets))
	}
	w := &Workload{cfg: cfg, wallets: wallets, state: make([]wstate, len(wallets)),
		http: nodehttp.Client(nodehttp.Query), refs: map[uint64]ref{},
		hashes: map[load.Hash]pair{}, committed: make([]int64, len(wallets)), tokens: make([]big.Int, len(wallets)),
		kinds: make([]cosmos.KindCounts, len(cfg.Mix)), gasAt: map[int64]uint64{}}
	for i := range w.state {
		w.state[i].gate = make(chan struct{}, max(1, cfg.PerAccount))
		if cfg.Start != nil {
			w.state[i].next = cfg.Start[i]
		}
	}
	for i, m := range cfg.Mix {
		if !slices.Contains(Kinds, m.Kind) || !(m.Weight > 0) {
			return nil, fmt.Errorf("evm workload: kind %q weight %g", m.Kind, m.Weight)
		}
		switch {
		case m.Kind == ERC20 && cfg.TokenEach == nil:
			return nil, fmt.Errorf("evm workload: ERC20 txs and no token")
		case m.Kind == Store && cfg.Store == Address{}, m.Kind == Burn && cfg.Burner == Address{}:
			return nil, fmt.Errorf("evm workload: %s txs and no contract for them", m.Kind)
		case m.Kind == Burn && (m.Amount < 1 || m.Amount > MaxBurnTurns):
			return nil, fmt.Errorf("evm workload: burn txs of %d turns: from 1 to %d", m.Amount, MaxBurnTurns)
		}
		w.total += m.Weight
		w.kinds[i] = cosmos.NewKindCounts()
	}
	for _, m := range cfg.Mix {
		w.costs = append(w.costs, w.cost(m))
	}
	return w, nil
}

func (w *Workload) String() string {
	txType := "dynamic-fee"
	if w.cfg.Legacy {
		txType = "legacy"
	}
	var kinds []string
	for _, m := range w.cfg.Mix {
		k := fmt.Sprintf("native transfers of %d wei", m.Amount)
		switch m.Kind {
		case ERC20:
			k = fmt.Sprintf("ERC20 transfers of %d token units (token %s)", m.Amount, w.cfg.Token)
		case Store:
			k = fmt.Sprintf("storage writes (contract %s)", w.cfg.Store)
		case Burn:
			k = fmt.Sprintf("gas burns of %d turns (%d gas, contract %s)", m.Amount, BurnTurnGas*m.Amount, w.cfg.Burner)
		case Create:
			k = fmt.Sprintf("contract deployments (%d bytes of code)", len(storeCode))
		}
		if len(w.cfg.Mix) > 1 {
			k = fmt.Sprintf("%.0f%% %s", 100*m.Weight/w.total, k)
		}
		kinds = append(kinds, k)
	}
	return fmt.Sprintf("%s (%s txs, %d wallets, fee cap %d wei/gas, tip %d)",
		strings.Join(kinds, ", "), txType, len(w.wallets), w.cfg.MaxFee, w.cfg.Tip)
}

// draw picks tx seq's mix entry by weight, a function of the seed and seq.
func (w *Workload) draw(seq uint64) int {
	if len(w.cfg.Mix) == 1 {
		return 0
	}
	x := seq ^ w.cfg.MixSeed
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	u := float64(x>>11) / (1 << 53) * w.total
	for i, m := range w.cfg.Mix {
		if u < m.Weight {
			return i
		}
		u -= m.Weight
	}
	return len(w.cfg.Mix) - 1
}

// Route pins a wallet's txs to one node, so that its nonces reach one
// mempool in order.
func (w *Workload) Route(seq uint64) int { return w.cfg.Senders.Pick(seq) % w.cfg.Targets }

// Append appends tx seq: the pregenerated one, or one signed now from a
// sender with fewer than PerAccount txs unanswered (pickFree), with that
// sender's next nonce.
func (w *Workload) Append(ctx context.Context, buf []byte, seq uint64) ([]byte, error) {
	if w.cfg.Pregenerate {
		out, ok, err := w.appendPre(ctx, buf, seq)
		if ok {
			return out, err
		}
		w.live.Add(1)
	}
	if w.cfg.Persistent {
		w.readAll() // a phase without Prepare: before any slot is taken
	}
	from, err := w.pickFree(ctx, seq)
	if err != nil {
		return buf, err
	}
	k := w.draw(seq)
	if w.cfg.Persistent {
		if from, err = w.payer(ctx, from, w.costs[k]); err != nil {
			return buf, err
		}
	}
	to := w.cfg.Receivers.Pick(seq)
	if to == from {
		to = (to + 1) % len(w.wallets)
	}
	st := &w.state[from]
	st.mu.Lock()
	if st.stale {
		_ = w.rereadLocked(ctx, from) // failed: it goes on from its count
	}
	nonce := st.next
	st.next++
	st.mu.Unlock()
	m := w.cfg.Mix[k]
	start := len(buf)
	// A tx of the same bytes as one still in flight (a nonce used again
	// after a re-read) would be one tx to the node and two sends to the
	// ledger, which follows txs by hash: one of them would never get a
	// fate. So it is varied until it is new (vary). The contract txs
	// carry seq, so theirs never repeat.
	for tries := 0; ; tries++ {
		tx := w.tx(m, from, to, nonce, seq)
		tx.Gas += uint64(tries / len(w.wallets))
		raw, _ := tx.Sign(w.wallets[from].Key)
		w.signed.Add(1)
		buf = Envelope(buf[:start], w.wallets[from].Address, raw, tx.Gas, tx.Fee(), w.cfg.Denom)
		h := load.Hash(sha256.Sum256(buf[start:]))
		w.mu.Lock()
		if _, dup := w.hashes[h]; !dup {
			w.refs[seq] = ref{from: from, nonce: nonce, hash: h, kind: k}
			w.hashes[h] = pair{int32(from), int32(to), int32(k), nonce}
			w.mu.Unlock()
			break
		}
		w.mu.Unlock()
		to = w.vary(from, to)
	}
	return buf, nil
}

// vary is the receiver to try next for a tx of from whose bytes, sent to
// to, would repeat a tx in flight: the next wallet but from. Once every
// receiver was tried (with two wallets there is one), the caller raises
// the gas limit by one each len(wallets) tries, so that varying always
// ends; a tx pays for the gas it uses, so the balance check's sums hold.
func (w *Workload) vary(from, to int) int {
	if to = (to + 1) % len(w.wallets); to == from {
		to = (to + 1) % len(w.wallets)
	}
	return to
}

// tx is tx seq of kind m from wallet from to wallet to with nonce.
func (w *Workload) tx(m MixEntry, from, to int, nonce, seq uint64) Tx {
	tx := Tx{Legacy: w.cfg.Legacy, ChainID: w.cfg.ChainID, Nonce: nonce, Tip: w.cfg.Tip, GasPrice: w.cfg.MaxFee,
		Gas: TransferGas, To: w.wallets[to].Address, Value: m.Amount}
	switch m.Kind {
	case ERC20:
		tx.Gas, tx.To, tx.Value = ERC20Gas, w.cfg.Token, 0
		tx.Data = TransferCall(make([]byte, 0, 68), w.wallets[to].Address, m.Amount)
	case Store:
		tx.Gas, tx.To, tx.Value = StoreGas, w.cfg.Store, 0
		tx.Data = word(StoreCall(make([]byte, 0, 96), w.wallets[from].Address, nonce), seq)
	case Burn:
		tx.Gas, tx.To, tx.Value = BurnGas(m.Amount), w.cfg.Burner, 0
		tx.Data = word(BurnCall(make([]byte, 0, 64), m.Amount), seq)
	case Create:
		tx.Gas, tx.To, tx.Value, tx.Create = DeployGas, Address{}, 0, true
		tx.Data = word(Creation(storeCode), seq) // past the code it copies: never run
	}
	return tx
}

// pickFree picks seq's sender and takes a slot of its gate: the picked
// wallet, or when its PerAccount txs all wait for answers, another wallet
// that goes to the same node (nextFree), so that a busy wallet does not
// hold up the schedule and each wallet's txs still reach one node.
func (w *Workload) pickFree(ctx context.Context, seq uint64) (int, error) {
	from := w.cfg.Senders.Pick(seq)
	if !w.state[from].out.Load() {
		select {
		case w.state[from].gate <- struct{}{}:
			return from, nil
		default:
		}
	}
	return w.nextFree(ctx, from)
}

// nextFree takes a slot of one of the 16 wallets after from that send to
// the same node, are not out of the load (persistent: they cannot pay)
// and have a slot free, else waits for the first of them's; errNoPayer
// when every one is out.
func (w *Workload) nextFree(ctx context.Context, from int) (int, error) {
	n, t := len(w.wallets), w.cfg.Targets
	first := -1
	for j, tried := 1, 0; j <= n && tried < 16; j++ {
		next := (from + j*t) % n
		if next%t != from%t { // wrapped past a count of wallets not a multiple of the nodes
			continue
		}
		tried++
		if w.state[next].out.Load() {
			continue
		}
		if first < 0 {
			first = next
		}
		select {
		case w.state[next].gate <- struct{}{}:
			return next, nil
		default:
		}
	}
	if first < 0 {
		if w.state[from].out.Load() {
			return 0, errNoPayer
		}
		first = from // a single wallet for its node
	}
	select {
	case w.state[first].gate <- struct{}{}:
		return first, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Sent frees the sender for its next tx and repairs its nonce after a
// refusal: a refused tx's nonce is used again by the sender's next tx; a
// send error (the node may or may not have the tx) re-reads it from the
// chain first.
func (w *Workload) Sent(seq uint64, o load.Outcome, _ string) {
	w.mu.Lock()
	r, ok := w.refs[seq]
	delete(w.refs, seq)
	waits := false // persistent: the sender waits for the tx's block
	if ok {
		held := o == load.Accepted || o == load.Queued
		w.kinds[r.kind].Sent(held)
		if held && w.pool != nil {
			w.pool.took(r.from, r.nonce, r.from%w.cfg.Targets, o == load.Queued, time.Now())
		}
		_, following := w.hashes[r.hash] // not: its block was read first
		switch {
		case !held:
			delete(w.hashes, r.hash) // no block will hold it
		case following && w.cfg.Persistent:
			// Under w.mu, under which Committed frees the sender: a
			// block read meanwhile finds the sender waiting for it.
			w.wait(r.from, r.hash)
			waits = true
		}
	}
	w.mu.Unlock()
	if !ok {
		return
	}
	st := &w.state[r.from]
	if o != load.Accepted && o != load.Queued {
		st.mu.Lock()
		switch {
		case o == load.SendError:
			st.stale = true
		case st.next == r.nonce+1:
			st.next = r.nonce
			w.repaired.Add(1)
		default:
			st.stale = true
		}
		st.mu.Unlock()
	}
	switch {
	case !w.cfg.Persistent:
		<-st.gate
	case !waits: // refused, or its block was read before this answer
		w.refresh(r.from, false) // read again, then free
	} // else free once a block holds it (Committed), or persistStuck passed
}

// nonceGap is what Cosmos EVM's ante handler says of a tx whose nonce is
// ahead of its account's.
const nonceGap = "tx nonce is higher than account nonce"

// Queued says whether a refusal left the tx queued in the node: a nonce
// gap, on nodes whose application-side mempool queues it (and answers
// the refusal all the same).
func (w *Workload) Queued(why string) bool {
	return w.cfg.AppMempool && strings.Contains(why, nonceGap)
}

// WatchPool follows the load's txs in the application-side mempool of
// the node each went to (poolWatch), reading the nodes' JSON-RPC servers
// at urls (by target, "" for none) every interval, until PoolStats.
// Called before the load starts.
func (w *Workload) WatchPool(ctx context.Context, urls []string, every time.Duration) {
	w.pool = startPool(ctx, urls, every, w.wallets)
}

// PoolStats ends the pool watch and says what it saw (nil: none ran).
func (w *Workload) PoolStats() *PoolStats {
	if w.pool == nil {
		return nil
	}
	s := w.pool.Stop()
	return &s
}

// Repairs is how many refused txs' nonces were used again and how many
// nonces were re-read from the chain.
func (w *Workload) Repairs() (reused, reread int64) { return w.repaired.Load(), w.reread.Load() }

// A JSONRPCWorkload sends the workload's txs with eth_sendRawTransaction
// to the nodes' JSON-RPC servers instead of CometBFT's broadcast_tx_sync.
// The node wraps each in the envelope the workload made (so the ledger
// follows the same CometBFT hash) and answers after CheckTx.
type JSONRPCWorkload struct {
	*Workload
	urls []string
}

var _ load.Carrier = JSONRPCWorkload{}

// OverJSONRPC sends w's txs to urls, one per RPC node in their order.
func OverJSONRPC(w *Workload, urls []string) JSONRPCWorkload { return JSONRPCWorkload{w, urls} }

// Targets are the JSON-RPC servers.
func (j JSONRPCWorkload) Targets() []string { return j.urls }

// AppendRequest appends an eth_sendRawTransaction request of the signed
// tx env carries.
func (j JSONRPCWorkload) AppendRequest(buf []byte, id uint64, env []byte) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendUint(buf, id, 10)
	buf = append(buf, `,"method":"eth_sendRawTransaction","params":["0x`...)
	buf = hex.AppendEncode(buf, RawOf(env))
	return append(buf, `"]}`...)
}

func (j JSONRPCWorkload) String() string { return j.Workload.String() + " over JSON-RPC" }
