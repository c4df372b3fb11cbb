package cosmos

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"

	"github.com/chainperf/chainperf/internal/load"
)

// A chain with distribution pays a delegator its staking rewards whenever
// its delegation changes: a delegate, undelegate or redelegate tx
// withdraws them into the wallet. chainperf cannot know them in advance;
// it reads them from the chain itself, from the withdraw_rewards events
// each committed staking tx emitted. A chain without distribution (the
// test chain) emits none and every figure stays as the txs say.

// maxTxAnswer bounds one /tx answer: a staking tx's result with its
// events is a few KB.
const maxTxAnswer = 4 << 20

// rewardsWithdrawn sums, per wallet, the rewards of denom that the txs
// of hashes withdrew to its sender (withdraw_rewards events naming it as
// the delegator), as the node at rpc reports them.
func rewardsWithdrawn(ctx context.Context, c *http.Client, rpc string, hashes map[load.Hash]int32, wallets []Wallet, denom string) (map[int32]uint64, error) {
	out := map[int32]uint64{}
	err := eachTxEvents(ctx, c, rpc, hashes, func(h load.Hash, events []event) error {
		got, err := withdrawals(events, denom)
		// Only the sender's own rewards are its wallet's: others (a
		// validator's) are not the wallets' business, and a wallet that
		// gained them would not match its txs.
		from := hashes[h]
		out[from] += got[wallets[from].Address]
		return err
	})
	return out, err
}

// eachTxEvents reads the events of every tx of hashes, 8 at a time, and
// gives each tx's to f, one call at a time; it returns the first error.
func eachTxEvents(ctx context.Context, c *http.Client, rpc string, hashes map[load.Hash]int32, f func(load.Hash, []event) error) error {
	var mu sync.Mutex
	var firstErr error
	work := make(chan load.Hash)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range work {
				events, err := txEvents(ctx, c, rpc, h)
				mu.Lock()
				if err == nil {
					err = f(h, events)
				}
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	for h := range hashes {
		work <- h
	}
	close(work)
	wg.Wait()
	return firstErr
}

// txEvents reads one committed tx's events from the node's tx index.
func txEvents(ctx context.Context, c *http.Client, rpc string, h load.Hash) ([]event, error) {
	url := fmt.Sprintf("%s/tx?hash=0x%X", rpc, h[:])
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Result *struct {
			TxResult struct {
				Events []event `json:"events"`
			} `json:"tx_result"`
		} `json:"result"`
	}
	body := io.LimitReader(resp.Body, maxTxAnswer+1)
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	if len(b) > maxTxAnswer {
		return nil, fmt.Errorf("%s/tx: the answer for tx %X is over %d MB", rpc, h[:6], maxTxAnswer>>20)
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Result == nil {
		return nil, fmt.Errorf("%s/tx: no result for committed tx %X (%v)", rpc, h[:6], err)
	}
	return r.Result.TxResult.Events, nil
}

// eventDeltas sums, by address, what the txs of hashes moved of denom: the
// coin_received events' amounts less the coin_spent ones' (the fee too).
func eventDeltas(ctx context.Context, c *http.Client, rpc string, hashes map[load.Hash]int32, denom string) (map[string]int64, error) {
	out := map[string]int64{}
	err := eachTxEvents(ctx, c, rpc, hashes, func(_ load.Hash, events []event) error {
		d, err := coinMoves(events, denom)
		for a, x := range d {
			out[a] += x
		}
		return err
	})
	return out, err
}

// coinMoves is what one tx's coin_spent and coin_received events moved of
// denom, by address.
func coinMoves(events []event, denom string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, e := range events {
		var who, sign = "", int64(0)
		switch e.Type {
		case "coin_spent":
			who, sign = "spender", -1
		case "coin_received":
			who, sign = "receiver", 1
		default:
			continue
		}
		var addr, amount string
		for _, a := range e.Attributes {
			switch a.Key {
			case who:
				addr = a.Value
			case "amount":
				amount = a.Value
			}
		}
		n, err := coinsOf(amount, denom)
		if err != nil {
			return nil, fmt.Errorf("%s amount %q: %w", e.Type, amount, err)
		}
		if n > math.MaxInt64/2 {
			return nil, fmt.Errorf("%s amount %q: too large", e.Type, amount)
		}
		if n > 0 && addr == "" {
			return nil, fmt.Errorf("a %s event of %d%s names no %s", e.Type, n, denom, who)
		}
		out[addr] += sign * int64(n)
	}
	return out, nil
}

type event struct {
	Type       string `json:"type"`
	Attributes []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"attributes"`
}

// withdrawals sums the withdraw_rewards events' amounts of denom by
// delegator. An event without a delegator (SDKs before v0.47 named only
// the validator) is an error: the rewards could not be put to a wallet.
func withdrawals(events []event, denom string) (map[string]uint64, error) {
	out := map[string]uint64{}
	for _, e := range events {
		if e.Type != "withdraw_rewards" {
			continue
		}
		var amount, delegator string
		for _, a := range e.Attributes {
			switch a.Key {
			case "amount":
				amount = a.Value
			case "delegator":
				delegator = a.Value
			}
		}
		n, err := coinsOf(amount, denom)
		if err != nil {
			return nil, fmt.Errorf("withdraw_rewards amount %q: %w", amount, err)
		}
		if n == 0 {
			continue
		}
		if delegator == "" {
			return nil, fmt.Errorf("a withdraw_rewards event names no delegator: chainperf cannot tell which wallet received %d%s", n, denom)
		}
		out[delegator] += n
	}
	return out, nil
}

// coinsOf reads the amount of denom in a coins string ("12stake,3uatom";
// "" is none).
func coinsOf(coins, denom string) (uint64, error) {
	var total uint64
	for _, c := range strings.Split(coins, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		i := 0
		for i < len(c) && c[i] >= '0' && c[i] <= '9' {
			i++
		}
		if i == 0 || i > 19 {
			return 0, fmt.Errorf("%q is not an amount and a denom", c)
		}
		if c[i:] != denom {
			continue
		}
		var n uint64
		if _, err := fmt.Sscan(c[:i], &n); err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
