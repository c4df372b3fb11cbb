package evm

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
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
		path, _ := strconv.Unquote(r.URL.Query().Get("path"))
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
			req, _ := hex.DecodeString(strings.TrimPrefix(r.URL.Query().Get("data"), "0x"))
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

// Verify reads every balance and nonce from the scans: funds held by the
// wallets plus fees equal what was funded and every nonce matches the
// txs committed (conserved); a wallet short of funds breaks conservation,
// a nonce off by one is a mismatch, each said.
func TestVerifyConservation(t *testing.T) {
	wallets := Wallets("verify", 3)
	w, err := NewWorkload(WorkloadConfig{ChainID: 9, Denom: "atest", MaxFee: 10, Tip: 1, Mix: []MixEntry{{Kind: Native, Weight: 1, Amount: 3}},
		Senders: fixed(0), Receivers: fixed(1), Targets: 1, RPCs: []string{"http://127.0.0.1:1"}, Prefix: "cosmos"}, wallets)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := w.Append(context.Background(), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Sent(0, load.Accepted, "")
	w.Committed(sha256.Sum256(tx), 8, load.TxResult{}, time.Second)
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
		b, err := w.Verify(context.Background(), fakeChain(t, balances, nonces, fees), big.NewInt(funded), time.Second)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if b.Conserved != c.conserved || b.Mismatched != c.mismatched || b.OK() != c.wantOK || b.Height != 9 || b.Committed != 1 {
			t.Errorf("%s: %+v; want conserved %v, %d mismatched, at height 9", c.name, b, c.conserved, c.mismatched)
		}
	}
}
