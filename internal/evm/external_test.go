package evm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A funder's key is 64 hex digits below the curve's order; a bad one is
// refused without the error repeating it.
func TestFromHexKey(t *testing.T) {
	w := Derive("funder", 0)
	var d [32]byte
	w.Key.Key.PutBytes(&d)
	good := fmt.Sprintf("%x", d)
	for _, in := range []string{good, "0x" + good, " " + good + "\n"} {
		got, err := FromHexKey(in)
		if err != nil || got.Address != w.Address {
			t.Errorf("FromHexKey(%q) = %s, %v; want %s", in, got.Address, err, w.Address)
		}
	}
	for _, bad := range []string{"", good[:62], good + "00", "zz" + good[2:], strings.Repeat("0", 64), strings.Repeat("f", 64)} {
		if _, err := FromHexKey(bad); err == nil || len(bad) > 8 && strings.Contains(err.Error(), bad[2:10]) {
			t.Errorf("FromHexKey(%q): %v; want a refusal that does not repeat the key", bad, err)
		}
	}
	other := Derive("funder", 1)
	if FunderSeed(w, "s") == FunderSeed(other, "s") || FunderSeed(w, "s") == FunderSeed(w, "t") || strings.Contains(FunderSeed(w, "s"), good[:16]) {
		t.Error("FunderSeed: two funders (or two seeds) share wallets, or the seed shows the key")
	}
}

// fakeJSONRPCState answers eth_getBalance and eth_getTransactionCount by
// address and eth_getBlockByNumber with base fee base, whatever the
// height; a batch it refuses, as a server that takes one call a request
// does (the reads then go one at a time).
func fakeJSONRPCState(t *testing.T, balances map[Address]int64, nonces map[Address]uint64, base int64) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string `json:"method"`
			Params []any  `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if len(body) > 0 && body[0] == '[' {
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not allowed"}}`)
			return
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Error(err)
		}
		var a Address
		if s, ok := req.Params[0].(string); ok && len(s) == 42 {
			for i := range a {
				fmt.Sscanf(s[2+2*i:4+2*i], "%02x", &a[i])
			}
		}
		var result string
		switch req.Method {
		case "eth_getBalance":
			result = fmt.Sprintf("%q", fmt.Sprintf("0x%x", balances[a]))
		case "eth_getTransactionCount":
			result = fmt.Sprintf("%q", fmt.Sprintf("0x%x", nonces[a]))
		case "eth_call": // the balance reader: not run here (balances by eth_getBalance)
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"not supported"}}`)
			return
		case "eth_getBlockByNumber":
			result = fmt.Sprintf(`{"baseFeePerGas":"0x%x"}`, base)
		default:
			t.Errorf("unexpected %s", req.Method)
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":%s}`, result)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// On a network chainperf did not make, the check reads each wallet's own
// balance and nonce by JSON-RPC, counts nonces from where they started
// and reckons the fees from the committed gas at its block's base fee
// plus the tip (at most the cap): right fees and nonces conserve; a base
// fee the workload did not pay, a nonce off, or one below where it
// started, fails.
func TestVerifyExternal(t *testing.T) {
	wallets := Wallets("verify-external", 3)
	const funded, gas = 1_000_000, 21000
	for _, c := range []struct {
		name       string
		base       int64  // the block's base fee as the node says it
		nonce0     uint64 // wallet 0's nonce after (it started at 5)
		conserved  bool
		mismatched int
	}{
		{"as the chain should be", 4, 6, true, 0},
		{"fees not as reckoned", 9, 6, false, 0},
		{"a nonce off", 4, 7, true, 1},
		{"a nonce below its start", 4, 4, true, 1},
	} {
		w := commitOne(t, WorkloadConfig{Mix: []MixEntry{{Kind: Native, Weight: 1, Amount: 3}}, External: true, Start: []uint64{5, 0, 0}}, wallets, gas)
		paid := int64(gas * 5) // min(cap 10, base 4 + tip 1)
		balances := map[Address]int64{wallets[0].Address: funded - 3 - paid, wallets[1].Address: funded + 3, wallets[2].Address: funded}
		w.cfg.JSONRPC = fakeJSONRPCState(t, balances, map[Address]uint64{wallets[0].Address: c.nonce0}, c.base)
		b, err := w.Verify(context.Background(), fakeChain(t, nil, nil, ""), big.NewInt(3*funded), time.Second)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if b.Conserved != c.conserved || b.Mismatched != c.mismatched || b.Nonces != 1 && c.mismatched == 0 || b.FeeCollector != "" {
			t.Errorf("%s: %s (%+v); want conserved %v, %d mismatched, fees reckoned", c.name, b, b, c.conserved, c.mismatched)
		}
	}
}
