package evm

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/load"
)

// Balances is the check after a run: the funds of every wallet and the
// fee collector read from the chain, and every wallet's nonce against the
// txs of it the chain committed.
type Balances struct {
	Denom   string `json:"denom"`
	Wallets int    `json:"wallets"`
	Height  int64  `json:"height"` // the state read, on the first node
	// Funded is the sum of the wallets' balances at the start, Held now,
	// FeeCollector what the fee collector holds (no distribution: every
	// fee stays there), all in wei as decimal strings.
	Funded       string `json:"funded"`
	Held         string `json:"held"`
	FeeCollector string `json:"fee_collector"`
	// Committed is the run's txs the chain committed with code 0, Nonces
	// the sum of the wallets' nonces (each such tx uses one).
	Committed int64 `json:"committed"`
	Nonces    int64 `json:"nonces"`
	// Reverted: committed txs whose receipt says status 0 (they use a
	// nonce and pay their fee).
	Reverted int64 `json:"reverted"`
	// Mismatched wallets have another nonce than their committed txs
	// say, or (ERC20) another token balance than their transfers say.
	Mismatched int      `json:"mismatched"`
	Examples   []string `json:"examples,omitempty"`
	// Conserved: held + fee collector = funded, to the wei; for an ERC20
	// run also the wallets' and the deployer's tokens = the supply.
	Conserved bool `json:"conserved"`
	// Tokens: the wallets' token balances summed (ERC20 runs).
	Tokens string `json:"tokens,omitempty"`
}

// OK says whether nothing was lost and every nonce is accounted for.
func (b *Balances) OK() bool { return b.Conserved && b.Mismatched == 0 }

func (b *Balances) String() string {
	verdict := "conserved"
	if !b.Conserved {
		verdict = "NOT conserved"
	}
	tokens := ""
	if b.Tokens != "" {
		tokens = fmt.Sprintf("; wallets hold %s token units", b.Tokens)
	}
	return fmt.Sprintf("%s: %d wallets and the deployer held %s + fee collector %s of %s funded (%s)%s; nonces %d for %d committed txs (%d reverted), %d wallets mismatched",
		verdict, b.Wallets, b.Held, b.FeeCollector, b.Funded, b.Denom, tokens, b.Nonces, b.Committed, b.Reverted, b.Mismatched)
}

// Committed counts a tx of the run that a block holds: code 0 uses its
// sender's nonce (any other code was refused before it could), and a
// token transfer that did not revert moves tokens.
func (w *Workload) Committed(h load.Hash, height int64, r load.TxResult, _ time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.hashes[h]
	if !ok {
		return
	}
	delete(w.hashes, h)
	w.height = max(w.height, height)
	if r.Code != 0 {
		return
	}
	w.committed[p.from]++
	switch {
	case r.Reverted != "":
		w.reverted++
	case w.cfg.ERC20:
		w.tokensOut[p.from]++
		w.tokensIn[p.to]++
	}
}

// Verify reads every wallet's balance and nonce and the fee collector's
// balance at one height of the node at rpc that holds every committed tx
// (waiting up to wait for it), each wallet funded with funded wei.
func (w *Workload) Verify(ctx context.Context, rpc string, funded *big.Int, wait time.Duration) (*Balances, error) {
	w.mu.Lock()
	need := w.height + 1
	committed := append([]int64(nil), w.committed...)
	out, in := append([]int64(nil), w.tokensOut...), append([]int64(nil), w.tokensIn...)
	reverted := w.reverted
	w.mu.Unlock()
	tip, err := cosmos.WaitHeight(ctx, w.http, rpc, need, wait)
	if err != nil {
		return nil, err
	}
	// A node stores block H before its app commits it: read H-1.
	height := tip - 1
	b := &Balances{Denom: w.cfg.Denom, Wallets: len(w.wallets), Height: height, Reverted: reverted}
	held, tokens := new(big.Int), new(big.Int)
	for _, x := range w.cfg.Extra {
		addr, err := cosmos.Bech32(w.cfg.Prefix, x.Address[:])
		if err != nil {
			return nil, err
		}
		bal, err := cosmos.QueryBalanceBig(ctx, w.http, rpc, addr, w.cfg.Denom, height)
		if err != nil {
			return nil, fmt.Errorf("balance of %s: %w", x.Address, err)
		}
		held.Add(held, bal)
	}
	for i, wl := range w.wallets {
		addr, err := cosmos.Bech32(w.cfg.Prefix, wl.Address[:])
		if err != nil {
			return nil, err
		}
		bal, err := cosmos.QueryBalanceBig(ctx, w.http, rpc, addr, w.cfg.Denom, height)
		if err != nil {
			return nil, fmt.Errorf("balance of %s: %w", wl.Address, err)
		}
		held.Add(held, bal)
		acc, err := cosmos.QueryAccount(ctx, w.http, rpc, addr)
		if err != nil && committed[i] > 0 {
			return nil, fmt.Errorf("account of %s: %w", wl.Address, err)
		}
		b.Committed += committed[i]
		b.Nonces += int64(acc.Sequence)
		off := ""
		if int64(acc.Sequence) != committed[i] {
			off = fmt.Sprintf("nonce %d, %d committed txs", acc.Sequence, committed[i])
		}
		if w.cfg.ERC20 && off == "" {
			tb, err := TokenBalance(ctx, w.http, w.cfg.JSONRPC, w.cfg.Token, wl.Address, height)
			if err != nil {
				return nil, fmt.Errorf("token balance of %s: %w", wl.Address, err)
			}
			tokens.Add(tokens, tb)
			want := new(big.Int).Mul(big.NewInt(in[i]-out[i]), new(big.Int).SetUint64(w.cfg.TokenAmount))
			if want.Add(want, w.cfg.TokenEach); want.Cmp(tb) != 0 {
				off = fmt.Sprintf("%s token units, its transfers say %s", tb, want)
			}
		}
		if off != "" {
			b.Mismatched++
			if len(b.Examples) < 5 {
				b.Examples = append(b.Examples, fmt.Sprintf("%s: %s", wl.Address, off))
			}
		}
	}
	if w.cfg.ERC20 {
		b.Tokens = tokens.String()
	}
	fees, err := cosmos.QueryBalanceBig(ctx, w.http, rpc, cosmos.ModuleAddress(w.cfg.Prefix, "fee_collector"), w.cfg.Denom, height)
	if err != nil {
		return nil, fmt.Errorf("fee collector's balance: %w", err)
	}
	total := new(big.Int).Mul(funded, big.NewInt(int64(len(w.wallets)+len(w.cfg.Extra))))
	b.Funded, b.Held, b.FeeCollector = total.String(), held.String(), fees.String()
	b.Conserved = new(big.Int).Add(held, fees).Cmp(total) == 0
	if w.cfg.ERC20 && b.Mismatched == 0 {
		// Every wallet got TokenEach; transfers between them move tokens.
		all := new(big.Int).Mul(w.cfg.TokenEach, big.NewInt(int64(len(w.wallets))))
		b.Conserved = b.Conserved && tokens.Cmp(all) == 0
	}
	return b, nil
}
