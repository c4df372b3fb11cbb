package evm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// poolServer is a node's JSON-RPC server whose txpool_inspect answers
// what set was last given.
type poolServer struct {
	mu     sync.Mutex
	answer string
	reads  int
}

func (s *poolServer) set(answer string) {
	s.mu.Lock()
	s.answer, s.reads = answer, 0
	s.mu.Unlock()
}

// waitReads waits until the server answered n reads since the last set.
func (s *poolServer) waitReads(t *testing.T, n int) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		s.mu.Lock()
		r := s.reads
		s.mu.Unlock()
		if r >= n {
			return
		}
	}
	t.Fatalf("fewer than %d pool reads in 10 s", n)
}

func (s *poolServer) start(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Method string }
		if json.NewDecoder(r.Body).Decode(&req) != nil || req.Method != "txpool_inspect" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.reads++
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":%s}`, s.answer)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// inspect is a txpool_inspect result: each status's accounts and nonces.
func inspect(pending, queued map[Address][]uint64) string {
	part := func(m map[Address][]uint64) string {
		var accts []string
		for a, nonces := range m {
			var ns []string
			for _, n := range nonces {
				ns = append(ns, fmt.Sprintf(`"%d":"0x0000000000000000000000000000000000000001: 1 wei + 21000 gas × 1000000000 wei"`, n))
			}
			// Checksummed, as the node writes it: mixed case.
			accts = append(accts, fmt.Sprintf(`"0x%X":{%s}`, a[:], strings.Join(ns, ",")))
		}
		return "{" + strings.Join(accts, ",") + "}"
	}
	return fmt.Sprintf(`{"pending":%s,"queued":%s}`, part(pending), part(queued))
}

// The pool watch times a tx its node's pool names queued until a read
// names it pending, and then until its block, and counts the answers'
// gaps beside the pool's word; a tx never named queued, or named so by
// another node than its own, is not timed; a read the node fails is
// counted and its reason kept.
func TestPoolWatch(t *testing.T) {
	wallets := Wallets("pool", 4)
	a, b, c, d := wallets[0].Address, wallets[1].Address, wallets[2].Address, wallets[3].Address
	var n0, n1 poolServer
	stranger := Address{0xee} // not a wallet of the load: passed over
	n0.set(inspect(map[Address][]uint64{b: {3}}, map[Address][]uint64{a: {5}, d: {2}, stranger: {1}}))
	n1.set(inspect(nil, map[Address][]uint64{c: {7}}))
	p := startPool(context.Background(), []string{n0.start(t), n1.start(t)}, 10*time.Millisecond, wallets)
	answered := time.Now()
	p.took(0, 5, 0, true, answered)  // answered with a gap, queued, then pending
	p.took(1, 3, 0, false, answered) // pending from the start
	p.took(2, 7, 0, true, answered)  // sent to node 0; node 1 names it queued
	p.took(3, 2, 0, false, answered) // answered well, yet queued: the pool's word
	n0.waitReads(t, 2)
	n1.waitReads(t, 2)
	time.Sleep(30 * time.Millisecond)
	n0.set(inspect(map[Address][]uint64{a: {5}, b: {3}}, nil))
	n0.waitReads(t, 2)
	p.committed(0, 5, time.Now())
	p.committed(1, 3, time.Now())
	p.committed(3, 2, time.Now()) // in a block between two reads
	n0.set(`{"pending":{"0xnothex":{}},"queued":{}}`)
	n0.waitReads(t, 1)
	s := p.Stop()
	if s.AnsweredGap != 2 || s.SeenQueued != 2 || s.GapQueued != 1 || s.Promoted != 1 || s.Committed != 2 {
		t.Errorf("answered gap %d, seen queued %d (%d gap), promoted %d, committed %d; want 2, 2 (1), 1, 2", s.AnsweredGap, s.SeenQueued, s.GapQueued, s.Promoted, s.Committed)
	}
	if s.ToPendingP50 < 30 || s.ToPendingMax != s.ToPendingP50 || s.PendingP50 < 0 || s.PendingP50 > 5000 {
		t.Errorf("to pending %.1f ms (max %.1f), then pending %.1f ms; want at least the 30 ms it stayed queued, one tx", s.ToPendingP50, s.ToPendingMax, s.PendingP50)
	}
	if s.MostQueued != 2 || s.MostPending != 2 {
		t.Errorf("most queued %d, pending %d; want 2 and 2 (the load's txs only)", s.MostQueued, s.MostPending)
	}
	if s.ReadFailed == 0 || !strings.Contains(s.FirstFailure, `account "0xnothex" is not 0x and 40 hex digits`) || s.Reads < 7 {
		t.Errorf("%d reads, %d failed (%q); want the bad answer counted and named", s.Reads, s.ReadFailed, s.FirstFailure)
	}
}

// An answer that is not an inspect result is refused with what it was.
func TestPoolInspectRefuses(t *testing.T) {
	p := &poolWatch{index: map[Address]int32{}, http: http.DefaultClient}
	var srv poolServer
	url := srv.start(t)
	for answer, want := range map[string]string{
		`null`: "no result",
		`{"pending":{"0x0000000000000000000000000000000000000001":{"x":""}}}`: `nonce "x" is not a decimal number`,
		`{"queued":{"0x00":{}}}`: "is not 0x and 40 hex digits",
		`{"queued":{"0xzz00000000000000000000000000000000000001":{}}}`: "invalid byte",
		`[1]`: "not a JSON-RPC answer",
	} {
		srv.set(answer)
		if _, _, err := p.inspect(context.Background(), url); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", answer, err, want)
		}
	}
}

// FuzzPoolKeys: whatever a node writes, keys reads it or says why, and
// every key it keeps is a wallet's, with a nonce the answer holds.
func FuzzPoolKeys(f *testing.F) {
	wallets := Wallets("fuzz", 2)
	f.Add(fmt.Sprintf(`{"0x%x":{"5":"a"},"0x0000000000000000000000000000000000000001":{"1":""}}`, wallets[0].Address[:]))
	f.Add(fmt.Sprintf(`{"0x%X":{"18446744073709551615":"a","0":"","01":""}}`, wallets[1].Address[:]))
	p := &poolWatch{index: map[Address]int32{wallets[0].Address: 0, wallets[1].Address: 1}}
	f.Fuzz(func(t *testing.T, answer string) {
		var m map[string]map[string]json.RawMessage
		if json.Unmarshal([]byte(answer), &m) != nil {
			return
		}
		keys, err := p.keys(m)
		if err != nil {
			return
		}
		total := 0
		for _, nonces := range m {
			total += len(nonces)
		}
		if len(keys) > total {
			t.Fatalf("%d keys from %d nonces", len(keys), total)
		}
		for k := range keys {
			if k.from != 0 && k.from != 1 {
				t.Fatalf("a key of wallet %d, not the load's", k.from)
			}
		}
	})
}
