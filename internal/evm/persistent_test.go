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

// A sender whose accepted tx is in no block persistStuck later is read
// again and goes on at the chain's nonce (below its own count: the tx is
// given up on), once; that tx's block, if it comes after, frees nothing
// more. A tx whose block the follower saw before the node's answer frees
// its sender at the answer.
func TestPersistentGivesUpOnALostTx(t *testing.T) {
	defer func(d time.Duration) { persistStuck = d }(persistStuck)
	persistStuck = 100 * time.Millisecond
	wallets := Wallets("stuck", 2)
	var mu sync.Mutex
	reads := 0
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string `json:"method"`
			Params []string
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil || req.Method == "eth_call" || len(req.Params) == 0 {
			fmt.Fprint(rw, `{"jsonrpc":"2.0","id":null,"error":{"message":"not here"}}`)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		result := "0xde0b6b3a7640000"
		if req.Method == "eth_getTransactionCount" {
			reads++
			result = "0x5" // the chain never takes the lost tx
		}
		fmt.Fprintf(rw, `{"jsonrpc":"2.0","id":1,"result":%q}`, result)
	}))
	defer srv.Close()
	cfg := fromWallet0()
	cfg.Persistent, cfg.JSONRPCs = true, []string{srv.URL}
	w, err := NewWorkload(cfg, wallets)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := w.Prepare(ctx, 10); err != nil {
		t.Fatal(err)
	}
	w.state[1].out.Store(true) // wallet 0 sends every tx: a busy one has no other to hand it to
	appendTx := func(seq uint64) (uint64, load.Hash) {
		t.Helper()
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		tx, err := w.Append(actx, nil, seq)
		if err != nil {
			t.Fatalf("tx %d: %v (its sender not freed)", seq, err)
		}
		w.mu.Lock()
		r := w.refs[seq]
		w.mu.Unlock()
		return r.nonce, sha256.Sum256(tx)
	}
	n, lost := appendTx(0)
	w.Sent(0, load.Accepted, "")
	if n != 5 {
		t.Fatalf("tx 0 nonce %d; want the chain's 5", n)
	}
	// No block holds it: after persistStuck the sender goes on at 5.
	if n, _ = appendTx(1); n != 5 {
		t.Fatalf("tx 1 nonce %d; want 5 again, the lost tx given up on", n)
	}
	w.Sent(1, load.Rejected, "nonce too low")
	w.persist.wg.Wait()
	// The lost tx's block comes late: it frees no sender (no read).
	mu.Lock()
	before := reads
	mu.Unlock()
	w.Committed(lost, 9, load.TxResult{}, time.Second)
	w.persist.wg.Wait()
	mu.Lock()
	after := reads
	mu.Unlock()
	if after != before {
		t.Fatalf("the given-up tx's block read its sender again (%d reads, %d before)", after, before)
	}
	// A block seen before the node's answer: the answer frees the sender.
	n, h := appendTx(2)
	w.Committed(h, 10, load.TxResult{}, time.Second)
	w.Sent(2, load.Accepted, "")
	w.persist.wg.Wait()
	if n3, _ := appendTx(3); n3 != 6 {
		t.Fatalf("tx 3 nonce %d; want 6, after tx 2's (a sender given up on would go back to the chain's 5)", n3)
	}
	if p := w.Persistence(); p.GaveUp != 1 {
		t.Fatalf("persistence %+v; want 1 tx given up on", p)
	}
}
