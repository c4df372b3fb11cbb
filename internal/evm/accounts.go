package evm

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
)

// Reading many accounts: funding, the check and the sweep of an
// external network's wallets read every wallet's balance and nonce. One
// call at a time, 100,000 wallets took minutes. Here balances come from
// eth_call of a balance reader (700 addresses a call; 100,001 new
// wallets read in 17.6 s, 32.9 s with eth_getBalance in batches:
// docs/guides/external.md) and nonces from JSON-RPC batches,
// accountReaders requests at once.
const (
	// quantityBatch: calls a batch holds, a fifth of the 1,000 Cosmos
	// EVM's and go-ethereum's servers take by default
	// (json-rpc.batch-request-limit).
	quantityBatch = 200
	// accountReaders: requests in flight at once.
	accountReaders = 8
	// batchAnswerMax: bytes a batch's answer may hold (200 quantities
	// are about 20 KB).
	batchAnswerMax = 4 << 20
	// balanceCall: addresses one balance reader call reads: its answer,
	// a word each, is returned as a contract's code would be, which may
	// be 24,576 bytes at most (EIP-170).
	balanceCall = 700
)

// balanceReader is creation code that returns the balance of each
// address appended to it (20 bytes each), a word each:
//
//	0  PUSH1 0x28 PUSH1 0x00               p: the first address; o: 0
//	4  JUMPDEST DUP2 CODESIZE GT ISZERO    loop: any left?
//	9  PUSH1 0x24 JUMPI                    no: to end
//	12 PUSH1 0x20 DUP3 DUP3 CODECOPY       memory[o:] = code[p:p+32]
//	17 DUP1 MLOAD PUSH1 0x60 SHR BALANCE   the balance of its top 20 bytes
//	23 DUP2 MSTORE                         memory[o] = it
//	25 PUSH1 0x20 ADD SWAP1 PUSH1 0x14 ADD SWAP1   o += 32, p += 20
//	33 PUSH1 0x04 JUMP
//	36 JUMPDEST PUSH1 0x00 RETURN          memory[0:o]
var balanceReader = []byte{
	0x60, 0x28, 0x60, 0x00,
	0x5b, 0x81, 0x38, 0x11, 0x15,
	0x60, 0x24, 0x57,
	0x60, 0x20, 0x82, 0x82, 0x39,
	0x80, 0x51, 0x60, 0x60, 0x1c, 0x31,
	0x81, 0x52,
	0x60, 0x20, 0x01, 0x90, 0x60, 0x14, 0x01, 0x90,
	0x60, 0x04, 0x56,
	0x5b, 0x60, 0x00, 0xf3,
}

// An Account is what the chain says of an address at a height.
type Account struct {
	Balance *big.Int // wei
	Nonce   uint64   // its committed txs
}

// errNoBatch: the server answered a batch with something else than an
// array (a proxy or a server that takes one call a request).
var errNoBatch = errors.New("the JSON-RPC server does not take batches")

// ReadAccounts reads the balance and nonce of every address at height
// (< 1: the latest) from the JSON-RPC server at url, in the order of
// addrs.
func ReadAccounts(ctx context.Context, c *http.Client, url string, addrs []Address, height int64) ([]Account, error) {
	balances, err := readBalances(ctx, c, url, addrs, height)
	if err != nil {
		return nil, err
	}
	nonces, err := readQuantities(ctx, c, url, "eth_getTransactionCount", addrs, height)
	if err != nil {
		return nil, err
	}
	out := make([]Account, len(addrs))
	for i, n := range nonces {
		if !n.IsUint64() {
			return nil, fmt.Errorf("eth_getTransactionCount of %s: %s is not a nonce", addrs[i], n)
		}
		out[i] = Account{Balance: balances[i], Nonce: n.Uint64()}
	}
	return out, nil
}

// readBalances reads addrs' balances by eth_call of balanceReader; from a
// server that will not run it (a gas cap too low, no contract creation
// in a call), by eth_getBalance.
func readBalances(ctx context.Context, c *http.Client, url string, addrs []Address, height int64) ([]*big.Int, error) {
	out, err := BalancesByCall(ctx, c, url, addrs, height)
	if err == nil || ctx.Err() != nil {
		return out, err
	}
	return readQuantities(ctx, c, url, "eth_getBalance", addrs, height)
}

// BalancesByCall reads addrs' balances at height by eth_call of the
// balance reader alone (no fallback): what ReadAccounts tries first.
func BalancesByCall(ctx context.Context, c *http.Client, url string, addrs []Address, height int64) ([]*big.Int, error) {
	out := make([]*big.Int, len(addrs))
	err := inParts(ctx, len(addrs), balanceCall, func(ctx context.Context, from, to int) error {
		return callBalances(ctx, c, url, addrs[from:to], height, out[from:to])
	})
	return out, err
}

// callBalances reads addrs' balances with one eth_call into out.
func callBalances(ctx context.Context, c *http.Client, url string, addrs []Address, height int64, out []*big.Int) error {
	code := make([]byte, 0, len(balanceReader)+20*len(addrs))
	code = append(code, balanceReader...)
	for _, a := range addrs {
		code = append(code, a[:]...)
	}
	var got string
	if err := Call(ctx, c, url, "eth_call", []any{map[string]string{"data": fmt.Sprintf("0x%x", code)}, blockTag(height)}, &got); err != nil {
		return err
	}
	b, err := hex.DecodeString(strings.TrimPrefix(got, "0x"))
	if err != nil || !strings.HasPrefix(got, "0x") || len(b) != 32*len(addrs) {
		return fmt.Errorf("eth_call of the balance reader answered %d bytes for %d addresses", len(got), len(addrs))
	}
	for i := range addrs {
		out[i] = new(big.Int).SetBytes(b[32*i : 32*i+32])
	}
	return nil
}

// readQuantities reads method (eth_getBalance, eth_getTransactionCount)
// of every address in batches; one call at a time from a server that
// takes no batches.
func readQuantities(ctx context.Context, c *http.Client, url, method string, addrs []Address, height int64) ([]*big.Int, error) {
	out := make([]*big.Int, len(addrs))
	err := inParts(ctx, len(addrs), quantityBatch, func(ctx context.Context, from, to int) error {
		err := readBatch(ctx, c, url, method, addrs[from:to], height, out[from:to])
		if errors.Is(err, errNoBatch) {
			err = readEach(ctx, c, url, method, addrs[from:to], height, out[from:to])
		}
		return err
	})
	return out, err
}

// inParts calls read for parts of n of at most size, accountReaders at
// once; the first error ends the others and is returned.
func inParts(ctx context.Context, n, size int, read func(ctx context.Context, from, to int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, accountReaders)
	)
	for from := 0; from < n; from += size {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := read(ctx, from, min(from+size, n)); err != nil {
				mu.Lock()
				if first == nil {
					first = err
					cancel()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// readEach reads method of addrs one call at a time into out.
func readEach(ctx context.Context, c *http.Client, url, method string, addrs []Address, height int64, out []*big.Int) error {
	for i, a := range addrs {
		var got string
		if err := Call(ctx, c, url, method, []any{a.String(), blockTag(height)}, &got); err != nil {
			return fmt.Errorf("%s of %s: %w", method, a, err)
		}
		n, err := quantity(got, method+" of "+a.String())
		if err != nil {
			return err
		}
		out[i] = n
	}
	return nil
}

// readBatch reads method of addrs in one batch (call i is address i's)
// into out.
func readBatch(ctx context.Context, c *http.Client, url, method string, addrs []Address, height int64, out []*big.Int) error {
	var body bytes.Buffer
	body.WriteByte('[')
	tag := blockTag(height)
	for i, a := range addrs {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":["%s","%s"]}`, i, method, a, tag)
	}
	body.WriteByte(']')
	resp, err := post(ctx, c, url, body.Bytes())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, batchAnswerMax+1))
	if err != nil {
		return fmt.Errorf("%s: reading a batch's answer: %w", url, err)
	}
	if len(data) > batchAnswerMax {
		return fmt.Errorf("%s: a batch's answer is over %d bytes", url, batchAnswerMax)
	}
	results, err := parseBatch(data, len(addrs))
	if err != nil {
		return fmt.Errorf("%s %s (HTTP %d): %w", url, method, resp.StatusCode, err)
	}
	for i, a := range addrs {
		if out[i], err = quantity(results[i], method+" of "+a.String()); err != nil {
			return err
		}
	}
	return nil
}

// parseBatch reads a batch's answer to calls 0..n-1 whose results are
// strings: the results by id. Answers may come in any order (the spec
// says so); a missing, repeated or unknown id, or a call's error, is an
// error. An answer that is not an array is errNoBatch.
func parseBatch(data []byte, n int) ([]string, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '[' {
		return nil, fmt.Errorf("%w (it answered %q)", errNoBatch, clip(data, 120))
	}
	var answers []struct {
		ID     *int            `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &answers); err != nil {
		return nil, fmt.Errorf("not a JSON-RPC batch answer: %w", err)
	}
	if len(answers) != n {
		return nil, fmt.Errorf("a batch of %d calls got %d answers", n, len(answers))
	}
	out := make([]string, n)
	seen := make([]bool, n)
	for _, a := range answers {
		if a.ID == nil || *a.ID < 0 || *a.ID >= n || seen[*a.ID] {
			return nil, fmt.Errorf("a batch's answer has an id that was not asked, or twice")
		}
		seen[*a.ID] = true
		if a.Error != nil {
			return nil, fmt.Errorf("call %d of a batch: %s", *a.ID, clip([]byte(a.Error.Message), 200))
		}
		if err := json.Unmarshal(a.Result, &out[*a.ID]); err != nil {
			return nil, fmt.Errorf("call %d of a batch: the result is not a string: %w", *a.ID, err)
		}
	}
	return out, nil
}

// clip is at most n bytes of b, for errors that quote a node.
func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
