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
// txs they held (failed ones not counted).
func TestSeconds(t *testing.T) {
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	p := &Phase{Start: start, Ledger: load.Summary{PerSecond: []load.Second{
		{Sent: 10, Accepted: 10, Committed: 8, LatencyP50: 512.25, LatencyP99: 900},
		{Sent: 10, Accepted: 9, Rejected: 1},
	}}, Blocks: []observe.Block{
		{Height: 5, Time: start.Add(-time.Second), Ours: 3}, // before the phase
		{Height: 6, Time: start.Add(300 * time.Millisecond), Ours: 4},
		{Height: 7, Time: start.Add(900 * time.Millisecond), Ours: 5, OursFailed: 1},
	}}
	r := &Run{Outcome: Outcome{Phases: []*Phase{p}}}
	rows := r.Seconds()
	got := []string{strings.Join(rows[0], ","), strings.Join(rows[1], ",")}
	want := []string{"0,0,10,10,0,0,8,2026-11-29T11:00:00.000Z,0,512.2,900.0,2,8", "0,1,10,9,1,0,0,2026-11-29T11:00:01.000Z,0,,,0,0"}
	if len(rows) != 2 || got[0] != want[0] || got[1] != want[1] || len(rows[0]) != len(SecondsHeader) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
}
