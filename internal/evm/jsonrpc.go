package evm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ChainID asks the JSON-RPC server at url for its chain's EVM chain ID
// (eth_chainId), trying for up to wait while the node starts it.
func ChainID(ctx context.Context, url string, wait time.Duration) (uint64, error) {
	c := &http.Client{Timeout: 5 * time.Second}
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
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
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
