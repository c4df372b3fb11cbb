package cosmos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// FundOutputs is the most wallets one funding multisend pays: a few
// hundred keep a tx well inside the block gas limits chains set.
const FundOutputs = 250

// Chain is what chainperf reads from a running chain before it sends to it.
type Chain struct {
	ID     string // from the node's /status
	Prefix string // bech32 prefix, from x/auth
}

// ReadChain reads the chain ID and bech32 prefix of the chain at rpc.
func ReadChain(ctx context.Context, c *http.Client, rpc string) (Chain, error) {
	var st struct {
		Result struct {
			NodeInfo struct {
				Network string `json:"network"`
			} `json:"node_info"`
		} `json:"result"`
	}
	if err := getJSON(ctx, c, rpc+"/status", &st); err != nil {
		return Chain{}, err
	}
	if st.Result.NodeInfo.Network == "" {
		return Chain{}, fmt.Errorf("%s/status names no chain ID", rpc)
	}
	resp, err := Query(ctx, c, rpc, "/cosmos.auth.v1beta1.Query/Bech32Prefix", nil, 0)
	if err != nil {
		return Chain{}, fmt.Errorf("bech32 prefix (is this a Cosmos SDK chain of v0.46 or later?): %w", err)
	}
	var prefix string
	if err := Fields(resp, func(num protowire.Number, _ uint64, b []byte) {
		if num == 1 {
			prefix = string(b)
		}
	}); err != nil || prefix == "" {
		return Chain{}, fmt.Errorf("bech32 prefix: no prefix in the answer (%v)", err)
	}
	return Chain{ID: st.Result.NodeInfo.Network, Prefix: prefix}, nil
}

// QueryAllBalances reads every denom an address holds (latest state).
func QueryAllBalances(ctx context.Context, c *http.Client, rpc, address string) (map[string]uint64, error) {
	resp, err := Query(ctx, c, rpc, "/cosmos.bank.v1beta1.Query/AllBalances", appendString(nil, 1, address), 0)
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	var bad error
	err = Fields(resp, func(num protowire.Number, _ uint64, coin []byte) {
		if num != 1 {
			return
		}
		var denom, amount string
		Fields(coin, func(n protowire.Number, _ uint64, b []byte) {
			switch n {
			case 1:
				denom = string(b)
			case 2:
				amount = string(b)
			}
		})
		v, err := strconv.ParseUint(amount, 10, 64)
		if err != nil {
			bad = fmt.Errorf("%s holds %q%s: more than chainperf counts", address, amount, denom)
		}
		out[denom] = v
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// PickDenom is the denom to send: want when the funder holds some, else
// the one denom it holds.
func PickDenom(held map[string]uint64, want, funder string) (string, error) {
	if held[want] > 0 {
		return want, nil
	}
	if len(held) == 1 {
		for d := range held {
			return d, nil
		}
	}
	if len(held) == 0 {
		return "", fmt.Errorf("the funder %s holds nothing on this chain: send it what the run needs first", funder)
	}
	return "", fmt.Errorf("the funder %s holds no %q but %d other denoms: set testnet.cosmos.denom to one of them", funder, want, len(held))
}

// A FundConfig says how to fund wallets from one account of a running
// chain.
type FundConfig struct {
	RPC      string
	ChainID  string
	Funder   Wallet // its Number is read from the chain
	Denom    string
	Each     uint64  // every wallet holds at least this at the start
	GasPrice float64 // a first guess; the node's own minimum when it names one
	Logf     func(string, ...any)
}

// Funded is what Fund did.
type Funded struct {
	// Start is each wallet's balance once funded (at least Each; more
	// where an earlier run left more), Paid what the funder sent them.
	Start []uint64
	// Sequences are each wallet's next sequence: an earlier run may have
	// used it.
	Sequences []uint64
	Paid      uint64
	Txs       int
	Fees      uint64
	GasPrice  float64 // what the node took
}

// Fund tops every wallet up to cfg.Each from the funder, in multisends of
// up to FundOutputs wallets, and reads back every wallet's balance and
// account number (filled into wallets).
func Fund(ctx context.Context, c *http.Client, cfg FundConfig, wallets []Wallet) (Funded, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	var f Funded
	acct, err := QueryAccount(ctx, c, cfg.RPC, cfg.Funder.Address)
	if err != nil {
		return f, fmt.Errorf("the funder %s: %w (has it ever received anything on this chain?)", cfg.Funder.Address, err)
	}
	cfg.Funder.Number = acct.Number
	held, err := balancesAt(ctx, c, cfg.RPC, wallets, cfg.Denom, 0)
	if err != nil {
		return f, err
	}
	var outs []Output
	var need uint64
	for i, h := range held {
		if h < cfg.Each {
			outs = append(outs, Output{Address: wallets[i].Address, Amount: cfg.Each - h})
			need += cfg.Each - h
		}
	}
	has, err := QueryBalance(ctx, c, cfg.RPC, cfg.Funder.Address, cfg.Denom, 0)
	if err != nil {
		return f, err
	}
	if has < need {
		return f, fmt.Errorf("the funder %s holds %d%s; topping %d wallets up to %d%s each needs %d and fees: lower testnet.cosmos.wallets or wallet_balance, or send the funder more", cfg.Funder.Address, has, cfg.Denom, len(outs), cfg.Each, cfg.Denom, need)
	}
	seq := acct.Sequence
	var b Builder
	for len(outs) > 0 {
		batch := outs[:min(FundOutputs, len(outs))]
		fee, err := sendFunding(ctx, c, &cfg, &b, batch, seq)
		if err != nil {
			return f, err
		}
		outs = outs[len(batch):]
		f.Txs++
		f.Fees += fee
		seq++
		for _, o := range batch {
			f.Paid += o.Amount
		}
	}
	f.GasPrice = cfg.GasPrice
	if f.Txs > 0 {
		cfg.Logf("funding: %d multisend txs pay %d%s to %d wallets; waiting for their blocks", f.Txs, f.Paid, cfg.Denom, len(wallets))
		if err := waitSequence(ctx, c, cfg.RPC, cfg.Funder.Address, seq, time.Minute); err != nil {
			return f, fmt.Errorf("funding txs: %w", err)
		}
	}
	f.Start, f.Sequences = make([]uint64, len(wallets)), make([]uint64, len(wallets))
	err = each(ctx, len(wallets), func(i int) error {
		h, err := QueryBalance(ctx, c, cfg.RPC, wallets[i].Address, cfg.Denom, 0)
		if err != nil {
			return fmt.Errorf("balance of wallet %d: %w", i, err)
		}
		if h < cfg.Each {
			return fmt.Errorf("funding: wallet %d (%s) holds %d%s after its funding tx, not %d: the tx failed in its block", i, wallets[i].Address, h, cfg.Denom, cfg.Each)
		}
		a, err := QueryAccount(ctx, c, cfg.RPC, wallets[i].Address)
		f.Start[i], f.Sequences[i], wallets[i].Number = h, a.Sequence, a.Number
		return err
	})
	return f, err
}

// sendFunding signs and sends one multisend at sequence seq and returns
// its fee. The gas is simulated; a node that wants a higher fee than
// cfg.GasPrice gives says what it wants, and the price is raised to that.
func sendFunding(ctx context.Context, c *http.Client, cfg *FundConfig, b *Builder, outs []Output, seq uint64) (uint64, error) {
	spec := TxSpec{ChainID: cfg.ChainID, Msgs: One(URLMsgMultiSend, MsgMultiSendTo(nil, cfg.Funder.Address, outs, cfg.Denom)), GasLimit: 50_000_000}
	tx, err := b.Append(nil, &spec, &cfg.Funder, seq)
	if err != nil {
		return 0, err
	}
	used, err := Simulate(ctx, c, cfg.RPC, tx)
	if err != nil {
		return 0, fmt.Errorf("funding tx: %w", err)
	}
	spec.GasLimit = uint64(math.Ceil(float64(used) * GasAdjustment))
	for try := 0; ; try++ {
		spec.Fee = Coin{Denom: cfg.Denom, Amount: uint64(math.Ceil(float64(spec.GasLimit) * cfg.GasPrice))}
		if tx, err = b.Append(nil, &spec, &cfg.Funder, seq); err != nil {
			return 0, err
		}
		code, log, err := BroadcastSync(ctx, c, cfg.RPC, tx)
		if err != nil {
			return 0, err
		}
		if code == 0 {
			return spec.Fee.Amount, nil
		}
		want, ok := requiredFee(log, cfg.Denom)
		if code != codeInsufficientFee || !ok || try > 0 {
			return 0, fmt.Errorf("funding tx refused: code %d: %s", code, log)
		}
		cfg.GasPrice = float64(want) / float64(spec.GasLimit)
		cfg.Logf("funding: the node wants %d%s for %d gas: gas price %g", want, cfg.Denom, spec.GasLimit, cfg.GasPrice)
	}
}

// codeInsufficientFee is the SDK's ErrInsufficientFee.
const codeInsufficientFee = 13

var (
	requiredRe = regexp.MustCompile(`required: ([^;\s]+)`)
	coinRe     = regexp.MustCompile(`^([0-9]+)([a-zA-Z][a-zA-Z0-9/._-]*)$`)
)

// requiredFee reads the fee of denom an SDK node asked for ("insufficient
// fees; got: 10stake required: 200stake,3uatom: insufficient fee").
func requiredFee(log, denom string) (uint64, bool) {
	m := requiredRe.FindStringSubmatch(log)
	if m == nil {
		return 0, false
	}
	for _, c := range strings.Split(strings.TrimRight(m[1], ":."), ",") {
		if p := coinRe.FindStringSubmatch(c); p != nil && p[2] == denom {
			if v, err := strconv.ParseUint(p[1], 10, 64); err == nil {
				return v, true
			}
		}
	}
	return 0, false
}

// Sweep sends what each wallet holds beyond one fee back to the funder, a
// MsgSend each, and waits for them. It returns what came back.
func Sweep(ctx context.Context, c *http.Client, cfg FundConfig, wallets []Wallet) (uint64, error) {
	held, err := balancesAt(ctx, c, cfg.RPC, wallets, cfg.Denom, 0)
	if err != nil {
		return 0, err
	}
	// One simulation prices them all: they differ only in amount.
	spec := TxSpec{ChainID: cfg.ChainID, GasLimit: 50_000_000,
		Msgs: One(URLMsgSend, MsgSend(nil, wallets[0].Address, cfg.Funder.Address, Coin{Denom: cfg.Denom, Amount: 1}))}
	a0, err := QueryAccount(ctx, c, cfg.RPC, wallets[0].Address)
	if err != nil {
		return 0, err
	}
	var b Builder
	tx, err := b.Append(nil, &spec, &wallets[0], a0.Sequence)
	if err != nil {
		return 0, err
	}
	used, err := Simulate(ctx, c, cfg.RPC, tx)
	if err != nil {
		return 0, fmt.Errorf("sweep: %w", err)
	}
	spec.GasLimit = uint64(math.Ceil(float64(used) * GasAdjustment))
	spec.Fee = Coin{Denom: cfg.Denom, Amount: uint64(math.Ceil(float64(spec.GasLimit) * cfg.GasPrice))}
	var mu sync.Mutex
	var back uint64
	seqs := make([]uint64, len(wallets))
	err = each(ctx, len(wallets), func(i int) error {
		if held[i] <= spec.Fee.Amount {
			return nil
		}
		a, err := QueryAccount(ctx, c, cfg.RPC, wallets[i].Address)
		if err != nil {
			return err
		}
		s := spec
		amount := held[i] - spec.Fee.Amount
		s.Msgs = One(URLMsgSend, MsgSend(nil, wallets[i].Address, cfg.Funder.Address, Coin{Denom: cfg.Denom, Amount: amount}))
		var b Builder
		tx, err := b.Append(nil, &s, &wallets[i], a.Sequence)
		if err != nil {
			return err
		}
		code, log, err := BroadcastSync(ctx, c, cfg.RPC, tx)
		if err != nil {
			return err
		}
		if code != 0 {
			return fmt.Errorf("sweep of wallet %d refused: code %d: %s", i, code, log)
		}
		seqs[i] = a.Sequence + 1
		mu.Lock()
		back += amount
		mu.Unlock()
		return nil
	})
	if err != nil {
		return back, err
	}
	err = each(ctx, len(wallets), func(i int) error {
		if seqs[i] == 0 {
			return nil
		}
		return waitSequence(ctx, c, cfg.RPC, wallets[i].Address, seqs[i], time.Minute)
	})
	return back, err
}

// An Output is one receiver of a multisend.
type Output struct {
	Address string
	Amount  uint64
}

// MsgMultiSendTo is a MsgMultiSend from one input paying each output its
// own amount of denom.
func MsgMultiSendTo(b []byte, from string, outs []Output, denom string) []byte {
	var total uint64
	for _, o := range outs {
		total += o.Amount
	}
	b = appendMessage(b, 1, func(b []byte) []byte {
		b = appendString(b, 1, from)
		return appendCoin(b, 2, Coin{Denom: denom, Amount: total})
	})
	for _, o := range outs {
		b = appendMessage(b, 2, func(b []byte) []byte {
			b = appendString(b, 1, o.Address)
			return appendCoin(b, 2, Coin{Denom: denom, Amount: o.Amount})
		})
	}
	return b
}

// BroadcastSync sends tx to the node's mempool and returns CheckTx's code
// and log.
func BroadcastSync(ctx context.Context, c *http.Client, rpc string, tx []byte) (uint32, string, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "broadcast_tx_sync", "params": map[string]any{"tx": tx}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rpc, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var out struct {
		Result *struct {
			Code uint32 `json:"code"`
			Log  string `json:"log"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
			Data    string `json:"data"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return 0, "", fmt.Errorf("%s broadcast_tx_sync: %w", rpc, err)
	}
	if out.Error != nil {
		return 0, "", fmt.Errorf("%s broadcast_tx_sync: %s %s", rpc, out.Error.Message, out.Error.Data)
	}
	if out.Result == nil {
		return 0, "", fmt.Errorf("%s broadcast_tx_sync: answer without result", rpc)
	}
	return out.Result.Code, out.Result.Log, nil
}

// waitSequence waits until address's committed sequence reaches seq: every
// tx it sent before is in a block (passed or failed).
func waitSequence(ctx context.Context, c *http.Client, rpc, address string, seq uint64, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		a, err := QueryAccount(ctx, c, rpc, address)
		if err == nil && a.Sequence >= seq {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: sequence %d after %s, waiting for %d (%v): its txs are not in a block", address, a.Sequence, wait, seq, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// balancesAt reads every wallet's balance of denom at height (0: latest).
func balancesAt(ctx context.Context, c *http.Client, rpc string, wallets []Wallet, denom string, height int64) ([]uint64, error) {
	out := make([]uint64, len(wallets))
	// Many wallets on a chain whose holders are mostly them: one scan of
	// every holder, a page of 5,000 a query, instead of a query a wallet
	// (100,000 of them took a minute).
	if len(wallets) >= scanWallets {
		all, err := HolderBalances(ctx, c, rpc, denom, height, 4*len(wallets))
		if err == nil {
			for i, w := range wallets {
				if v := all[w.Address]; v != nil {
					if !v.IsUint64() {
						return nil, fmt.Errorf("balance of wallet %d: %s %s is past 2^64", i, v, denom)
					}
					out[i] = v.Uint64()
				}
			}
			return out, nil
		}
		if !errors.Is(err, ErrTooMany) {
			return nil, err
		}
	}
	err := each(ctx, len(wallets), func(i int) error {
		v, err := QueryBalance(ctx, c, rpc, wallets[i].Address, denom, height)
		out[i] = v
		if err != nil {
			return fmt.Errorf("balance of wallet %d: %w", i, err)
		}
		return nil
	})
	return out, err
}

// scanWallets: from this many wallets their balances are read by a scan
// of the denom's holders (when those are at most four times as many).
const scanWallets = 1000

// each runs f(0..n-1) on 16 goroutines and returns the first error.
func each(ctx context.Context, n int, f func(i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for k := 0; k < 16; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < n && ctx.Err() == nil; i += 16 {
				if err := f(i); err != nil {
					cancel(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}
