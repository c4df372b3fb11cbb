package evm

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/chainperf/chainperf/internal/load"
)

// The txs still waiting for a block are told apart by their senders'
// nonces on chain (accountServer: an address's byte 1): below it,
// replaced; above it, behind a gap; at it, neither. Txs the ledger no
// longer waits for are not counted, and a server that cannot answer is
// an error, not a count.
func TestReadNonceFates(t *testing.T) {
	srv := httptest.NewServer(&accountServer{})
	defer srv.Close()
	var ws []Wallet
	for _, w := range Wallets("left", 40) {
		if w.Address[1] > 0 && len(ws) < 3 {
			ws = append(ws, w)
		}
	}
	cfg := fromWallet0()
	cfg.JSONRPC = srv.URL
	w, err := NewWorkload(cfg, ws)
	if err != nil {
		t.Fatal(err)
	}
	on := func(i int) uint64 { return uint64(ws[i].Address[1]) }
	left := map[load.Hash]pair{
		{1}: {from: 0, nonce: on(0) - 1}, // replaced
		{2}: {from: 0, nonce: on(0) + 2}, // behind a gap
		{3}: {from: 1, nonce: on(1) + 1}, // behind a gap
		{4}: {from: 1, nonce: on(1)},     // next in line
		{5}: {from: 2, nonce: on(2) - 1}, // no longer waited for
	}
	w.hashes = left
	waits := func(h load.Hash) bool { return h != load.Hash{5} }
	taken, gap, err := w.ReadNonceFates(context.Background(), waits)
	if err != nil || taken != 1 || gap != 2 {
		t.Fatalf("taken %d, gap %d, err %v; want 1 replaced, 2 behind a gap", taken, gap, err)
	}
	if taken, gap, err := w.ReadNonceFates(context.Background(), func(load.Hash) bool { return false }); err != nil || taken+gap != 0 {
		t.Fatalf("none waited for: taken %d, gap %d, err %v", taken, gap, err)
	}
	w.cfg.JSONRPC = "http://127.0.0.1:1"
	if _, _, err := w.ReadNonceFates(context.Background(), waits); err == nil {
		t.Fatal("no server: no error")
	}
}
