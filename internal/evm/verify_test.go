package evm

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/load"
)

// fakeChain answers /status (height 10) and the abci_queries Verify makes
// (DenomOwners, Accounts, the fee collector's Balance), each in one page,
// from balances and nonces by bech32 address.
func fakeChain(t *testing.T, balances map[string]int64, nonces map[string]uint64, feeCollector string) string {
	str := func(b []byte, f protowire.Number, s string) []byte {
		return protowire.AppendString(protowire.AppendTag(b, f, protowire.BytesType), s)
	}
	msg := func(b []byte, f protowire.Number, m []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, f, protowire.BytesType), m)
	}
	coin := func(v int64) []byte { return str(str(nil, 1, "atest"), 2, strconv.FormatInt(v, 10)) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/status" {
			fmt.Fprint(w, `{"result":{"sync_info":{"latest_block_height":"10"}}}`)
			return
		}
		var call struct {
			Params struct{ Path, Data string }
		}
		_ = json.NewDecoder(r.Body).Decode(&call) // abci_query as a JSON-RPC POST
		path := call.Params.Path
		var resp []byte
		switch path {
		case "/cosmos.bank.v1beta1.Query/DenomOwners":
			for a, v := range balances {
				resp = msg(resp, 1, msg(str(nil, 1, a), 2, coin(v)))
			}
		case "/cosmos.auth.v1beta1.Query/Accounts":
			for a, n := range nonces {
				base := protowire.AppendVarint(protowire.AppendTag(str(nil, 1, a), 4, protowire.VarintType), n)
				resp = msg(resp, 1, msg(str(nil, 1, "/cosmos.auth.v1beta1.BaseAccount"), 2, base))
			}
		case "/cosmos.bank.v1beta1.Query/Balance":
			req, _ := hex.DecodeString(call.Params.Data)
			if !strings.Contains(string(req), feeCollector) {
				t.Errorf("balance asked of %q: only the fee collector's is read alone", req)
			}
			resp = msg(nil, 1, coin(balances[feeCollector]))
		}
		fmt.Fprintf(w, `{"result":{"response":{"code":0,"value":%q}}}`, base64.StdEncoding.EncodeToString(resp))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// commitOne makes a workload of cfg (chain 9, fee cap 10, tip 1, wallet
// 0 to wallet 1, one node) over wallets and has its first tx sent and
// committed with gas used.
func commitOne(t *testing.T, cfg WorkloadConfig, wallets []Wallet, gas int64) *Workload {
	t.Helper()
	cfg.ChainID, cfg.Denom, cfg.MaxFee, cfg.Tip = 9, "atest", 10, 1
	cfg.Senders, cfg.Receivers, cfg.Targets, cfg.RPCs, cfg.Prefix = fixed(0), fixed(1), 1, []string{"http://127.0.0.1:1"}, "cosmos"
	w, err := NewWorkload(cfg, wallets)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := w.Append(context.Background(), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Sent(0, load.Accepted, "")
	w.Committed(sha256.Sum256(tx), 8, load.TxResult{Gas: gas}, time.Second)
	return w
}

// Verify reads every balance and nonce from the scans: funds held by the
// wallets plus fees equal what was funded and every nonce matches the
// txs committed (conserved); a wallet short of funds breaks conservation,
// a nonce off by one is a mismatch, each said.
func TestVerifyConservation(t *testing.T) {
	wallets := Wallets("verify", 3)
	w := commitOne(t, WorkloadConfig{Mix: []MixEntry{{Kind: Native, Weight: 1, Amount: 3}}}, wallets, 0)
	addr := func(i int) string { a, _ := cosmos.Bech32("cosmos", wallets[i].Address[:]); return a }
	fees := cosmos.ModuleAddress("cosmos", "fee_collector")
	const funded, fee = 1000, 21
	for _, c := range []struct {
		name       string
		short      int64  // taken from wallet 2
		nonce0     uint64 // wallet 0's nonce
		conserved  bool
		mismatched int
		wantOK     bool
	}{
		{"as the chain should be", 0, 1, true, 0, true},
		{"a wallet short", 5, 1, false, 0, false},
		{"a nonce off", 0, 2, true, 1, false},
	} {
		balances := map[string]int64{addr(0): funded - 3 - fee, addr(1): funded + 3, addr(2): funded - c.short, fees: fee}
		nonces := map[string]uint64{addr(0): c.nonce0}
		b, err := w.Verify(context.Background(), fakeChain(t, balances, nonces, fees), big.NewInt(3*funded), time.Second)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if b.Conserved != c.conserved || b.Mismatched != c.mismatched || b.OK() != c.wantOK || b.Height != 9 || b.Committed != 1 {
			t.Errorf("%s: %+v; want conserved %v, %d mismatched, at height 9", c.name, b, c.conserved, c.mismatched)
		}
	}
}

// fakeJSONRPC answers eth_getStorageAt and eth_getCode from storage (by
// contract and slot, hex) and code (by address).
func fakeJSONRPC(t *testing.T, storage map[string]string, code map[string]string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string   `json:"method"`
			Params []string `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Params) < 2 {
			t.Errorf("a request of %v (%v)", req, err)
			return
		}
		out := "0x"
		switch req.Method {
		case "eth_getStorageAt":
			out = "0x" + strings.Repeat("0", 63) + "0"
			if v, ok := storage[strings.ToLower(req.Params[0])+"/"+req.Params[1]]; ok {
				out = v
			}
		case "eth_getCode":
			if v, ok := code[strings.ToLower(req.Params[0])]; ok {
				out = v
			}
		default:
			t.Errorf("%s asked", req.Method)
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":%q}`, out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The contract txs' check reads back what each left: a store's slot and
// the count, a deploy's code at its address, a burn's gas used. Each as
// the chain should be passes; a slot wrong, a count short, no code, a
// burn short of gas each fail, said.
func TestVerifyContracts(t *testing.T) {
	wallets := Wallets("verify-contracts", 2)
	store, burner := Address{0xaa}, Address{0xbb}
	from := wallets[0].Address
	slot := StoreKey(from, 0)
	word := func(v uint64) string { return fmt.Sprintf("0x%064x", v) }
	storeAt := func(s [32]byte) string { return strings.ToLower(store.String()) + "/" + fmt.Sprintf("0x%x", s) }
	created := strings.ToLower(CreateAddress(from, 0).String())
	right := fmt.Sprintf("0x%x", StoreCode())
	for _, c := range []struct {
		name    string
		kind    string
		gas     int64 // the burn's gas used
		storage map[string]string
		code    map[string]string
		ok      bool
	}{
		{"store as sent", Store, 0, map[string]string{storeAt(slot): word(1), storeAt([32]byte{}): word(1)}, nil, true},
		{"store slot wrong", Store, 0, map[string]string{storeAt(slot): word(7), storeAt([32]byte{}): word(1)}, nil, false},
		{"store not counted", Store, 0, map[string]string{storeAt(slot): word(1)}, nil, false},
		{"deploy as sent", Create, 0, nil, map[string]string{created: right}, true},
		{"deploy without code", Create, 0, nil, map[string]string{}, false},
		{"burn as sent", Burn, 21000 + 10*BurnTurnGas, nil, nil, true},
		{"burn short of gas", Burn, 21000, nil, nil, false},
	} {
		amount := uint64(0)
		if c.kind == Burn {
			amount = 10
		}
		w := commitOne(t, WorkloadConfig{Mix: []MixEntry{{Kind: c.kind, Weight: 1, Amount: amount}},
			Store: store, Burner: burner, JSONRPC: fakeJSONRPC(t, c.storage, c.code)}, wallets, c.gas)
		addr := func(i int) string { a, _ := cosmos.Bech32("cosmos", wallets[i].Address[:]); return a }
		fees := cosmos.ModuleAddress("cosmos", "fee_collector")
		balances := map[string]int64{addr(0): 990, addr(1): 1000, fees: 10}
		b, err := w.Verify(context.Background(), fakeChain(t, balances, map[string]uint64{addr(0): 1}, fees), big.NewInt(2000), time.Second)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !b.Conserved || b.Mismatched != 0 || b.Contracts == nil {
			t.Fatalf("%s: %+v: the funds and nonces are right here", c.name, b)
		}
		if b.OK() != c.ok || b.Contracts.OK() != c.ok || !c.ok && len(b.Contracts.Examples) == 0 && b.Contracts.Counted == b.Contracts.Stores {
			t.Errorf("%s: %s (%+v); want ok %v with a reason when not", c.name, b.Contracts, b.Contracts, c.ok)
		}
	}
}
