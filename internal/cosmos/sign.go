package cosmos

import (
	"context"
	"crypto/sha256"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/chainperf/chainperf/internal/msgtemplate"
)

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
				tx, err := w.sign(&b, refs[seq], memo+int64(seq))
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

// sign builds and signs the tx ref says; memo numbers it (and, for an
// unordered tx, sets it apart: its timeout is the signing time + Timeout
// + memo ns, so no two of a wallet's txs share one).
func (w *Workload) sign(b *Builder, ref txRef, memo int64) ([]byte, error) {
	return w.signWith(b, ref, memo, w.cfg.Mix, w.cfg.GasLimit, w.cfg.Fee)
}

// signWith signs as sign does with the amounts of mix, a gas limit and a
// fee (a simulation's).
func (w *Workload) signWith(b *Builder, ref txRef, memo int64, mix []MixEntry, gas, fee uint64) ([]byte, error) {
	from, err := w.signer(ref.from)
	if err != nil {
		return nil, err
	}
	// The memo numbers every tx the workload signs: no two are the same
	// bytes (and hash) even when a repaired sequence is used again.
	var m [24]byte
	spec := TxSpec{ChainID: w.cfg.ChainID, Fee: Coin{Denom: w.cfg.Denom, Amount: fee}, GasLimit: gas,
		Memo: string(strconv.AppendInt(append(m[:0], "cp"...), memo, 10)), Msgs: make([]Any, 0, len(ref.eff.msgs))}
	if w.cfg.Unordered {
		spec.Unordered, spec.Timeout = true, time.Now().Add(w.cfg.Timeout).Truncate(time.Second).UnixNano()+memo%1e9
		ref.eff.timeout = spec.Timeout
	}
	for _, msg := range ref.eff.msgs {
		k := mix[msg.kind]
		if k.Template != nil {
			v := msgtemplate.Vars{Wallet: from.Address, Other: w.wallets[msg.to[0]].Address, Denom: w.cfg.Denom, N: msg.n, Seed: w.cfg.MixSeed}
			body, err := k.Template.Append(nil, &v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k.Msg, err)
			}
			spec.Msgs = append(spec.Msgs, Any{k.Template.URL, body})
			continue
		}
		coin := Coin{Denom: w.cfg.Denom, Amount: k.Amount}
		switch k.Msg {
		case MsgSendKind:
			spec.Msgs = append(spec.Msgs, Any{URLMsgSend, MsgSend(nil, from.Address, w.wallets[msg.to[0]].Address, coin)})
		case MsgMultiSendKind:
			addrs := make([]string, len(msg.to))
			for i, r := range msg.to {
				addrs[i] = w.wallets[r].Address
			}
			spec.Msgs = append(spec.Msgs, Any{URLMsgMultiSend, MsgMultiSend(nil, from.Address, addrs, coin)})
		case MsgDelegateKind:
			spec.Msgs = append(spec.Msgs, Any{URLMsgDelegate, MsgDelegate(nil, from.Address, w.cfg.Validators[msg.val], coin)})
		case MsgUndelegateKind:
			spec.Msgs = append(spec.Msgs, Any{URLMsgUndelegate, MsgDelegate(nil, from.Address, w.cfg.Validators[msg.val], coin)})
		case MsgRedelegateKind:
			spec.Msgs = append(spec.Msgs, Any{URLMsgBeginRedelegate, MsgBeginRedelegate(nil, from.Address, w.cfg.Validators[msg.val], w.cfg.Validators[msg.dst], coin)})
		}
	}
	return b.Append(nil, &spec, from, ref.nonce)
}

// A gate is a lock that a waiter can give up on when its context ends.
// Its channel is made on first use: most of a million wallets never send.
type gate struct {
	once sync.Once
	ch   chan struct{}
}

func (g *gate) c() chan struct{} {
	g.once.Do(func() { g.ch = make(chan struct{}, 1) })
	return g.ch
}

func (g *gate) lock(ctx context.Context) error {
	select {
	case g.c() <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) tryLock() bool {
	select {
	case g.c() <- struct{}{}:
		return true
	default:
		return false
	}
}

func (g *gate) unlock() { <-g.c() }

// Prepare settles the last phase (sequences of txs that were never sent are
// given back; wallets whose txs were refused are re-read from the chain)
// and, in pregenerate mode, signs the next phase's n txs on every core.
func (w *Workload) Prepare(ctx context.Context, n int) error {
	w.mu.Lock()
	used := int(w.used.Load())
	for seq := len(w.seqs) - 1; seq >= used && seq >= 0; seq-- {
		if r := w.seqs[seq]; r.ok {
			st := &w.state[r.from]
			w.untake(st, r.eff)
			switch {
			case w.cfg.Unordered:
			case st.next == r.nonce+1:
				st.next--
			default:
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
		refs[seq] = w.take(st, w.plan(uint64(seq), from, st))
	}
	memo := w.signed.Load() + 1 // tx seq gets memo+seq: the same txs every time
	w.signed.Add(int64(n))
	cache := w.cachePath(refs, memo)
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
		w.effects[sha256.Sum256(tx)] = refs[i].eff
	}
	w.signTime += time.Since(began)
	w.mu.Unlock()
	w.cfg.Logf("%d txs ready in %s (%.0f tx/s)", n, time.Since(began).Round(time.Millisecond), float64(n)/time.Since(began).Seconds())
	return nil
}
