package evm

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/readload"
)

// Kinds of read, what a wallet or a dapp asks a node between its writes.
const (
	ReadBalance = "eth_getBalance"          // a wallet's balance, latest
	ReadNonce   = "eth_getTransactionCount" // a wallet's nonce, pending
	ReadCall    = "eth_call"                // the token's balanceOf, else a transfer simulated
)

// ReadKinds are the reads a read load sends, in turn.
var ReadKinds = []string{ReadBalance, ReadNonce, ReadCall}

// A ReadConfig says where, how fast and about whom the reads ask.
type ReadConfig struct {
	URLs    []string // JSON-RPC servers, taken in turn
	Rate    float64  // reads a second, all kinds together
	Wallets []Wallet // the accounts asked about, taken in turn
	Token   Address  // eth_call asks its balanceOf when set
	Timeout time.Duration
}

// ReadStats are one kind of read's results (readload's).
type ReadStats = readload.Stats

// StartReads starts the read load, open loop beside the txs (readload):
// each kind in turn, about the wallets in turn, to the servers in turn.
func StartReads(ctx context.Context, cfg ReadConfig) (*readload.Reads, error) {
	if len(cfg.URLs) == 0 || len(cfg.Wallets) == 0 {
		return nil, fmt.Errorf("read load: %d servers, %d wallets: need one of each", len(cfg.URLs), len(cfg.Wallets))
	}
	c := nodehttp.Client(nodehttp.Query)
	var kinds []readload.Kind
	for k, name := range ReadKinds {
		kinds = append(kinds, readload.Kind{Name: name, Read: func(ctx context.Context, i uint64) error {
			// Read i of each kind goes to server i*kinds+k, as when the
			// kinds took the servers in turn between them.
			url := cfg.URLs[(i*uint64(len(ReadKinds))+uint64(k))%uint64(len(cfg.URLs))]
			return readOne(ctx, c, url, name, cfg.Wallets[i%uint64(len(cfg.Wallets))], cfg.Token)
		}})
	}
	return readload.Start(ctx, readload.Config{Rate: cfg.Rate, Kinds: kinds, Timeout: cfg.Timeout})
}

// readOne asks url one read of kind about w.
func readOne(ctx context.Context, c *http.Client, url, kind string, w Wallet, token Address) error {
	switch kind {
	case ReadBalance:
		_, err := BalanceAt(ctx, c, url, w.Address, 0)
		return err
	case ReadNonce:
		var out string
		if err := Call(ctx, c, url, "eth_getTransactionCount", []any{w.Address.String(), "pending"}, &out); err != nil {
			return err
		}
		_, err := quantity(out, "eth_getTransactionCount")
		return err
	}
	var out string
	call := map[string]string{"from": w.Address.String(), "to": w.Address.String(), "value": "0x1"}
	if token != (Address{}) {
		call = map[string]string{"to": token.String(), "data": fmt.Sprintf("0x%x", BalanceOfCall(w.Address))}
	}
	return Call(ctx, c, url, "eth_call", []any{call, "latest"}, &out)
}
