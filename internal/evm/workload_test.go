package evm

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
)

// fixed picks wallet n for every tx.
type fixed int

func (f fixed) Pick(uint64) int { return int(f) }
func (f fixed) String() string  { return "fixed" }

// A sender's nonces count up; a refused tx's nonce is used again by the
// sender's next tx; the committed txs are counted per sender; a send
// error makes the next tx re-read the nonce (here from no node: it keeps
// its count and says so by not counting a re-read).
func TestNoncesAndRepairs(t *testing.T) {
	w, err := NewWorkload(fromWallet0(), Wallets("t", 2))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	send := func(seq uint64, o load.Outcome) (uint64, load.Hash) {
		t.Helper()
		tx, err := w.Append(ctx, nil, seq)
		if err != nil {
			t.Fatal(err)
		}
		w.mu.Lock()
		nonce := w.refs[seq].nonce
		w.mu.Unlock()
		w.Sent(seq, o, "")
		return nonce, sha256.Sum256(tx)
	}
	n0, h0 := send(0, load.Accepted)
	n1, _ := send(1, load.Rejected)
	n2, h2 := send(2, load.Accepted)
	if n0 != 0 || n1 != 1 || n2 != 1 {
		t.Fatalf("nonces %d %d %d; want 0 1 1 (the refused nonce used again)", n0, n1, n2)
	}
	if reused, _ := w.Repairs(); reused != 1 {
		t.Fatalf("reused %d; want 1", reused)
	}
	w.Committed(h0, 5, load.TxResult{}, time.Second)
	w.Committed(h2, 6, load.TxResult{Code: 3}, time.Second) // refused in its block: no nonce used
	if w.committed[0] != 1 || w.height != 6 || len(w.hashes) != 0 {
		t.Fatalf("committed %v, height %d, %d hashes left", w.committed, w.height, len(w.hashes))
	}
	// A send error: the node may hold the tx; the next tx re-reads the
	// nonce, which fails here (no node), so it goes on from its count.
	send(3, load.SendError)
	if !w.state[0].stale {
		t.Fatal("a send error did not mark the sender for a re-read")
	}
	if n, _ := send(4, load.Accepted); n != 3 {
		t.Fatalf("nonce after a send error %d; want 3", n)
	}
	// One tx in flight per sender: while wallet 0's tx waits for its
	// answer, the next tx goes from wallet 1 (same node); with both busy
	// the next waits.
	if _, err := w.Append(ctx, nil, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(ctx, nil, 6); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	from5, from6 := w.refs[5].from, w.refs[6].from
	w.mu.Unlock()
	if from5 != 0 || from6 != 1 {
		t.Fatalf("senders %d, %d; want 0 then the free wallet 1", from5, from6)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := w.Append(short, nil, 7); err == nil {
		t.Fatal("a tx with every sender's previous tx in flight did not wait")
	}
}

// Over JSON-RPC a tx goes as eth_sendRawTransaction of the signed tx its
// envelope carries; RawOf finds that tx and nothing in other bytes.
func TestOverJSONRPC(t *testing.T) {
	w := Derive("j", 0)
	tx := Tx{ChainID: 7, Nonce: 3, Tip: 1, GasPrice: 5, Gas: TransferGas, To: Derive("j", 1).Address, Value: 9}
	raw, _ := tx.Sign(w.Key)
	env := Envelope(nil, w.Address, raw, tx.Gas, tx.Fee(), "atest")
	if got := RawOf(env); string(got) != string(raw) {
		t.Fatalf("RawOf = %x; want %x", got, raw)
	}
	if RawOf([]byte("kv=store")) != nil || RawOf(nil) != nil {
		t.Fatal("RawOf found a tx in bytes that are no envelope")
	}
	j := OverJSONRPC(nil, []string{"http://127.0.0.1:1"})
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":42,"method":"eth_sendRawTransaction","params":["0x%x"]}`, raw)
	if got := string(j.AppendRequest(nil, 42, env)); got != want {
		t.Fatalf("request %s; want %s", got, want)
	}
}

// A mix draws each kind about as often as its weight says, the same
// kinds for the same seed and tx numbers; an ERC20 kind needs a token.
func TestMixDraws(t *testing.T) {
	mix := []MixEntry{{Kind: Native, Weight: 70, Amount: 1}, {Kind: ERC20, Weight: 30, Amount: 5}}
	cfg := WorkloadConfig{Mix: mix, MixSeed: 7, Senders: fixed(0), Receivers: fixed(1), Targets: 1}
	if _, err := NewWorkload(cfg, Wallets("m", 2)); err == nil {
		t.Fatal("an ERC20 kind without a token was taken")
	}
	cfg.TokenEach = big.NewInt(1)
	w, err := NewWorkload(cfg, Wallets("m", 2))
	if err != nil {
		t.Fatal(err)
	}
	n := [2]int{}
	for seq := uint64(0); seq < 10000; seq++ {
		n[w.draw(seq)]++
	}
	if n[1] < 2800 || n[1] > 3200 {
		t.Fatalf("erc20 drawn %d of 10000; want about 3000", n[1])
	}
	again, _ := NewWorkload(cfg, Wallets("m", 2))
	for seq := uint64(0); seq < 100; seq++ {
		if w.draw(seq) != again.draw(seq) {
			t.Fatalf("tx %d drawn differently for the same seed", seq)
		}
	}
	if !strings.Contains(w.String(), "70% native transfers of 1 wei, 30% ERC20 transfers of 5 token units") {
		t.Fatalf("String() = %q", w.String())
	}
}

// Wallets derived on every core are the wallets Derive makes one by one.
func TestWalletsAreDerived(t *testing.T) {
	ws := Wallets("w", 37)
	for i, w := range ws {
		if d := Derive("w", i); d.Address != w.Address || !d.Key.Key.Equals(&w.Key.Key) {
			t.Fatalf("wallet %d: %s; Derive says %s", i, w.Address, d.Address)
		}
	}
	if ws[0].Address == ws[1].Address || Derive("x", 0).Address == ws[0].Address {
		t.Fatal("wallets of one seed, or of two seeds, share an address")
	}
}

// With PerAccount 3 a sender has three txs in flight at once, nonces
// 0, 1, 2 assigned before any answer; a fourth goes from another wallet.
// A nonce gap is Queued only where the nodes' mempool queues it, and a
// queued tx's nonce is not used again.
func TestNoncesAhead(t *testing.T) {
	for _, app := range []bool{true, false} {
		cfg := fromWallet0()
		cfg.PerAccount, cfg.AppMempool = 3, app
		w, err := NewWorkload(cfg, Wallets("ahead", 2))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for seq := uint64(0); seq < 4; seq++ {
			if _, err := w.Append(ctx, nil, seq); err != nil {
				t.Fatal(err)
			}
		}
		w.mu.Lock()
		var got []string
		for seq := uint64(0); seq < 4; seq++ {
			got = append(got, fmt.Sprintf("%d:%d", w.refs[seq].from, w.refs[seq].nonce))
		}
		w.mu.Unlock()
		if strings.Join(got, " ") != "0:0 0:1 0:2 1:0" {
			t.Fatalf("sender:nonce %v; want three of wallet 0 ahead, then wallet 1", got)
		}
		why := "CheckTx code 1: tx nonce: 2, account accountNonce: 1: tx nonce is higher than account nonce"
		if w.Queued(why) != app || w.Queued("CheckTx code 5: insufficient funds") {
			t.Fatalf("app mempool %v: Queued(gap) = %v", app, w.Queued(why))
		}
		w.Sent(2, load.Queued, why)
		if w.state[0].next != 3 || w.state[0].stale {
			t.Fatalf("a queued tx's nonce was repaired: next %d, stale %v", w.state[0].next, w.state[0].stale)
		}
	}
}

// fromWallet0 is a config whose txs all go from wallet 0 to wallet 1 (a
// native transfer of 3 wei) through one node that is never asked.
func fromWallet0() WorkloadConfig {
	return WorkloadConfig{ChainID: 9, Denom: "atest", MaxFee: 10, Tip: 1, Mix: []MixEntry{{Kind: Native, Weight: 1, Amount: 3}},
		Senders: fixed(0), Receivers: fixed(1), Targets: 1, RPCs: []string{"http://127.0.0.1:1"}, Prefix: "cosmos"}
}

// A tx that would be the same bytes as one still in flight (its sender's
// nonce used again after a re-read, the same receiver drawn) goes to the
// next receiver instead: the ledger must never see one tx as two sends.
func TestNoSameBytesInFlight(t *testing.T) {
	cfg := fromWallet0()
	cfg.PerAccount = 2
	w, err := NewWorkload(cfg, Wallets("same", 3))
	if err != nil {
		t.Fatal(err)
	}
	a, err := w.Append(context.Background(), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.state[0].next = 0 // as a re-read that found the first tx not yet committed
	b, err := w.Append(context.Background(), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(a) == sha256.Sum256(b) || len(w.hashes) != 2 || w.hashes[sha256.Sum256(b)].to != 2 {
		t.Fatalf("the second tx: %d hashes in flight, to %d; want another receiver (2)", len(w.hashes), w.hashes[sha256.Sum256(b)].to)
	}
}

// With two wallets there is one receiver to vary to: a tx that would
// repeat one in flight again and again gets a gas limit one higher each
// time instead, never the same bytes (before, the fourth try sent the
// repeat, and the ledger lost a tx: CI, 2026-11-28, 1,599 fates of 1,600).
func TestNoSameBytesWithOneReceiver(t *testing.T) {
	cfg := fromWallet0()
	cfg.PerAccount = 6
	w, err := NewWorkload(cfg, Wallets("one", 2))
	if err != nil {
		t.Fatal(err)
	}
	for seq := uint64(0); seq < 6; seq++ {
		w.state[0].next = 0 // every re-read finds nonce 0 not yet committed
		if _, err := w.Append(context.Background(), nil, seq); err != nil {
			t.Fatal(err)
		}
	}
	for seq := uint64(0); seq < 6; seq++ {
		tx := w.refs[seq]
		if tx.from != 0 || tx.nonce != 0 {
			t.Fatalf("tx %d: from %d nonce %d; want wallet 0's nonce 0", seq, tx.from, tx.nonce)
		}
	}
	if len(w.hashes) != 6 {
		t.Fatalf("%d distinct txs in flight of 6 sent with one nonce and one receiver; want 6", len(w.hashes))
	}
}
