package evm

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
)

// Persistent execution reads each sender's nonce and balance from the
// node at the start and after each of its txs is in a block: a nonce the
// chain has past the local count is taken; a sender that cannot pay is
// passed over for the next free one; a failed read keeps the local count;
// a sender is free again once a block holds its tx and it is read, not at
// the node's answer; no wallet that can pay ends the phase with the reason.
func TestPersistent(t *testing.T) {
	wallets := Wallets("persist", 3)
	var mu sync.Mutex
	nonce := map[string]uint64{wallets[0].Address.String(): 5}
	balance := map[string]string{wallets[0].Address.String(): "0xde0b6b3a7640000", wallets[1].Address.String(): "0x0", wallets[2].Address.String(): "0xde0b6b3a7640000"}
	broken := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string `json:"method"`
			Params []string
		}
		body, _ := io.ReadAll(r.Body)
		// The first read of every sender tries a balance reader's eth_call
		// and batches: refused here, so it reads one call at a time.
		if json.Unmarshal(body, &req) != nil || req.Method == "eth_call" || len(req.Params) == 0 {
			fmt.Fprint(rw, `{"jsonrpc":"2.0","id":null,"error":{"message":"not here"}}`)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		addr := req.Params[0]
		if broken[addr] {
			fmt.Fprint(rw, `{"jsonrpc":"2.0","id":1,"error":{"message":"node busy"}}`)
			return
		}
		result := balance[addr]
		if req.Method == "eth_getTransactionCount" {
			result = fmt.Sprintf("0x%x", nonce[addr])
		}
		fmt.Fprintf(rw, `{"jsonrpc":"2.0","id":1,"result":%q}`, result)
	}))
	defer srv.Close()
	w, err := NewWorkload(WorkloadConfig{ChainID: 9, Denom: "atest", MaxFee: 10, Tip: 1, Mix: []MixEntry{{Kind: Native, Weight: 1, Amount: 3}},
		Senders: fixed(0), Receivers: fixed(2), Targets: 1, RPCs: []string{"http://127.0.0.1:1"}, Prefix: "cosmos",
		Persistent: true, JSONRPCs: []string{srv.URL}}, wallets)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := w.Prepare(ctx, 10); err != nil {
		t.Fatal(err)
	}
	send := func(seq uint64, o load.Outcome) (int, uint64, load.Hash) {
		t.Helper()
		tx, err := w.Append(ctx, nil, seq)
		if err != nil {
			t.Fatal(err)
		}
		w.mu.Lock()
		r := w.refs[seq]
		w.mu.Unlock()
		w.Sent(seq, o, "")
		return r.from, r.nonce, sha256.Sum256(tx)
	}
	from, n, h0 := send(0, load.Accepted)
	if from != 0 || n != 5 {
		t.Fatalf("tx 0 from wallet %d nonce %d; want wallet 0 at the chain's nonce 5", from, n)
	}
	// Wallet 0's tx is accepted, not in a block: it is busy; wallet 1
	// cannot pay; wallet 2 sends.
	if from, n, _ = send(1, load.Accepted); from != 2 || n != 0 {
		t.Fatalf("tx 1 from wallet %d nonce %d; want wallet 2 (0 busy, 1 cannot pay)", from, n)
	}
	mu.Lock()
	broken[wallets[0].Address.String()] = true
	mu.Unlock()
	w.Committed(h0, 7, load.TxResult{}, time.Second)
	w.persist.wg.Wait() // wallet 0's read after its block
	if from, n, _ = send(2, load.Accepted); from != 0 || n != 6 {
		t.Fatalf("tx 2 from wallet %d nonce %d; want wallet 0 free again after its block, its local count 6 when the read fails", from, n)
	}
	if p := w.Persistence(); p.Reads != 4 || p.ReadFailed != 1 || p.ChainAhead != 1 || p.Poor != 1 {
		t.Fatalf("persistence %+v; want 4 reads, 1 failed, 1 chain ahead, 1 passed over", p)
	}
	// No wallet can pay.
	poor, err := NewWorkload(WorkloadConfig{ChainID: 9, Denom: "atest", MaxFee: 10, Tip: 1, Mix: []MixEntry{{Kind: Native, Weight: 1, Amount: 3}},
		Senders: fixed(1), Receivers: fixed(0), Targets: 1, RPCs: []string{"http://127.0.0.1:1"}, Prefix: "cosmos",
		Persistent: true, JSONRPCs: []string{srv.URL}}, Wallets("persist", 2))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	balance[wallets[0].Address.String()] = "0x1"
	broken[wallets[0].Address.String()] = false
	mu.Unlock()
	if err := poor.Prepare(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := poor.Append(ctx, nil, 0); err == nil || !strings.Contains(err.Error(), "cannot pay") {
		t.Fatalf("no wallet can pay: %v", err)
	}
}
