package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chainperf/chainperf/internal/load"
)

// Persistent execution (WorkloadConfig.Persistent): each tx's sender's
// nonce and balance come from the chain (its node's JSON-RPC, the latest
// block), read after the sender's previous tx is in a block (or was
// refused) and before its next, as a client that keeps no state between
// txs does. The read is made when the sender is freed, not when its next
// tx is due, so that waiting for it never delays the schedule: a sender is
// free once its read is back. One tx per sender in flight. A sender whose
// balance cannot pay a tx's fee cap and value is passed over (and kept
// out) for the next free one that goes to the same node. A sender whose
// accepted tx is in no block persistStuck later (a mempool dropped it, or
// holds it past any wait a client makes) is read again and goes on at
// the chain's nonce, as a client that times out does; the tx keeps its own
// fate in the ledger.

// Persistence counts persistent execution's reads.
type Persistence struct {
	Reads      int64 `json:"reads"`       // senders' nonce and balance read
	ReadFailed int64 `json:"read_failed"` // reads that failed: the sender went on with the local count
	ChainAhead int64 `json:"chain_ahead"` // reads whose nonce was past the local count (another client's txs)
	Poor       int64 `json:"poor"`        // senders passed over: their balance could not pay a tx
	// GaveUp: txs in no block persistStuck after their node took them;
	// their senders went on at the chain's nonce.
	GaveUp int64 `json:"gave_up"`
	// ReadMeanMs, ReadMaxMs: the reads during the load, one sender each
	// (the first read of every sender is in bulk, before it).
	ReadMeanMs float64 `json:"read_mean_ms"`
	ReadMaxMs  float64 `json:"read_max_ms"`
}

// persistReads is how many reads run at once.
const persistReads = 16

// persistStuck is how long a sender waits for a block to hold its
// accepted tx before it reads its nonce again and goes on: past the drain
// (20 s by default) after which a run calls such a tx unresolved.
var persistStuck = 30 * time.Second

type persistence struct {
	reads, failed, ahead, poor atomic.Int64
	gaveUp                     atomic.Int64
	took, longest              atomic.Int64 // ns, of the reads during the load
	timed                      atomic.Int64 // those reads
	slots                      chan struct{}
	once                       sync.Once
	wg                         sync.WaitGroup // refreshes under way
}

// Persistence is what persistent execution has read (reads under way
// not counted).
func (w *Workload) Persistence() Persistence {
	p := &w.persist
	out := Persistence{Reads: p.reads.Load(), ReadFailed: p.failed.Load(), ChainAhead: p.ahead.Load(), Poor: p.poor.Load(),
		GaveUp: p.gaveUp.Load(), ReadMaxMs: float64(p.longest.Load()) / 1e6}
	if n := p.timed.Load(); n > 0 {
		out.ReadMeanMs = float64(p.took.Load()) / 1e6 / float64(n)
	}
	return out
}

// readAll takes every sender's slot and reads every sender in bulk from
// the node its txs go to (ReadAccounts: balances by one eth_call for
// hundreds, nonces in batches; 100,000 senders one call each took
// minutes), and returns when all are read (once, at the first phase's
// Prepare, before the load): a sender is free once its read is back.
func (w *Workload) readAll() {
	p := &w.persist
	p.once.Do(func() {
		p.slots = make(chan struct{}, persistReads)
		byNode := map[string][]int{}
		for i := range w.state {
			w.state[i].gate <- struct{}{}
			byNode[w.jsonRPCOf(i)] = append(byNode[w.jsonRPCOf(i)], i)
		}
		var wg sync.WaitGroup
		for url, senders := range byNode {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), readAllTimeout)
				defer cancel()
				addrs := make([]Address, len(senders))
				for k, i := range senders {
					addrs[k] = w.wallets[i].Address
				}
				accts, err := ReadAccounts(ctx, w.http, url, addrs, 0)
				for k, i := range senders {
					if err != nil {
						w.took(i, Account{}, err, false)
					} else {
						w.took(i, accts[k], nil, false)
					}
				}
			})
		}
		wg.Wait()
	})
}

// readAllTimeout bounds the first read of every sender.
const readAllTimeout = 5 * time.Minute

// refresh reads sender i again in the background (its tx is in a block,
// or was refused, or lost: resync) and frees its slot when the read is
// back.
func (w *Workload) refresh(i int, resync bool) {
	p := &w.persist
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.slots <- struct{}{}
		w.read(i, resync)
		<-p.slots
	}()
}

// wait makes sender i wait for the block of its tx h, persistStuck at
// most (then giveUp).
func (w *Workload) wait(i int, h load.Hash) {
	st := &w.state[i]
	st.mu.Lock()
	st.waiting = h
	st.stuck = time.AfterFunc(persistStuck, func() { w.giveUp(i, h) })
	st.mu.Unlock()
}

// blockFrees says whether the block that holds h frees sender i: its
// sender still waits for it (not given up on).
func (w *Workload) blockFrees(i int, h load.Hash) bool {
	st := &w.state[i]
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.waiting != h {
		return false
	}
	st.waiting = load.Hash{}
	st.stuck.Stop()
	return true
}

// giveUp frees sender i, read again at the chain's nonce, when its tx h
// is still in no block.
func (w *Workload) giveUp(i int, h load.Hash) {
	st := &w.state[i]
	st.mu.Lock()
	if st.waiting != h {
		st.mu.Unlock()
		return
	}
	st.waiting = load.Hash{}
	st.mu.Unlock()
	w.persist.gaveUp.Add(1)
	w.refresh(i, true)
}

// read reads sender i's nonce and balance (failed: it goes on with the
// local count), timed, and frees its slot. resync takes the chain's nonce
// even below the local count (the last tx is given up on).
func (w *Workload) read(i int, resync bool) {
	p := &w.persist
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url, addr := w.jsonRPCOf(i), w.wallets[i].Address
	var a Account
	var err error
	if a.Nonce, err = NonceAt(ctx, w.http, url, addr, 0); err == nil {
		a.Balance, err = BalanceAt(ctx, w.http, url, addr, 0)
	}
	took := time.Since(began).Nanoseconds()
	p.timed.Add(1)
	p.took.Add(took)
	for l := p.longest.Load(); took > l && !p.longest.CompareAndSwap(l, took); l = p.longest.Load() {
	}
	w.took(i, a, err, resync)
}

// took applies sender i's read (a failed one counted; the sender goes
// on with its local count) and frees its slot.
func (w *Workload) took(i int, a Account, err error, resync bool) {
	p := &w.persist
	p.reads.Add(1)
	st := &w.state[i]
	st.mu.Lock()
	if err != nil {
		p.failed.Add(1)
	} else {
		st.balance = a.Balance
		switch {
		case a.Nonce > st.next:
			st.next = a.Nonce
			p.ahead.Add(1)
		case resync:
			st.next = a.Nonce
		}
	}
	st.mu.Unlock()
	<-st.gate
}

// jsonRPCOf is the JSON-RPC server wallet from's txs go to.
func (w *Workload) jsonRPCOf(from int) string {
	if t := from % w.cfg.Targets; t < len(w.cfg.JSONRPCs) && w.cfg.JSONRPCs[t] != "" {
		return w.cfg.JSONRPCs[t]
	}
	return w.cfg.JSONRPC
}

// payer returns from (its slot taken) when its balance as last read pays
// cost, else the first free sender after it of the same node that can:
// one that cannot keeps its slot (it is out of the load). Up to 16
// senders, then the phase ends with the reason.
func (w *Workload) payer(ctx context.Context, from int, cost *big.Int) (int, error) {
	for k := 1; ; k++ {
		st := &w.state[from]
		st.mu.Lock()
		bal := st.balance
		st.mu.Unlock()
		if bal == nil || bal.Cmp(cost) >= 0 { // nil: never read (a failed read)
			return from, nil
		}
		w.persist.poor.Add(1)
		st.out.Store(true)
		next, err := w.nextFree(ctx, from)
		if err == nil && k == 16 {
			<-w.state[next].gate
			err = errNoPayer
		}
		if err == errNoPayer {
			return 0, fmt.Errorf("%d wallets in turn cannot pay the %s wei a tx may cost (the last, %s, holds %s): fund them (testnet.evm.wallet_balance)", k, cost, w.wallets[from].Address, bal)
		}
		if err != nil {
			return 0, err
		}
		from = next
	}
}

var errNoPayer = errors.New("no wallet can pay")

// cost is what a tx of mix entry m may take from its sender: gas x fee
// cap, and the value it moves.
func (w *Workload) cost(m MixEntry) *big.Int {
	tx := w.tx(m, 0, 1, 0, 0)
	c := tx.Fee()
	if m.Kind == Native {
		c.Add(c, new(big.Int).SetUint64(m.Amount))
	}
	return c
}
