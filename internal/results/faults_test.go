package results

import (
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
)

// A partition from 10 s to 20 s with blocks every second except while it
// held: no block inside, the longest gap runs from its beginning to the next block, the first block 2.5 s
// after the heal. A kill with no restart lasts to the last block.
func TestEffects(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ph := &Phase{}
	for s := 0.5; s < 40; s++ {
		if s > 10 && s < 22 {
			continue
		}
		ph.Blocks = append(ph.Blocks, observe.Block{Seen: at(s)})
	}
	faults := []Fault{{What: "partition", Nodes: "validator0|validator1", Begin: at(10), End: at(20)},
		{What: "kill", Nodes: "validator3", Begin: at(30), CatchUp: -1}}
	got := Effects(faults, []*Phase{ph})
	p := got[0]
	if p.Blocks != 0 || p.LongestGap != 12.5 || p.Recovery != 2.5 {
		t.Errorf("partition: %d blocks, gap %.1f, recovery %.1f; want 0, 12.5, 2.5", p.Blocks, p.LongestGap, p.Recovery)
	}
	k := got[1]
	if k.Blocks != 9 || k.LongestGap != 1 || k.Recovery != -1 {
		t.Errorf("kill: %d blocks, gap %.1f, recovery %.1f; want 9, 1, -1 (never ended)", k.Blocks, k.LongestGap, k.Recovery)
	}
}

// The load around a fault: 100 tx/s committed before it, nothing while
// it holds (10-20 s), 30 s of load; back when the first 5 s after its end
// commit 90 % of 100 tx/s. A fault whose load never comes back says -1.
func TestDip(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	ph := &Phase{Start: t0, Length: 30 * time.Second}
	for i := range 35 {
		s := load.Second{Committed: 100, LatencyP99: 1500}
		switch {
		case i >= 10 && i < 20:
			s = load.Second{SendError: 50}
		case i >= 20 && i < 23:
			s = load.Second{Committed: 40, LatencyP99: 9000}
		}
		ph.Ledger.PerSecond = append(ph.Ledger.PerSecond, s)
	}
	f := Effects([]Fault{{What: "halt at 30", Nodes: "all", Begin: t0.Add(10 * time.Second), End: t0.Add(20 * time.Second)}}, []*Phase{ph})[0]
	if f.RateBefore != 100 || f.RateLow != 0 || f.P99Before != 1500 || f.P99Peak != 9000 || f.SendErrors != 500 {
		t.Errorf("before %.0f, low %.0f, p99 %.0f -> %.0f, %d send errors; want 100, 0, 1500 -> 9000, 500", f.RateBefore, f.RateLow, f.P99Before, f.P99Peak, f.SendErrors)
	}
	if f.RateBack != 3 {
		t.Errorf("back %.0f s after the end; want 3 (seconds 23-27 commit 100 tx/s)", f.RateBack)
	}
	// Never back: the load stays at 40 tx/s after the end.
	for i := 20; i < 35; i++ {
		ph.Ledger.PerSecond[i] = load.Second{Committed: 40}
	}
	if f := Effects([]Fault{{What: "kill", Nodes: "validator0", Begin: t0.Add(10 * time.Second), End: t0.Add(20 * time.Second)}}, []*Phase{ph})[0]; f.RateBack != -1 {
		t.Errorf("back %.0f s; want -1 (never at 90 %%)", f.RateBack)
	}
	if !strings.Contains(FaultsFinding([]Fault{f}).Tables[0].Rows[0][8], "3 s") {
		t.Errorf("the table does not say when the load was back: %q", FaultsFinding([]Fault{f}).Tables[0].Rows[0])
	}
}
