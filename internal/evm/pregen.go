package evm

import (
	"context"
	"crypto/sha256"
	"runtime"
	"sync"
	"time"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/load"
)

// A preTx is one tx of a phase signed before it: its envelope, wallets,
// mix entry, nonce and CometBFT hash.
type preTx struct {
	env            []byte
	from, to, kind int
	nonce          uint64
	hash           load.Hash
	gasUp          uint64 // the gas limit raised by this to be unique (vary)
}

// Signing says how the txs were signed: how many before their phase and
// in how long, and how many live past the pregenerated ones (a phase that
// sent more than it was planned for).
type Signing struct {
	Pregenerated int64   `json:"pregenerated"`
	PregenSecs   float64 `json:"pregenerate_s"`
	Live         int64   `json:"signed_live"`
}

// Signing is how this workload's txs were signed.
func (w *Workload) Signing() Signing {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Signing{Pregenerated: w.pregenerated, PregenSecs: w.pregenTime.Seconds(), Live: w.live.Load()}
}

// Prepare settles the last phase and, with Pregenerate, signs the next
// phase's n txs on every core. Settling: a pregenerated tx never sent
// gives its nonce back when it is its sender's last (else the sender is
// re-read), and senders whose nonce is in doubt are re-read from the
// chain before nonces are assigned again.
func (w *Workload) Prepare(ctx context.Context, n int) error {
	w.mu.Lock()
	for seq := len(w.pre) - 1; seq >= int(w.used.Load()); seq-- {
		p := w.pre[seq]
		st := &w.state[p.from]
		st.mu.Lock()
		if st.next == p.nonce+1 {
			st.next--
		} else {
			st.stale = true
		}
		st.mu.Unlock()
	}
	w.pre = nil
	w.used.Store(0)
	w.mu.Unlock()
	if w.cfg.Persistent {
		w.readAll()
	}
	if !w.cfg.Pregenerate || n <= 0 {
		return nil
	}
	for i := range w.state {
		if err := w.readNonce(ctx, i); err != nil {
			return err
		}
	}
	began := time.Now()
	pre := make([]preTx, n)
	for seq := range pre {
		from := w.cfg.Senders.Pick(uint64(seq))
		to := w.cfg.Receivers.Pick(uint64(seq))
		if to == from {
			to = (to + 1) % len(w.wallets)
		}
		st := &w.state[from]
		pre[seq] = preTx{from: from, to: to, kind: w.draw(uint64(seq)), nonce: st.next}
		st.next++
	}
	w.signAll(ctx, pre)
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// A tx of the same bytes as one still in flight (its nonce read back
	// from the chain while the node holds it) would be one tx to the node
	// and two to the ledger: varied until it is new, as Append does.
	seen := make(map[load.Hash]struct{}, n)
	for seq := range pre {
		p := &pre[seq]
		for tries := 1; ; tries++ {
			_, dup := seen[p.hash]
			if _, flying := w.hashes[p.hash]; !dup && !flying {
				break
			}
			p.to = w.vary(p.from, p.to)
			p.gasUp = uint64(tries / len(w.wallets))
			w.sign(p, uint64(seq))
		}
		seen[p.hash] = struct{}{}
	}
	w.pre = pre
	w.pregenerated += int64(n)
	w.pregenTime += time.Since(began)
	w.signed.Add(int64(n))
	return nil
}

// signAll signs pre's txs on every core.
func (w *Workload) signAll(ctx context.Context, pre []preTx) {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			for seq := k; seq < len(pre); seq += workers {
				if seq%1024 == k && ctx.Err() != nil {
					return
				}
				w.sign(&pre[seq], uint64(seq))
			}
		})
	}
	wg.Wait()
}

// sign signs p, tx seq, into its envelope.
func (w *Workload) sign(p *preTx, seq uint64) {
	tx := w.tx(w.cfg.Mix[p.kind], p.from, p.to, p.nonce, seq)
	tx.Gas += p.gasUp
	raw, _ := tx.Sign(w.wallets[p.from].Key)
	p.env = Envelope(p.env[:0], w.wallets[p.from].Address, raw, tx.Gas, tx.Fee(), w.cfg.Denom)
	p.hash = sha256.Sum256(p.env)
}

// appendPre appends pregenerated tx seq once its sender has a slot free
// (PerAccount in flight); ok is false past the pregenerated txs.
func (w *Workload) appendPre(ctx context.Context, buf []byte, seq uint64) (_ []byte, ok bool, err error) {
	w.mu.Lock()
	if seq >= uint64(len(w.pre)) {
		w.mu.Unlock()
		return buf, false, nil
	}
	p := w.pre[seq]
	w.mu.Unlock()
	select {
	case w.state[p.from].gate <- struct{}{}:
	case <-ctx.Done():
		return buf, true, ctx.Err()
	}
	for {
		u := w.used.Load()
		if int64(seq) < u || w.used.CompareAndSwap(u, int64(seq)+1) {
			break
		}
	}
	w.mu.Lock()
	w.refs[seq] = ref{from: p.from, nonce: p.nonce, hash: p.hash, kind: p.kind}
	w.hashes[p.hash] = pair{int32(p.from), int32(p.to), int32(p.kind), p.nonce}
	w.mu.Unlock()
	return append(buf, p.env...), true, nil
}

// readNonce reads wallet i's nonce from the chain when it is in doubt.
func (w *Workload) readNonce(ctx context.Context, i int) error {
	st := &w.state[i]
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.stale {
		return nil
	}
	return w.rereadLocked(ctx, i)
}

// rereadLocked reads wallet i's nonce from its node's CometBFT RPC (x/auth's
// account sequence), its state's lock held.
func (w *Workload) rereadLocked(ctx context.Context, i int) error {
	addr, err := cosmos.Bech32(w.cfg.Prefix, w.wallets[i].Address[:])
	if err != nil {
		return err
	}
	a, err := cosmos.QueryAccount(ctx, w.http, w.cfg.RPCs[i%w.cfg.Targets], addr)
	if err != nil {
		return err
	}
	st := &w.state[i]
	st.next, st.stale = a.Sequence, false
	w.reread.Add(1)
	return nil
}
