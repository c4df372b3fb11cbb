package evm

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sync"
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
	// fee stays there), all in wei as decimal strings. On an external
	// network Fees replaces FeeCollector: the fees the committed txs paid,
	// reckoned from their gas and their blocks' base fees.
	Funded       string `json:"funded"`
	Held         string `json:"held"`
	FeeCollector string `json:"fee_collector,omitempty"`
	Fees         string `json:"fees,omitempty"`
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
	// Contracts: what the contract txs left on the chain, checked.
	Contracts *Contracts `json:"contracts,omitempty"`
}

// Contracts is the check of the store, burn and deploy txs: each store's
// slot holds its value and the store contract counted every store; each
// deploy's address (its sender and nonce) holds the code; each burn used
// the gas of its turns.
type Contracts struct {
	Stores     int64    `json:"stores"`      // store txs committed and not reverted
	Counted    int64    `json:"counted"`     // the store contract's count of writes
	StoresRead int64    `json:"stores_read"` // their slots read back with their value
	Deploys    int64    `json:"deploys"`     // deploy txs committed and not reverted
	Deployed   int64    `json:"deployed"`    // of those, addresses that hold the code
	Burns      int64    `json:"burns"`       // burn txs committed and not reverted
	BurnsShort int64    `json:"burns_short"` // of those, burns that used less gas than their turns cost
	Examples   []string `json:"examples,omitempty"`
}

// OK says whether every contract tx left what it should.
func (c *Contracts) OK() bool {
	return c == nil || c.Counted == c.Stores && c.StoresRead == c.Stores && c.Deployed == c.Deploys && c.BurnsShort == 0
}

func (c *Contracts) String() string {
	verdict := "as sent"
	if !c.OK() {
		verdict = "NOT as sent"
	}
	return fmt.Sprintf("contracts %s: %d stores (count %d, %d slots right), %d deploys (%d with the code), %d burns (%d short of gas)",
		verdict, c.Stores, c.Counted, c.StoresRead, c.Deploys, c.Deployed, c.Burns, c.BurnsShort)
}

// OK says whether nothing was lost and every nonce is accounted for.
func (b *Balances) OK() bool { return b.Conserved && b.Mismatched == 0 && b.Contracts.OK() }

func (b *Balances) String() string {
	verdict := "conserved"
	if !b.Conserved {
		verdict = "NOT conserved"
	}
	tokens := ""
	if b.Tokens != "" {
		tokens = fmt.Sprintf("; wallets hold %s token units", b.Tokens)
	}
	contracts := ""
	if b.Contracts != nil {
		contracts = "; " + b.Contracts.String()
	}
	fees := "fee collector " + b.FeeCollector
	if b.Fees != "" {
		fees = "fees paid " + b.Fees
	}
	return fmt.Sprintf("%s: %d wallets and the deployer held %s + %s of %s funded (%s)%s; nonces %d for %d committed txs (%d reverted), %d wallets mismatched%s",
		verdict, b.Wallets, b.Held, fees, b.Funded, b.Denom, tokens, b.Nonces, b.Committed, b.Reverted, b.Mismatched, contracts)
}

// Committed counts a tx of the run that a block holds: code 0 uses its
// sender's nonce (any other code was refused before it could), and a
// token transfer that did not revert moves tokens.
func (w *Workload) Committed(h load.Hash, height int64, r load.TxResult, latency time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.hashes[h]
	if !ok {
		return
	}
	delete(w.hashes, h)
	if w.pool != nil {
		w.pool.committed(int(p.from), p.nonce, time.Now())
	}
	if w.cfg.Persistent && w.blockFrees(int(p.from), h) {
		w.refresh(int(p.from), false) // read again, then free
	}
	w.height = max(w.height, height)
	w.kinds[p.kind].Committed(r.OK(), float64(r.Gas), latency)
	if r.Code != 0 {
		return
	}
	w.committed[p.from]++
	w.gasAt[height] += uint64(max(r.Gas, 0))
	m := w.cfg.Mix[p.kind]
	switch {
	case r.Reverted != "":
		w.reverted++
	case m.Kind == ERC20:
		amount := new(big.Int).SetUint64(m.Amount)
		w.tokens[p.from].Sub(&w.tokens[p.from], amount)
		w.tokens[p.to].Add(&w.tokens[p.to], amount)
	case m.Kind == Store, m.Kind == Create:
		w.made = append(w.made, madeBy{p.kind, p.from, p.nonce})
	case m.Kind == Burn:
		w.burns++
		if cost := 21000 + BurnTurnGas*m.Amount; uint64(max(r.Gas, 0)) < cost {
			if w.short++; len(w.shortSeen) < 5 {
				w.shortSeen = append(w.shortSeen, fmt.Sprintf("a burn of %d turns by %s (nonce %d) used %d gas, its turns cost %d", m.Amount, w.wallets[p.from].Address, p.nonce, r.Gas, cost))
			}
		}
	}
}

// Stats are the workload's results by kind of tx, with rates over
// loadSecs.
func (w *Workload) Stats(loadSecs float64) []cosmos.KindStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []cosmos.KindStats
	for i := range w.kinds {
		out = append(out, w.kinds[i].Stats(w.cfg.Mix[i].Kind, w.cfg.Mix[i].Weight, loadSecs))
	}
	return out
}

// erc20 says whether the mix sends token transfers.
func (w *Workload) erc20() bool { return w.has(ERC20) }

// has says whether the mix sends txs of kind.
func (w *Workload) has(kind string) bool {
	return slices.ContainsFunc(w.cfg.Mix, func(m MixEntry) bool { return m.Kind == kind })
}

// checkContracts reads back into c, at height, what each store and deploy
// tx in made left (a slot, a contract's code) and the store contract's
// count; c holds the burns Committed counted (and those short of gas).
func (w *Workload) checkContracts(ctx context.Context, height int64, made []madeBy, c *Contracts) error {
	note := func(f string, a ...any) {
		if len(c.Examples) < 5 {
			c.Examples = append(c.Examples, fmt.Sprintf(f, a...))
		}
	}
	url := w.cfg.JSONRPC
	for _, t := range made {
		from := w.wallets[t.from].Address
		switch w.cfg.Mix[t.kind].Kind {
		case Store:
			c.Stores++
			v, err := StorageAt(ctx, w.http, url, w.cfg.Store, StoreKey(from, t.nonce), height)
			if err != nil {
				return fmt.Errorf("store of %s (nonce %d): %w", from, t.nonce, err)
			}
			if v.IsUint64() && v.Uint64() == t.nonce+1 {
				c.StoresRead++
			} else {
				note("the slot of %s's store with nonce %d holds %s, not %d", from, t.nonce, v, t.nonce+1)
			}
		case Create:
			c.Deploys++
			at := CreateAddress(from, t.nonce)
			code, err := CodeAt(ctx, w.http, url, at, height)
			if err != nil {
				return fmt.Errorf("code at %s: %w", at, err)
			}
			if bytes.Equal(code, storeCode) {
				c.Deployed++
			} else {
				note("%s (deployed by %s with nonce %d) holds %d bytes of code, not the %d deployed", at, from, t.nonce, len(code), len(storeCode))
			}
		}
	}
	if w.has(Store) {
		n, err := StorageAt(ctx, w.http, url, w.cfg.Store, [32]byte{}, height)
		if err != nil {
			return fmt.Errorf("the store contract's count: %w", err)
		}
		if !n.IsInt64() {
			return fmt.Errorf("the store contract's count is %s", n)
		}
		c.Counted = n.Int64()
	}
	return nil
}

// Verify reads every wallet's balance and nonce at one height of the
// node at rpc that holds every committed tx (waiting up to wait for it)
// and checks them against funded, the wei the wallets and the extra
// accounts held at the start together. On a testnet the fee collector's
// balance is the fees; on an external network (cfg.External) each
// wallet's balance and nonce is read by JSON-RPC and the fees are
// reckoned from the committed txs.
func (w *Workload) Verify(ctx context.Context, rpc string, funded *big.Int, wait time.Duration) (*Balances, error) {
	w.mu.Lock()
	need := w.height + 1
	committed := append([]int64(nil), w.committed...)
	moved := make([]big.Int, len(w.tokens))
	for i := range w.tokens {
		moved[i].Set(&w.tokens[i])
	}
	reverted := w.reverted
	made := slices.Clone(w.made)
	contracts := &Contracts{Burns: w.burns, BurnsShort: w.short, Examples: slices.Clone(w.shortSeen)}
	gasAt := maps.Clone(w.gasAt)
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
		bal, err := w.balanceOf(ctx, rpc, x.Address, height)
		if err != nil {
			return nil, fmt.Errorf("balance of %s: %w", x.Address, err)
		}
		held.Add(held, bal)
	}
	// On a testnet every balance and nonce in two scans (a page of 5,000
	// a query); on an external network, whose accounts are many, the
	// wallets' in JSON-RPC batches; token balances a wallet at a time on
	// 8 connections at once.
	var balances map[string]*big.Int
	var sequences map[string]uint64
	var ext []Account
	if w.cfg.External {
		addrs := make([]Address, len(w.wallets))
		for i, wl := range w.wallets {
			addrs[i] = wl.Address
		}
		if ext, err = ReadAccounts(ctx, w.http, w.cfg.JSONRPC, addrs, height); err != nil {
			return nil, fmt.Errorf("the wallets' balances and nonces: %w", err)
		}
	} else {
		if balances, err = cosmos.HolderBalances(ctx, w.http, rpc, w.cfg.Denom, height, 0); err != nil {
			return nil, fmt.Errorf("balances: %w", err)
		}
		if sequences, err = cosmos.AccountSequences(ctx, w.http, rpc, height); err != nil {
			return nil, fmt.Errorf("nonces: %w", err)
		}
	}
	const workers = 8
	type part struct {
		held, tokens      big.Int
		committed, nonces int64
		mismatched        int
		examples          []string
		err               error
	}
	parts := make([]part, workers)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pt := &parts[p]
			for i := p; i < len(w.wallets) && pt.err == nil && ctx.Err() == nil; i += workers {
				wl := w.wallets[i]
				addr, err := cosmos.Bech32(w.cfg.Prefix, wl.Address[:])
				if err != nil {
					pt.err = err
					break
				}
				// A wallet without a balance holds none; one that never
				// sent has no account (or sequence) yet: nonce 0.
				if bal := balances[addr]; bal != nil {
					pt.held.Add(&pt.held, bal)
				}
				nonce := sequences[addr]
				if ext != nil {
					pt.held.Add(&pt.held, ext[i].Balance)
					nonce = ext[i].Nonce
				}
				off := ""
				if w.cfg.Start != nil {
					if nonce < w.cfg.Start[i] {
						off = fmt.Sprintf("nonce %d, below the %d it started at", nonce, w.cfg.Start[i])
						nonce = w.cfg.Start[i]
					}
					nonce -= w.cfg.Start[i]
				}
				var tb *big.Int
				if w.erc20() {
					if tb, err = TokenBalance(ctx, w.http, w.cfg.JSONRPC, w.cfg.Token, wl.Address, height); err != nil {
						pt.err = fmt.Errorf("token balance of %s: %w", wl.Address, err)
						break
					}
				}
				pt.committed += committed[i]
				pt.nonces += int64(nonce)
				switch {
				case off != "":
				case int64(nonce) != committed[i]:
					off = fmt.Sprintf("nonce %d, %d committed txs", nonce, committed[i])
				case tb != nil:
					pt.tokens.Add(&pt.tokens, tb)
					if want := new(big.Int).Add(w.cfg.TokenEach, &moved[i]); want.Cmp(tb) != 0 {
						off = fmt.Sprintf("%s token units, its transfers say %s", tb, want)
					}
				}
				if off != "" {
					pt.mismatched++
					if len(pt.examples) < 5 {
						pt.examples = append(pt.examples, fmt.Sprintf("%s: %s", wl.Address, off))
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range parts {
		pt := &parts[i]
		if pt.err != nil {
			return nil, pt.err
		}
		held.Add(held, &pt.held)
		tokens.Add(tokens, &pt.tokens)
		b.Committed += pt.committed
		b.Nonces += pt.nonces
		b.Mismatched += pt.mismatched
		for _, x := range pt.examples {
			if len(b.Examples) < 5 {
				b.Examples = append(b.Examples, x)
			}
		}
	}
	if w.erc20() {
		b.Tokens = tokens.String()
	}
	var fees *big.Int
	if w.cfg.External {
		if fees, err = w.feesPaid(ctx, gasAt); err != nil {
			return nil, err
		}
		b.Fees = fees.String()
	} else {
		if fees, err = cosmos.QueryBalanceBig(ctx, w.http, rpc, cosmos.ModuleAddress(w.cfg.Prefix, "fee_collector"), w.cfg.Denom, height); err != nil {
			return nil, fmt.Errorf("fee collector's balance: %w", err)
		}
		b.FeeCollector = fees.String()
	}
	b.Funded, b.Held = funded.String(), held.String()
	b.Conserved = new(big.Int).Add(held, fees).Cmp(funded) == 0
	if w.has(Store) || w.has(Create) || w.has(Burn) {
		if err := w.checkContracts(ctx, height, made, contracts); err != nil {
			return nil, err
		}
		b.Contracts = contracts
	}
	if w.erc20() && b.Mismatched == 0 {
		// Every wallet got TokenEach; transfers between them move tokens.
		all := new(big.Int).Mul(w.cfg.TokenEach, big.NewInt(int64(len(w.wallets))))
		b.Conserved = b.Conserved && tokens.Cmp(all) == 0
	}
	return b, nil
}

// balanceOf reads addr's balance at height: by JSON-RPC on an external
// network, else from the bank.
func (w *Workload) balanceOf(ctx context.Context, rpc string, addr Address, height int64) (*big.Int, error) {
	if w.cfg.External {
		return BalanceAt(ctx, w.http, w.cfg.JSONRPC, addr, height)
	}
	bech, err := cosmos.Bech32(w.cfg.Prefix, addr[:])
	if err != nil {
		return nil, err
	}
	return cosmos.QueryBalanceBig(ctx, w.http, rpc, bech, w.cfg.Denom, height)
}

// feesPaid reckons what the committed txs paid: each block's gas at the
// price a tx of the workload pays there (a legacy tx its price; a
// dynamic-fee tx the block's base fee plus the tip, at most its cap),
// the base fee read from the block.
func (w *Workload) feesPaid(ctx context.Context, gasAt map[int64]uint64) (*big.Int, error) {
	fees := new(big.Int)
	for h, gas := range gasAt {
		price := new(big.Int).SetUint64(w.cfg.MaxFee)
		if !w.cfg.Legacy {
			base, err := BaseFeeAt(ctx, w.http, w.cfg.JSONRPC, h)
			if err != nil {
				return nil, fmt.Errorf("the fees paid in block %d: %w", h, err)
			}
			if p := base.Add(base, new(big.Int).SetUint64(w.cfg.Tip)); p.Cmp(price) < 0 {
				price = p
			}
		}
		fees.Add(fees, price.Mul(price, new(big.Int).SetUint64(gas)))
	}
	return fees, nil
}
