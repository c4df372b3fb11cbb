package evm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
)

// Reading many accounts: funding, the start balance, the check and the
// sweep of an external network's wallets each read every wallet's
// balance and nonce. One call at a time, 100,000 wallets took minutes;
// here JSON-RPC batches of accountBatch wallets (two calls each) go out
// on accountReaders connections at once.
const (
	// accountBatch: wallets a batch reads, 200 calls: a fifth of the
	// 1,000 Cosmos EVM's and go-ethereum's servers take by default
	// (json-rpc.batch-request-limit).
	accountBatch = 100
	// accountReaders: batches in flight at once.
	accountReaders = 8
	// batchAnswerMax: bytes a batch's answer may hold (200 quantities
	// are about 20 KB).
	batchAnswerMax = 4 << 20
)

// An Account is what the chain says of an address at a height.
type Account struct {
	Balance *big.Int // wei
	Nonce   uint64   // its committed txs
}

// errNoBatch: the server answered a batch with something else than an
// array (a proxy or a server that takes one call a request).
var errNoBatch = errors.New("the JSON-RPC server does not take batches")

// ReadAccounts reads the balance and nonce of every address at height
// (< 1: the latest) from the JSON-RPC server at url: in batches, or one
// call at a time from a server that does not take batches. The accounts
// are in the order of addrs.
func ReadAccounts(ctx context.Context, c *http.Client, url string, addrs []Address, height int64) ([]Account, error) {
	out := make([]Account, len(addrs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, accountReaders)
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
			cancel()
		}
		mu.Unlock()
	}
	for from := 0; from < len(addrs); from += accountBatch {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		part, got := addrs[from:min(from+accountBatch, len(addrs))], out[from:]
		wg.Go(func() {
			defer func() { <-slots }()
			err := readBatch(ctx, c, url, part, height, got)
			if errors.Is(err, errNoBatch) {
				err = readEach(ctx, c, url, part, height, got)
			}
			if err != nil {
				fail(err)
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, ctx.Err()
}

// readEach reads addrs one call at a time into out.
func readEach(ctx context.Context, c *http.Client, url string, addrs []Address, height int64, out []Account) error {
	for i, a := range addrs {
		b, err := BalanceAt(ctx, c, url, a, height)
		if err != nil {
			return fmt.Errorf("the balance of %s: %w", a, err)
		}
		n, err := NonceAt(ctx, c, url, a, height)
		if err != nil {
			return fmt.Errorf("the nonce of %s: %w", a, err)
		}
		out[i] = Account{Balance: b, Nonce: n}
	}
	return nil
}

// readBatch reads addrs in one batch into out: call 2i is address i's
// eth_getBalance, 2i+1 its eth_getTransactionCount.
func readBatch(ctx context.Context, c *http.Client, url string, addrs []Address, height int64, out []Account) error {
	var body bytes.Buffer
	body.WriteByte('[')
	tag := blockTag(height)
	for i, a := range addrs {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"jsonrpc":"2.0","id":%d,"method":"eth_getBalance","params":["%s","%s"]},`, 2*i, a, tag)
		fmt.Fprintf(&body, `{"jsonrpc":"2.0","id":%d,"method":"eth_getTransactionCount","params":["%s","%s"]}`, 2*i+1, a, tag)
	}
	body.WriteByte(']')
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
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
	results, err := parseBatch(data, 2*len(addrs))
	if err != nil {
		return fmt.Errorf("%s (HTTP %d): %w", url, resp.StatusCode, err)
	}
	for i, a := range addrs {
		b, err := quantity(results[2*i], "eth_getBalance of "+a.String())
		if err != nil {
			return err
		}
		n, err := quantity(results[2*i+1], "eth_getTransactionCount of "+a.String())
		if err != nil {
			return err
		}
		if !n.IsUint64() {
			return fmt.Errorf("eth_getTransactionCount of %s: %s is not a nonce", a, n)
		}
		out[i] = Account{Balance: b, Nonce: n.Uint64()}
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
