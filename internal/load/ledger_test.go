package load

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func hashOf(i int) Hash { return sha256.Sum256([]byte(fmt.Sprint("tx", i))) }

// TestLedgerFates walks txs through every path to a fate and checks the
// conservation law.
func TestLedgerFates(t *testing.T) {
	start := time.Unix(1000, 0)
	l := NewLedger(start, true)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	for i := 0; i < 7; i++ {
		l.Begin(hashOf(i), time.Duration(i)*time.Millisecond)
	}
	l.Sent(hashOf(0), 0, at(1), Accepted, "")                // -> committed
	l.Sent(hashOf(1), time.Millisecond, at(2), Accepted, "") // -> committed_failed
	l.Sent(hashOf(2), 2*time.Millisecond, at(3), Rejected, "mempool is full: number of txs 5000 (max: 5000)")
	l.Sent(hashOf(3), 3*time.Millisecond, at(4), SendError, "dial tcp: connection refused") // stays send_error
	l.Sent(hashOf(4), 4*time.Millisecond, at(5), SendError, "timeout")                      // answer lost, yet committed
	l.Sent(hashOf(5), 5*time.Millisecond, at(6), Accepted, "")                              // never seen: unresolved
	// tx 6 is in a block before its send returns (broadcast_tx_commit).
	if !committed(l, hashOf(6), 1, 0, at(900)) {
		t.Fatal("Committed(tx6) = false; want true for a tx the ledger began")
	}
	l.Sent(hashOf(6), 6*time.Millisecond, at(7), Accepted, "")
	if !committed(l, hashOf(0), 1, 0, at(1000)) || !committed(l, hashOf(1), 1, 5, at(1000)) || !committed(l, hashOf(4), 2, 0, at(2000)) {
		t.Fatal("Committed = false for the ledger's own txs")
	}
	if committed(l, hashOf(99), 2, 0, at(2000)) {
		t.Error("Committed(foreign tx) = true; want false")
	}
	if committed(l, hashOf(0), 3, 0, at(3000)) {
		t.Error("a tx committed twice counts twice")
	}
	if got := l.Unresolved(); got != 1 {
		t.Errorf("Unresolved() = %d; want 1 (tx 5)", got)
	}
	l.Close()
	s := l.Summary()
	want := map[Fate]int64{FateCommitted: 3, FateCommittedFailed: 1, FateRejected: 1, FateSendError: 1, FateUnresolved: 1}
	for f, n := range want {
		if s.Fates[f] != n {
			t.Errorf("fate %s = %d; want %d", f, s.Fates[f], n)
		}
	}
	if s.Sent != 7 || !s.Balanced() {
		t.Errorf("sent %d, fates %v: conservation law broken", s.Sent, s.Fates)
	}
	if s.Reasons["mempool is full"] != 1 || s.Reasons["in block: code 5: insufficient funds"] != 1 {
		t.Errorf("reasons = %v; want mempool is full and the failed tx's reason counted once", s.Reasons)
	}
	if s.Latency.Count != 4 || s.Latency.Max < 1990 || s.Latency.Max > 2010 {
		t.Errorf("latency count %d max %.0fms; want 4 txs in blocks, max ~1996ms (tx 4)", s.Latency.Count, s.Latency.Max)
	}
}

// A queued answer (the node refused the tx for a nonce gap but queued
// it) counts as accepted and queued, and the tx is followed to its block:
// committed when a block holds it, unresolved when none does.
func TestLedgerQueued(t *testing.T) {
	start := time.Unix(1000, 0)
	l := NewLedger(start, true)
	for i := 0; i < 2; i++ {
		l.Begin(hashOf(i), 0)
		l.Sent(hashOf(i), 0, start, Queued, "tx nonce is higher than account nonce")
	}
	if !committed(l, hashOf(0), 3, 0, start.Add(time.Second)) {
		t.Fatal("a queued tx's block was not its")
	}
	l.Close()
	s := l.Summary()
	if s.Accepted != 2 || s.Queued != 2 || s.QueuedUnresolved != 1 || s.Rejected != 0 || s.Fates[FateCommitted] != 1 || s.Fates[FateUnresolved] != 1 || !s.Balanced() {
		t.Fatalf("summary %+v", s)
	}
}

// Two sends of the same bytes while the first has no fate (what a
// workload must never do: CI, 2026-11-28, an EVM tx varied too little)
// are one tx to the ledger: one send gets no fate and the law breaks,
// and Repeats says why. One send of a tx is no repeat.
func TestLedgerRepeats(t *testing.T) {
	start := time.Unix(1000, 0)
	l := NewLedger(start, true)
	l.Begin(hashOf(1), 0)
	l.Begin(hashOf(2), 0)
	l.Begin(hashOf(1), time.Millisecond) // the same bytes again
	l.Sent(hashOf(1), 0, start, Accepted, "")
	l.Sent(hashOf(2), 0, start, Accepted, "")
	l.Sent(hashOf(1), time.Millisecond, start, Rejected, "tx already exists in cache")
	committed(l, hashOf(1), 3, 0, start.Add(time.Second))
	committed(l, hashOf(2), 3, 0, start.Add(time.Second))
	l.Close()
	if s := l.Summary(); s.Repeats != 1 || s.Balanced() || s.Sent != 3 {
		t.Fatalf("repeats %d, balanced %v, %d sent; want 1 repeat and the law broken", s.Repeats, s.Balanced(), s.Sent)
	}
	l = NewLedger(start, true)
	l.Begin(hashOf(1), 0)
	l.Sent(hashOf(1), 0, start, Rejected, "nonce too low")
	l.Begin(hashOf(1), time.Millisecond) // again after its fate: a new send
	l.Sent(hashOf(1), time.Millisecond, start, Accepted, "")
	committed(l, hashOf(1), 3, 0, start.Add(time.Second))
	l.Close()
	if s := l.Summary(); s.Repeats != 0 || !s.Balanced() {
		t.Fatalf("repeats %d, balanced %v; want none, the law held", s.Repeats, s.Balanced())
	}
}

// TestLedgerInclusionLatency: the CometBFT QA latency of a tx in block H
// is the time of block H+1 minus its send time.
func TestLedgerInclusionLatency(t *testing.T) {
	start := time.Unix(1000, 0)
	l := NewLedger(start, true)
	l.Begin(hashOf(1), 100*time.Millisecond)
	l.Sent(hashOf(1), 100*time.Millisecond, start.Add(100*time.Millisecond), Accepted, "")
	committed(l, hashOf(1), 10, 0, start.Add(time.Second))
	l.BlockTime(10, start.Add(900*time.Millisecond))
	l.BlockTime(11, start.Add(2100*time.Millisecond))
	if got := l.Summary().Inclusion; got.Count != 1 || got.Max < 1999 || got.Max > 2001 {
		t.Errorf("inclusion latency = %+v; want one at 2000ms", got)
	}
}

// TestLedgerUntracked keeps no per-tx state: accepted txs end unresolved.
func TestLedgerUntracked(t *testing.T) {
	l := NewLedger(time.Now(), false)
	for i := 0; i < 1000; i++ {
		l.Begin(hashOf(i), 0)
		l.Sent(hashOf(i), 0, time.Now(), Accepted, "")
	}
	if len(l.pend) != 0 {
		t.Errorf("untracked ledger holds %d txs", len(l.pend))
	}
	l.Close()
	if s := l.Summary(); s.Fates[FateUnresolved] != 1000 || !s.Balanced() {
		t.Errorf("fates = %v; want 1000 unresolved", s.Fates)
	}
}

func committed(l *Ledger, h Hash, height int64, code uint32, seen time.Time) bool {
	r := TxResult{Code: code}
	if code != 0 {
		r.Log = "failed to execute message; message index: 0: 7stake is smaller than 9stake: insufficient funds"
	}
	_, ok := l.Committed(h, height, r, seen)
	return ok
}

// TestLedgerLatencyBuckets: latencies land in the 1-2-5 bucket whose bound
// is the first at or above them, and Committed returns each one.
func TestLedgerLatencyBuckets(t *testing.T) {
	start := time.Unix(1000, 0)
	l := NewLedger(start, true)
	for i, ms := range []int{150, 180, 900, 1900, 4000} {
		l.Begin(hashOf(i), 0)
		l.Sent(hashOf(i), 0, start, Accepted, "")
		lat, ok := l.Committed(hashOf(i), 5, TxResult{}, start.Add(time.Duration(ms)*time.Millisecond))
		if !ok || lat != time.Duration(ms)*time.Millisecond {
			t.Errorf("Committed = %s, %v; want %d ms", lat, ok, ms)
		}
	}
	got := map[float64]int64{}
	for _, b := range l.Summary().LatencyHist {
		got[b.UpToMS] = b.Count
	}
	want := map[float64]int64{200: 2, 500: 0, 1000: 1, 2000: 1, 5000: 1}
	if len(got) != len(want) {
		t.Errorf("buckets %v; want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("bucket <= %g ms: %d; want %d", k, got[k], v)
		}
	}
}

// A tx seen in a block whose results could not be read is not assumed
// committed with code 0: it ends unresolved, with that reason, and counts
// in no committed figure.
func TestLedgerBlockWithoutResults(t *testing.T) {
	start := time.Unix(1000, 0)
	l := NewLedger(start, true)
	l.Begin(hashOf(1), 0)
	l.Sent(hashOf(1), 0, start.Add(time.Millisecond), Accepted, "")
	if !l.NoResult(hashOf(1)) || l.NoResult(hashOf(2)) {
		t.Fatal("NoResult: want true for the ledger's tx only")
	}
	l.Close()
	s := l.Summary()
	if s.Fates[FateUnresolved] != 1 || s.Fates[FateCommitted] != 0 || !s.Balanced() {
		t.Errorf("fates %v; want the tx unresolved", s.Fates)
	}
	if s.Reasons["unresolved: in a block whose results could not be read"] != 1 {
		t.Errorf("reasons %v; want the unread results named", s.Reasons)
	}
}

// Latency percentiles of the measured window count only the txs seen in
// it; per-second samples hold each second's own.
func TestLedgerWindowLatency(t *testing.T) {
	start := time.Unix(1000, 0)
	l := NewLedger(start, true)
	l.SetWindow(2*time.Second, 4*time.Second)
	for i := 0; i < 6; i++ {
		l.Begin(hashOf(i), time.Duration(i)*time.Second)
		l.Sent(hashOf(i), time.Duration(i)*time.Second, start.Add(time.Duration(i)*time.Second), Accepted, "")
		// Latency i*100 ms + 100 ms, seen in second i.
		l.Committed(hashOf(i), int64(i+1), TxResult{}, start.Add(time.Duration(i)*time.Second+time.Duration(i+1)*100*time.Millisecond))
	}
	l.Close()
	s := l.Summary()
	if s.WindowLatency.Count != 2 || s.WindowLatency.Max < 399 || s.WindowLatency.Max > 401 {
		t.Errorf("window latency %+v; want the 2 txs seen in seconds 2 and 3 (300 and 400 ms)", s.WindowLatency)
	}
	if s.Latency.Count != 6 {
		t.Errorf("phase latency count %d; want 6", s.Latency.Count)
	}
	for i := 0; i < 6; i++ {
		// Per-second histograms keep two significant digits: 1 %.
		if got, want := s.PerSecond[i].LatencyP99, float64(i+1)*100; got < want*0.99 || got > want*1.01 {
			t.Errorf("second %d: p99 %.0f ms; want %d", i, got, (i+1)*100)
		}
	}
}

// Bounded memory: a send that never reached a node is final at once; the
// ledger says when it holds its cap of txs without a fate; the count of
// txs waiting for a block follows every path; a latency past the
// histogram's top (1 h) still counts.
func TestLedgerBounds(t *testing.T) {
	start := time.Unix(1000, 0)
	l := NewLedger(start, true)
	l.SetMaxPending(2)
	for i := 0; i < 2; i++ {
		l.Begin(hashOf(i), 0)
		l.Sent(hashOf(i), 0, start, SendError, "dial tcp 127.0.0.1:1: connect: connection refused")
	}
	if err := l.Full(); err != nil {
		t.Errorf("refused connections kept pending: %v", err)
	}
	l.Begin(hashOf(2), 0)
	l.Sent(hashOf(2), 0, start, Accepted, "")
	l.Begin(hashOf(3), 0)
	l.Sent(hashOf(3), 0, start, SendError, "timeout") // the answer may be lost: it may still commit
	if err := l.Full(); !errors.Is(err, ErrTooManyPending) || !strings.Contains(err.Error(), "not keeping up") {
		t.Errorf("Full() = %v; want too many unresolved", err)
	}
	if l.Unresolved() != 1 {
		t.Errorf("waiting %d; want 1 (tx 2)", l.Unresolved())
	}
	committed(l, hashOf(2), 1, 0, start.Add(2*time.Hour))
	if l.Unresolved() != 0 || l.Full() != nil {
		t.Errorf("after the commit: waiting %d, full %v", l.Unresolved(), l.Full())
	}
	l.Close()
	s := l.Summary()
	if s.Latency.Count != 1 || s.Latency.Max < 3599e3 {
		t.Errorf("a 2 h latency: %+v; want it counted at the top (1 h)", s.Latency)
	}
	if s.Fates[FateSendError] != 3 || !s.Balanced() {
		t.Errorf("fates %v", s.Fates)
	}
}

// TestReasonKeys: refusals count with their peers by kind; the SDK's
// answers to unordered txs keep what happened (timeout, duplicate), not
// their kind "invalid request".
func TestReasonKeys(t *testing.T) {
	for in, want := range map[string]string{
		"mempool is full: number of txs 5000 (max: 5000)":                                                                "mempool is full",
		"CheckTx code 5: failed to execute message; message index: 0: 7stake is smaller than 9stake: insufficient funds": "CheckTx code 5: insufficient funds",
		"CheckTx code 18: unordered transaction has a timeout_timestamp that has already passed: invalid request":        "CheckTx code 18: timeout (unordered tx expired)",
		"CheckTx code 1: invalid sender: invalid chain id for signer: have 1 want 262144":                                "CheckTx code 1: wrong EVM chain ID",
		"CheckTx code 1: invalid nonce; got 0, expected 5: tx nonce is lower than account nonce":                         "CheckTx code 1: nonce too low",
		"CheckTx code 1: tx nonce: 99, account accountNonce: 5: tx nonce is higher than account nonce":                   "CheckTx code 1: nonce too high (a gap)",
		"CheckTx code 13: max fee per gas less than block base fee (1 < 103308701): insufficient fee":                    "CheckTx code 13: fee cap below the base fee",
		"CheckTx code 13: max fee per gas (1) is lower than the base fee (1000000000): insufficient fee":                 "CheckTx code 13: fee cap below the base fee",
		"CheckTx code 18: failed to add unordered nonce: already used: invalid request":                                  "CheckTx code 18: duplicate (unordered tx seen before)",
		"CheckTx code 32: account sequence mismatch, expected 7, got 5: incorrect account sequence":                      "CheckTx code 32: incorrect account sequence",
	} {
		if got := reasonKey(in); got != want {
			t.Errorf("reasonKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLatencyCurve: the percentile curve goes as far into the tail as the
// count resolves (1,000 txs: to 99.9 %), rises, and ends at the max.
func TestLatencyCurve(t *testing.T) {
	start := time.Unix(1000, 0)
	l := NewLedger(start, true)
	for i := range 1000 {
		ms := 100 + i // 100 .. 1099 ms
		l.Begin(hashOf(i), 0)
		l.Sent(hashOf(i), 0, start, Accepted, "")
		l.Committed(hashOf(i), 5, TxResult{}, start.Add(time.Duration(ms)*time.Millisecond))
	}
	c := l.Summary().LatencyCurve
	if len(c) != 8 { // 0, 68.4, 90, 96.8, 99, 99.68, 99.9, then 100
		t.Fatalf("curve %v: want 8 points", c)
	}
	if c[0].Percent != 0 || math.Abs(c[0].MS-100) > 1 {
		t.Errorf("p0 %v: want the least, 100 ms", c[0])
	}
	if c[2].Percent != 90 || math.Abs(c[2].MS-1000) > 2 {
		t.Errorf("p90 %v: want ~1000 ms", c[2])
	}
	if last := c[len(c)-1]; last.Percent != 100 || math.Abs(last.MS-1099) > 2 {
		t.Errorf("last %v: want the max, 1099 ms", last)
	}
	for i := 1; i < len(c); i++ {
		if c[i].MS < c[i-1].MS || c[i].Percent <= c[i-1].Percent {
			t.Errorf("curve goes back at %d: %v", i, c)
		}
	}
	if NewLedger(start, true).Summary().LatencyCurve != nil {
		t.Error("an empty ledger has a curve")
	}
}

// TestCommittedMean: 2 s blocks of 200 txs in 1 s buckets (0, 200, 0,
// 200, ...) read as 100 tx/s over 5 s, each end over the seconds it has.
func TestCommittedMean(t *testing.T) {
	secs := make([]Second, 10)
	for i := 1; i < len(secs); i += 2 {
		secs[i].Committed = 200
	}
	m := CommittedMean(secs, 5)
	for i := 2; i < 8; i++ {
		if m[i] < 80 || m[i] > 120 {
			t.Errorf("second %d: %.0f tx/s over 5 s; want 80-120", i, m[i])
		}
	}
	if m[0] != 200.0/3 || m[9] != 400.0/3 {
		t.Errorf("ends %.1f, %.1f: want 66.7 (3 s) and 133.3 (3 s)", m[0], m[9])
	}
}

// The live summary is the summary without what a status line does not
// show; the buckets it leaves out are LatencyHist's.
func TestLedgerLive(t *testing.T) {
	start := time.Unix(1000, 0)
	l := NewLedger(start, true)
	for i := range 50 {
		l.Begin(hashOf(i), time.Duration(i)*10*time.Millisecond)
		l.Sent(hashOf(i), time.Duration(i)*10*time.Millisecond, start.Add(time.Duration(i)*10*time.Millisecond+time.Millisecond), Accepted, "")
		if i%10 != 9 {
			committed(l, hashOf(i), int64(1+i/10), 0, start.Add(time.Duration(600+i*37)*time.Millisecond))
		}
	}
	live, full := l.Live(), l.Summary()
	if full.LatencyCurve == nil || full.LatencyHist == nil || full.WindowLatency.Count == 0 || full.Latency.Count != 45 {
		t.Fatalf("the summary lacks what the test compares: %+v", full)
	}
	if live.LatencyCurve != nil || live.LatencyHist != nil || live.WindowLatency.Count != 0 || live.Inclusion.Count != 0 {
		t.Errorf("the live summary walked the histograms for a status line: %+v", live)
	}
	full.LatencyCurve, full.LatencyHist, full.WindowLatency, full.Inclusion = nil, nil, Percentiles{}, Percentiles{}
	if fmt.Sprint(live) != fmt.Sprint(full) {
		t.Errorf("live\n%+v\nsummary without its distributions\n%+v", live, full)
	}
	if got, want := fmt.Sprint(l.LatencyHist()), fmt.Sprint(l.Summary().LatencyHist); got != want {
		t.Errorf("LatencyHist %s; the summary's %s", got, want)
	}
}
