package results

import (
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
)

// A phase's seconds: wall-clock time in UTC, no latency where nothing
// committed (not 0), and the blocks by their header time with the run's
// txs they held (failed ones not counted; a header time before the
// phase's start in its first second; a drain's blocks in rows of their own).
func TestSeconds(t *testing.T) {
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	p := &Phase{Start: start, Ledger: load.Summary{PerSecond: []load.Second{
		{Sent: 10, Accepted: 10, Committed: 8, LatencyP50: 512.25, LatencyP99: 900},
		{Sent: 10, Accepted: 9, Rejected: 1},
	}}, Blocks: []observe.Block{
		{Height: 5, Time: start.Add(-time.Second), Ours: 3}, // its header's time before the phase's start
		{Height: 6, Time: start.Add(300 * time.Millisecond), Ours: 4},
		{Height: 7, Time: start.Add(900 * time.Millisecond), Ours: 5, OursFailed: 1},
		{Height: 8, Time: start.Add(2500 * time.Millisecond), Ours: 2}, // in the drain
	}}
	r := &Run{Outcome: Outcome{Phases: []*Phase{p}}}
	rows := r.Seconds()
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(r, ","))
	}
	want := []string{"0,0,10,10,0,0,8,2026-11-29T11:00:00.000Z,0,512.2,900.0,3,11", "0,1,10,9,1,0,0,2026-11-29T11:00:01.000Z,0,,,0,0",
		"0,2,0,0,0,0,0,2026-11-29T11:00:02.000Z,0,,,1,2"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(rows[0]) != len(SecondsHeader) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
}

// A block holding a million txs the run did not send, on a network only
// the run loads, is implausible: named, and left out of txs per block; a
// block of a few set-up txs is not.
func TestImplausibleBlocks(t *testing.T) {
	at := time.Unix(0, 0)
	p := &Phase{Ledger: load.Summary{Sent: 200}, Blocks: []observe.Block{
		{Height: 1, Time: at, Txs: 100, Ours: 100},
		{Height: 2, Time: at.Add(time.Second), Txs: 1_000_050, Ours: 50},
		{Height: 3, Time: at.Add(2 * time.Second), Txs: 60, Ours: 50}, // 10 set-up txs
	}}
	if got := Implausible(p); len(got) != 1 || got[0] != 2 {
		t.Fatalf("implausible %v; want [2]", got)
	}
	p.Implausible = Implausible(p)
	if f := Compute(p); f.TxsPerBlock != 80 || f.Blocks != 3 {
		t.Errorf("txs/block %v over %d blocks; want 80 (the made-up block left out)", f.TxsPerBlock, f.Blocks)
	}
}
