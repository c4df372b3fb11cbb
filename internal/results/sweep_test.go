package results

import (
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
)

func cell(name string, length time.Duration, committed int64, p99 float64) *Phase {
	return &Phase{Name: name, Length: length, Ledger: load.Summary{
		Fates: map[load.Fate]int64{load.FateCommitted: committed}, Latency: load.Percentiles{P99: p99}}}
}

func TestSaturation(t *testing.T) {
	T := 10 * time.Second // expected = c*r*9
	phases := []*Phase{
		cell("sweep c=1 r=200", T, 1800, 1000),  // 200 tx/s: all of it
		cell("sweep c=1 r=400", T, 3600, 1200),  // 400
		cell("sweep c=2 r=200", T, 3550, 1100),  // 400: 98.6 %
		cell("sweep c=2 r=400", T, 7000, 2000),  // 800: 97.2 %
		cell("sweep c=4 r=400", T, 9000, 2500),  // 1600: 62.5 %
		cell("sweep c=1 r=1200", T, 1000, 9000), // 1200: 9 %, heavier than 800 but lighter than 1600
	}
	sw := Saturation(phases, 0.97, 3, time.Second)
	if len(sw.Cells) != 6 || sw.Cells[3].Expected != 7200 {
		t.Fatalf("cells %+v", sw.Cells)
	}
	if sw.Saturation != 800 {
		t.Errorf("saturation %g; want 800 (%s)", sw.Saturation, sw.Evidence)
	}
	if !strings.Contains(sw.Evidence, "1 x 1200 = 1200 tx/s") || !sw.Cells[5].Saturated || !sw.Cells[4].Saturated || sw.Cells[3].Saturated {
		t.Errorf("evidence %q, cells %+v", sw.Evidence, sw.Cells)
	}
	// Latency that blows up ends the held range even at full share.
	sw = Saturation([]*Phase{cell("sweep c=1 r=100", T, 900, 1000), cell("sweep c=1 r=200", T, 1800, 3500)}, 0.97, 3, time.Second)
	if sw.Saturation != 100 || !strings.Contains(sw.Evidence, "p99 latency 3500 ms") {
		t.Errorf("latency blow-up: saturation %g, %q", sw.Saturation, sw.Evidence)
	}
	// Nothing held.
	sw = Saturation([]*Phase{cell("sweep c=1 r=100", T, 10, 1000)}, 0.97, 3, time.Second)
	if sw.Saturation != 0 {
		t.Errorf("saturation %g; want 0", sw.Saturation)
	}
}

// Unresolved txs are attributed to the mempools still holding them when
// the drain ended, then to silent mempool drops: the target
// nodes' refused count less the "mempool is full" answers chainperf got,
// then to the target nodes' recheck evictions; what none of these covers
// is unexplained.
func TestExplainUnresolved(t *testing.T) {
	s := load.Summary{Fates: map[load.Fate]int64{load.FateUnresolved: 50}, Reasons: map[string]int64{"mempool is full": 100}}
	u := ExplainUnresolved(s, Drops{Refused: 130}, Left{})
	if u.Dropped != 30 || u.Explained != 30 || u.Unexplained != 20 {
		t.Errorf("%+v; want 30 dropped, 30 explained, 20 unexplained", u)
	}
	if u := ExplainUnresolved(s, Drops{Refused: 500}, Left{}); u.Explained != 50 || u.Unexplained != 0 {
		t.Errorf("%+v; want all 50 explained", u)
	}
	if u := ExplainUnresolved(s, Drops{Refused: 80}, Left{}); u.Dropped != 0 || u.Unexplained != 50 || !strings.Contains(u.String(), "50 unexplained") {
		t.Errorf("%+v (%s); want none explained", u, u)
	}
	// Txs a node's mempool still held when the drain ended come first:
	// 20 of the 50, the drops explain 30 of the other 30, none left.
	if u := ExplainUnresolved(s, Drops{Refused: 130}, Left{InMempool: 20}); u.InMempool != 20 || u.Explained != 30 || u.Unexplained != 0 ||
		!strings.Contains(u.String(), "20 still in a node's mempool when the drain ended") {
		t.Errorf("%+v (%s); want 20 in a mempool, 30 dropped, none unexplained", u, u)
	}
	// More held than unresolved (the node lists txs of other senders'
	// too): at most the unresolved.
	if u := ExplainUnresolved(s, Drops{}, Left{InMempool: 80}); u.InMempool != 50 || u.Unexplained != 0 {
		t.Errorf("%+v; want the 50 in a mempool", u)
	}
	// Txs answered queued (an EVM mempool's nonce gap) that no block took
	// are named as such before the drops.
	q := s
	q.QueuedUnresolved = 45
	if u := ExplainUnresolved(q, Drops{}, Left{}); u.Queued != 45 || u.Unexplained != 5 ||
		!strings.Contains(u.String(), "45 answered with a nonce gap and queued by the node's EVM mempool") {
		t.Errorf("%+v (%s); want 45 queued, 5 unexplained", u, u)
	}
	// EVM txs by their senders' nonces on chain come after those, before
	// the drops: 45 queued, then 3 replaced and 1 behind a gap of the 5
	// left, 1 unexplained; none past what is unresolved.
	if u := ExplainUnresolved(q, Drops{}, Left{NonceTaken: 3, NonceGap: 9}); u.Queued != 45 || u.NonceTaken != 3 || u.NonceGap != 2 || u.Unexplained != 0 ||
		!strings.Contains(u.String(), "3 replaced (their sender's nonce on chain passed theirs") || !strings.Contains(u.String(), "2 behind a nonce gap") {
		t.Errorf("%+v (%s); want 45 queued, 3 replaced, 2 behind a gap", u, u)
	}
	if u := ExplainUnresolved(s, Drops{}, Left{NonceTaken: 1}); u.NonceTaken != 1 || u.NonceGap != 0 || u.Unexplained != 49 || strings.Contains(u.String(), "nonce gap") {
		t.Errorf("%+v (%s); want 1 replaced, 49 unexplained", u, u)
	}
	// Recheck evictions come after the drops: 30 dropped, then 15 of the
	// 20 left evicted, 5 unexplained; the line names them only when the
	// nodes evicted any.
	if u := ExplainUnresolved(s, Drops{Refused: 130, Evicted: 15}, Left{}); u.Explained != 30 || u.Evicted != 15 || u.Unexplained != 5 ||
		!strings.Contains(u.String(), "15 evicted at a recheck (the target nodes' mempools removed 15 txs") {
		t.Errorf("%+v (%s); want 30 dropped, 15 evicted, 5 unexplained", u, u)
	}
	if u := ExplainUnresolved(s, Drops{Evicted: 90}, Left{InMempool: 45}); u.Evicted != 5 || u.Unexplained != 0 {
		t.Errorf("%+v; want 45 in a mempool, 5 evicted of the 90 evictions", u)
	}
	if u := ExplainUnresolved(s, Drops{}, Left{}); strings.Contains(u.String(), "evicted") {
		t.Errorf("%s: names evictions the nodes did not count", u)
	}
}

// Unresolved txs due before every target node was stopped (its mempool
// gone with it) are named as such, by the second they were due in, and
// before the drops; those due after the last stop are not.
func TestLostToStops(t *testing.T) {
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	s := load.Summary{Fates: map[load.Fate]int64{load.FateUnresolved: 12}, PerSecond: []load.Second{
		{Unresolved: 1}, {}, {Unresolved: 5}, {Unresolved: 4}, {Unresolved: 2}}}
	stop := start.Add(3500 * time.Millisecond) // in second 3
	if n := LostToStops(s, start, []time.Time{start.Add(time.Second), stop}); n != 10 {
		t.Errorf("lost to stops %d; want 10 (seconds 0-3)", n)
	}
	if n := LostToStops(s, start, nil); n != 0 {
		t.Errorf("no stop: %d lost; want 0", n)
	}
	if n := LostToStops(s, start, []time.Time{start.Add(-time.Second)}); n != 0 {
		t.Errorf("a stop before the phase: %d lost; want 0", n)
	}
	u := ExplainUnresolved(s, Drops{}, Left{Stopped: 10})
	if u.Stopped != 10 || u.Unexplained != 2 || !strings.Contains(u.String(), "10 due before every node the load goes to was stopped") {
		t.Errorf("%+v (%s); want 10 lost to the stop, 2 unexplained", u, u)
	}
}

// A QA grid's cells are read from "qa c=.. r=.." phases (not its steady
// run), expected is c*r*(T-warmup), latency never ends the held range,
// and the saturation cell is the held cell of the largest load, the one
// of the larger share among cells of that load.
func TestQAGrid(t *testing.T) {
	T := 10 * time.Second
	phases := []*Phase{
		cell("qa c=1 r=200", T, 1990, 100),
		cell("qa c=1 r=400", T, 3950, 9000), // latency 90x: still held
		cell("qa c=2 r=200", T, 3990, 300),  // 400 too, larger share
		cell("qa c=2 r=400", T, 5000, 900),
		cell("qa steady c=2 r=200", T, 4000, 300),
	}
	sw := Saturation(phases, 0.97, 0, 500*time.Millisecond)
	if len(sw.Cells) != 4 || sw.Cells[0].Expected != 1900 {
		t.Fatalf("cells %+v; want 4, the first expecting 200*9.5", sw.Cells)
	}
	if sw.Saturation != 400 || sw.At == nil || sw.At.Connections != 2 || sw.At.Rate != 200 || !sw.Cells[3].Saturated {
		t.Errorf("saturation %g at %+v; want 400 tx/s at c=2 r=200", sw.Saturation, sw.At)
	}
	for _, bad := range []string{"qa steady c=2 r=200", "find-max", "qa c=2 r=200 extra", "steady c=1 r=2"} {
		if _, _, ok := CellOf(bad); ok {
			t.Errorf("%q read as a cell", bad)
		}
	}
}
