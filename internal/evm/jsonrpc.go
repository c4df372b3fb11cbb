package evm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/nodehttp"
)

// ChainID asks the JSON-RPC server at url for its chain's EVM chain ID
// (eth_chainId), trying for up to wait while the node starts it.
func ChainID(ctx context.Context, url string, wait time.Duration) (uint64, error) {
	c := nodehttp.Client(nodehttp.Query)
	deadline := time.Now().Add(wait)
	for {
		id, err := chainID(ctx, c, url)
		if err == nil || time.Now().After(deadline) {
			return id, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func chainID(ctx context.Context, c *http.Client, url string) (uint64, error) {
	resp, err := post(ctx, c, url, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var r struct {
		Result string `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&r); err != nil {
		return 0, fmt.Errorf("%s: not a JSON-RPC answer (HTTP %d): %w", url, resp.StatusCode, err)
	}
	if r.Error != nil {
		return 0, fmt.Errorf("%s: eth_chainId: %s", url, r.Error.Message)
	}
	id, err := strconv.ParseUint(strings.TrimPrefix(r.Result, "0x"), 16, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: eth_chainId answered %q", url, r.Result)
	}
	return id, nil
}

// post sends a JSON-RPC request (one call or a batch) to url.
func post(ctx context.Context, c *http.Client, url string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return c.Do(req)
}

// Call makes one JSON-RPC call to url and decodes its result into result.
func Call(ctx context.Context, c *http.Client, url, method string, params []any, result any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	resp, err := post(ctx, c, url, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&r); err != nil {
		return fmt.Errorf("%s %s: not a JSON-RPC answer (HTTP %d): %w", url, method, resp.StatusCode, err)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: %s", method, r.Error.Message)
	}
	return json.Unmarshal(r.Result, result)
}

// A Receipt is what a tx's receipt says: 1 succeeded, 0 reverted.
type Receipt struct {
	Status          string `json:"status"`
	ContractAddress string `json:"contractAddress"`
	GasUsed         string `json:"gasUsed"`
}

// WaitReceipt waits up to wait for the receipt of the tx with hash.
func WaitReceipt(ctx context.Context, c *http.Client, url string, hash []byte, wait time.Duration) (*Receipt, error) {
	deadline := time.Now().Add(wait)
	h := fmt.Sprintf("0x%x", hash)
	for {
		var r *Receipt
		err := Call(ctx, c, url, "eth_getTransactionReceipt", []any{h}, &r)
		if err == nil && r != nil {
			return r, nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("no receipt for %s after %s", h, wait)
			}
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// TokenBalance reads holder's balance of the token at height.
func TokenBalance(ctx context.Context, c *http.Client, url string, token, holder Address, height int64) (*big.Int, error) {
	var out string
	call := map[string]string{"to": token.String(), "data": fmt.Sprintf("0x%x", BalanceOfCall(holder))}
	if err := Call(ctx, c, url, "eth_call", []any{call, fmt.Sprintf("0x%x", height)}, &out); err != nil {
		return nil, err
	}
	n, ok := new(big.Int).SetString(strings.TrimPrefix(out, "0x"), 16)
	if !ok {
		return nil, fmt.Errorf("balanceOf(%s) answered %q", holder, out)
	}
	return n, nil
}

// blockTag is a height as JSON-RPC takes it: "latest" for a height < 1.
func blockTag(height int64) string {
	if height < 1 {
		return "latest"
	}
	return fmt.Sprintf("0x%x", height)
}

// quantity reads a JSON-RPC hex quantity ("0x1a") that what names.
func quantity(s, what string) (*big.Int, error) {
	n, ok := new(big.Int).SetString(strings.TrimPrefix(s, "0x"), 16)
	if !ok || !strings.HasPrefix(s, "0x") || n.Sign() < 0 || n.BitLen() > 256 {
		return nil, fmt.Errorf("%s: %q is not a hex quantity", what, s)
	}
	return n, nil
}

// BalanceAt reads addr's balance in wei at height (< 1: the latest).
func BalanceAt(ctx context.Context, c *http.Client, url string, addr Address, height int64) (*big.Int, error) {
	var out string
	if err := Call(ctx, c, url, "eth_getBalance", []any{addr.String(), blockTag(height)}, &out); err != nil {
		return nil, err
	}
	return quantity(out, "eth_getBalance of "+addr.String())
}

// NonceAt reads addr's nonce (the count of its committed txs) at height
// (< 1: the latest).
func NonceAt(ctx context.Context, c *http.Client, url string, addr Address, height int64) (uint64, error) {
	var out string
	if err := Call(ctx, c, url, "eth_getTransactionCount", []any{addr.String(), blockTag(height)}, &out); err != nil {
		return 0, err
	}
	n, err := quantity(out, "eth_getTransactionCount of "+addr.String())
	if err != nil {
		return 0, err
	}
	if !n.IsUint64() {
		return 0, fmt.Errorf("eth_getTransactionCount of %s: %s is not a nonce", addr, n)
	}
	return n.Uint64(), nil
}

// BaseFeeAt reads the base fee per gas of the block at height (< 1: the
// latest); 0 on a chain without one.
func BaseFeeAt(ctx context.Context, c *http.Client, url string, height int64) (*big.Int, error) {
	var b *struct {
		BaseFee string `json:"baseFeePerGas"`
	}
	if err := Call(ctx, c, url, "eth_getBlockByNumber", []any{blockTag(height), false}, &b); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("eth_getBlockByNumber: no block %s", blockTag(height))
	}
	if b.BaseFee == "" {
		return new(big.Int), nil
	}
	return quantity(b.BaseFee, fmt.Sprintf("the base fee of block %s", blockTag(height)))
}

// BlockNumber is the latest height the JSON-RPC server at url has.
func BlockNumber(ctx context.Context, c *http.Client, url string) (int64, error) {
	var out string
	if err := Call(ctx, c, url, "eth_blockNumber", nil, &out); err != nil {
		return 0, err
	}
	n, err := quantity(out, "eth_blockNumber")
	if err != nil {
		return 0, err
	}
	if !n.IsInt64() {
		return 0, fmt.Errorf("eth_blockNumber: %s is not a height", n)
	}
	return n.Int64(), nil
}
