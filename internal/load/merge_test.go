package load

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// The shares of a schedule are the schedule: share i's tx k is the
// model's tx i+k*N, at the same intended time, for every model kind that
// spreads (constant, ramp, steps).
func TestSharesAreTheSchedule(t *testing.T) {
	for _, m := range []RateModel{
		Constant{R: 1000, D: 3 * time.Second},
		Ramp{From: 100, To: 900, D: 3 * time.Second},
		Steps{{R: 300, D: time.Second}, {R: 700, D: 2 * time.Second}},
	} {
		const n = 3
		var total int
		for i := 0; i < n; i++ {
			s := Share{M: m, Index: i, Of: n}
			for k := 0; ; k++ {
				got, ok := IntendedTime(s, float64(k), 0)
				want, wok := IntendedTime(m, float64(i+k*n), 0)
				if ok != wok {
					t.Fatalf("%s: share %d tx %d due %v, model tx %d due %v", m, i, k, ok, i+k*n, wok)
				}
				if !ok {
					break
				}
				if d := got - want; d < -time.Microsecond || d > time.Microsecond {
					t.Fatalf("%s: share %d tx %d at %s, model tx %d at %s", m, i, k, got, i+k*n, want)
				}
				total++
			}
		}
		if due := int(m.Due(m.Length()) + 0.999); total != due {
			t.Errorf("%s: the shares hold %d txs; the model %d", m, total, due)
		}
	}
}

// A phase spread over 3 generators, merged, gives the figures one
// generator gives over the same txs and blocks: every count, the
// conservation law, every percentile, the histograms and the per-second
// series. The merge goes through JSON, as it does from a generator pod.
func TestMergedLedgersEqualOne(t *testing.T) {
	m := Constant{R: 500, D: 4 * time.Second}
	start := time.Unix(1_700_000_000, 0)
	one := NewLedger(start, true)
	one.SetWindow(time.Second, 3*time.Second)
	const n = 3
	parts := make([]*Ledger, n)
	for i := range parts {
		parts[i] = NewLedger(start, true)
		parts[i].SetWindow(time.Second, 3*time.Second)
		parts[i].KeepSeconds()
	}
	// Tx j: intended at its model time, sent with a lag that varies,
	// every 7th refused, the rest in the block that follows its time by
	// 300 ms to 2 s; every 11th in a block with a failing result.
	type tx struct {
		h        Hash
		intended time.Duration
		height   int64
	}
	var txs []tx
	for j := 0; ; j++ {
		at, ok := IntendedTime(m, float64(j), 0)
		if !ok {
			break
		}
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(j))
		h := Hash(sha256.Sum256(b[:]))
		lag := time.Duration(j%37) * 41 * time.Microsecond
		o, reason := Accepted, ""
		if j%7 == 0 {
			o, reason = Rejected, "mempool is full: number of txs 5000 (max: 5000)"
		}
		for _, l := range []*Ledger{one, parts[j%n]} {
			l.Begin(h, at)
			l.Sent(h, at, start.Add(at+lag), o, reason)
		}
		if o == Accepted {
			txs = append(txs, tx{h: h, intended: at, height: int64(at/(700*time.Millisecond)) + 2})
		}
	}
	byHeight := map[int64][]tx{}
	var top int64
	for _, x := range txs {
		byHeight[x.height] = append(byHeight[x.height], x)
		top = max(top, x.height)
	}
	for h := int64(2); h <= top+1; h++ {
		seen := start.Add(time.Duration(h)*700*time.Millisecond + time.Duration(h%5)*300*time.Millisecond)
		for _, l := range append([]*Ledger{one}, parts...) {
			l.BlockTime(h, seen.Add(-100*time.Millisecond))
		}
		for i, x := range byHeight[h] {
			r := TxResult{}
			if i%11 == 0 {
				r = TxResult{Code: 5, Log: "out of gas"}
			}
			one.Committed(x.h, h, r, seen)
			for _, p := range parts {
				p.Committed(x.h, h, r, seen) // the others answer "not ours"
			}
		}
	}
	one.Close()
	var states []LedgerState
	for _, p := range parts {
		p.Close()
		st, err := p.State()
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		var back LedgerState
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		states = append(states, back)
	}
	merged, err := MergeLedgers(states)
	if err != nil {
		t.Fatal(err)
	}
	want, got := one.Summary(), merged.Summary()
	if !got.Balanced() || got.Sent != 2000 || got.Fates[FateCommittedFailed] == 0 || got.Rejected == 0 {
		t.Fatalf("merged: sent %d balanced %v fates %v", got.Sent, got.Balanced(), got.Fates)
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("merged summary differs from one ledger's:\n got %s\nwant %s", gj, wj)
	}
	// A share's ledger alone is not the whole: the check can fail.
	if alone := parts[0].Summary(); reflect.DeepEqual(alone, want) {
		t.Error("one share's summary equals the whole's")
	}
	// Ledgers of two phases (other starts) do not merge.
	other := states[1]
	other.Start = other.Start.Add(time.Second)
	if _, err := MergeLedgers([]LedgerState{states[0], other}); err == nil {
		t.Error("ledgers with different starts merged")
	}
	// A ledger still open is refused.
	open := NewLedger(start, true)
	open.KeepSeconds()
	if _, err := open.State(); err == nil {
		t.Error("an open ledger gave its state")
	}
}

// Reports merge: counts add, bound if any generator was.
func TestMergeReports(t *testing.T) {
	r := MergeReports([]Report{{Due: 10, Dispatched: 10, OnTime: 10, Senders: 2, Conns: 1}, {Due: 10, Dispatched: 9, OnTime: 5, Senders: 3, Conns: 4, Bound: true, BoundBy: BoundByGenerator, Why: "late"}})
	if r.Due != 20 || r.Dispatched != 19 || r.OnTime != 15 || r.Senders != 5 || r.Conns != 5 || !r.Bound || r.BoundBy != BoundByGenerator || r.Why != "generator 1: late" || r.Generators != 2 {
		t.Errorf("merged report %+v", r)
	}
	if r := MergeReports([]Report{{Due: 1}, {Due: 1}}); r.Bound {
		t.Errorf("no generator bound, merged bound: %+v", r)
	}
}
