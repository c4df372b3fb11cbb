package evm

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// accountServer answers eth_getBalance (address byte 0 x 1,000 wei) and
// eth_getTransactionCount (address byte 1) as a JSON-RPC server; batches
// in a shuffled order unless noBatch, when a batch gets an error object
// as a server that takes one call a request answers. mangle may change
// a batch's answers before they are written.
type accountServer struct {
	noBatch bool
	// noCall: eth_call answers an error; shortCall: a word short.
	noCall, shortCall      bool
	mangle                 func([]map[string]any) []map[string]any
	batches, single, calls atomic.Int64
}

// call answers an eth_call of the balance reader: the balance of each
// address behind its code, a word each.
func (s *accountServer) call(params []any) (string, bool) {
	data, _ := hex.DecodeString(strings.TrimPrefix(params[0].(map[string]any)["data"].(string), "0x"))
	if s.noCall || !bytes.HasPrefix(data, balanceReader) {
		return "", false
	}
	var out []byte
	for rest := data[len(balanceReader):]; len(rest) >= 20; rest = rest[20:] {
		var w [32]byte
		big.NewInt(int64(rest[0]) * 1000).FillBytes(w[:])
		out = append(out, w[:]...)
	}
	if s.shortCall {
		out = out[32:]
	}
	return fmt.Sprintf("0x%x", out), true
}

func (s *accountServer) answer(call map[string]any) map[string]any {
	params := call["params"].([]any)
	out := map[string]any{"jsonrpc": "2.0", "id": call["id"]}
	if call["method"] == "eth_call" {
		s.calls.Add(1)
		if r, ok := s.call(params); ok {
			out["result"] = r
		} else {
			out["error"] = map[string]any{"code": -32000, "message": "execution reverted"}
		}
		return out
	}
	var a Address
	b, _ := hex.DecodeString(strings.TrimPrefix(params[0].(string), "0x"))
	copy(a[:], b)
	switch call["method"] {
	case "eth_getBalance":
		out["result"] = fmt.Sprintf("0x%x", int(a[0])*1000)
	case "eth_getTransactionCount":
		out["result"] = fmt.Sprintf("0x%x", a[1])
	default:
		out["error"] = map[string]any{"code": -32601, "message": "no such method"}
	}
	return out
}

func (s *accountServer) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if body[0] == '[' {
		if s.noBatch {
			json.NewEncoder(rw).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": "batch requests are not allowed"}})
			return
		}
		s.batches.Add(1)
		var calls []map[string]any
		json.Unmarshal(body, &calls)
		out := make([]map[string]any, len(calls))
		for i, c := range calls {
			out[i] = s.answer(c)
		}
		rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		if s.mangle != nil && len(out) > 4 { // (a cancelled request's body may be cut short)
			out = s.mangle(out)
		}
		json.NewEncoder(rw).Encode(out)
		return
	}
	var call map[string]any
	json.Unmarshal(body, &call)
	if call["method"] != "eth_call" {
		s.single.Add(1)
	}
	json.NewEncoder(rw).Encode(s.answer(call))
}

func testAddrs(n int) []Address {
	out := make([]Address, n)
	for i := range out {
		out[i][0], out[i][1], out[i][19] = byte(i), byte(i*7), byte(i>>8)
	}
	return out
}

// TestReadAccounts: every account's balance and nonce, in the order
// asked: balances from the balance reader (700 a call), nonces from
// batches answered out of order; balances by eth_getBalance from a
// server whose eth_call fails or answers short; one call at a time from
// a server that takes no batches; a batch answer that is short, repeats
// an id, or holds a call's error fails the read.
func TestReadAccounts(t *testing.T) {
	ctx := context.Background()
	addrs := testAddrs(1234)
	check := func(t *testing.T, got []Account, addrs []Address) {
		t.Helper()
		for i, a := range addrs {
			if got[i].Balance.Cmp(big.NewInt(int64(a[0])*1000)) != 0 || got[i].Nonce != uint64(a[1]) {
				t.Fatalf("account %d (%s): %s wei, nonce %d", i, a, got[i].Balance, got[i].Nonce)
			}
		}
	}
	t.Run("batches", func(t *testing.T) {
		s := &accountServer{}
		srv := httptest.NewServer(s)
		defer srv.Close()
		got, err := ReadAccounts(ctx, srv.Client(), srv.URL, addrs, 0)
		if err != nil {
			t.Fatal(err)
		}
		check(t, got, addrs)
		if s.calls.Load() != 2 || s.batches.Load() != 7 || s.single.Load() != 0 {
			t.Errorf("%d eth_calls, %d batches, %d single calls: want 2 eth_calls (700 addresses each) and 7 batches (200 nonces each)", s.calls.Load(), s.batches.Load(), s.single.Load())
		}
	})
	for _, s := range []*accountServer{{noCall: true}, {shortCall: true}} {
		t.Run(fmt.Sprintf("no eth_call %v, short %v", s.noCall, s.shortCall), func(t *testing.T) {
			srv := httptest.NewServer(s)
			defer srv.Close()
			got, err := ReadAccounts(ctx, srv.Client(), srv.URL, addrs, 0)
			if err != nil {
				t.Fatal(err)
			}
			check(t, got, addrs)
			if s.batches.Load() != 14 {
				t.Errorf("%d batches: want 14 (balances and nonces, 200 a batch)", s.batches.Load())
			}
		})
	}
	t.Run("no batches", func(t *testing.T) {
		s := &accountServer{noBatch: true}
		srv := httptest.NewServer(s)
		defer srv.Close()
		got, err := ReadAccounts(ctx, srv.Client(), srv.URL, addrs[:300], 0)
		if err != nil {
			t.Fatal(err)
		}
		check(t, got, addrs[:300])
		if s.single.Load() != 300 || s.calls.Load() != 1 {
			t.Errorf("%d single calls and %d eth_calls: want 300 (a nonce each) and 1", s.single.Load(), s.calls.Load())
		}
	})
	for name, c := range map[string]struct {
		mangle func([]map[string]any) []map[string]any
		want   string
	}{
		"short":    {func(a []map[string]any) []map[string]any { return a[1:] }, "calls got"},
		"repeated": {func(a []map[string]any) []map[string]any { a[1]["id"] = a[0]["id"]; return a }, "twice"},
		"unknown":  {func(a []map[string]any) []map[string]any { a[0]["id"] = 9999; return a }, "not asked"},
		"error": {func(a []map[string]any) []map[string]any {
			a[3]["error"] = map[string]any{"message": "state pruned"}
			return a
		}, "state pruned"},
		"not a hex": {func(a []map[string]any) []map[string]any { a[0]["result"] = "12"; return a }, "not a hex quantity"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(&accountServer{mangle: c.mangle})
			defer srv.Close()
			if _, err := ReadAccounts(ctx, srv.Client(), srv.URL, addrs, 0); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v: want one saying %q", err, c.want)
			}
		})
	}
}

func FuzzParseBatch(f *testing.F) {
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"result":"0x1"},{"jsonrpc":"2.0","id":0,"result":"0x0"}]`), 2)
	f.Add([]byte(`[{"id":0,"error":{"message":"x"}}]`), 1)
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"error":{"message":"batch requests are not allowed"}}`), 2)
	f.Add([]byte(`[{"id":-1,"result":"0x1"}]`), 1)
	f.Add([]byte(`[{"id":0,"result":5}]`), 1)
	f.Add([]byte(`[`), 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		if n < 0 || n > 1000 {
			return
		}
		out, err := parseBatch(data, n)
		if err == nil && len(out) != n {
			t.Fatalf("%d results for %d calls", len(out), n)
		}
	})
}

// TestDisperseCall: a record a word, the value in the high 12 bytes and
// the address in the low 20; a value of 2^96 or more refused. The chunk
// a call holds follows the block's gas limit.
func TestDisperseCall(t *testing.T) {
	to := testAddrs(3)
	vals := []*big.Int{big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 95), big.NewInt(0)}
	data, err := DisperseCall(to, vals)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 96 {
		t.Fatalf("%d bytes: want 3 words", len(data))
	}
	for i := range to {
		rec := data[32*i : 32*i+32]
		if v := new(big.Int).SetBytes(rec[:12]); v.Cmp(vals[i]) != 0 || Address(rec[12:]) != to[i] {
			t.Errorf("record %d: %x", i, rec)
		}
	}
	if _, err := DisperseCall(to[:1], []*big.Int{new(big.Int).Lsh(big.NewInt(1), 96)}); err == nil {
		t.Error("a value of 2^96 wei was taken")
	}
	for maxGas, want := range map[int64]int{-1: 500, 0: 500, 30_000_000: 500, 10_000_000: 249, 50_000: 1} {
		if got := DisperseChunk(maxGas); got != want || maxGas > 0 && got > 1 && int64(DisperseGas(got)) > maxGas {
			t.Errorf("block gas %d: %d records a call, want %d", maxGas, got, want)
		}
	}
	// The code's jumps land on its JUMPDESTs.
	for _, at := range []int{2, 0x26, 0x2c} {
		if disperseCode[at] != 0x5b {
			t.Errorf("byte %d is %#x, not a JUMPDEST", at, disperseCode[at])
		}
	}
}
