package results

import (
	"testing"
	"time"

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
	ev := func(s float64, d string) Event { return Event{At: at(s), Kind: "perturbation", Detail: d} }
	faults := FaultsOf([]Event{ev(10, "partition validator0|validator1"), ev(20, "heal validator0|validator1"),
		{At: at(25), Kind: "rotation", Detail: "start rotate0"}, ev(30, "kill validator3")})
	if len(faults) != 2 || faults[0].What != "partition" || !faults[0].End.Equal(at(20)) || !faults[1].End.IsZero() {
		t.Fatalf("faults %+v", faults)
	}
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

// A restarted node's catch-up, reported after its fault ended, is kept
// with the fault; a pause with no catch-up event says not seen (-1).
func TestFaultCatchUp(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	ev := func(s int, d string) Event {
		return Event{At: t0.Add(time.Duration(s) * time.Second), Kind: "perturbation", Detail: d}
	}
	got := FaultsOf([]Event{ev(1, "kill validator3"), ev(5, "start validator3"), ev(9, "caught-up 4.2s validator3"),
		ev(10, "pause full0"), ev(12, "continue full0"), ev(13, "latency x2 all"), ev(15, "latency-restore all")})
	if len(got) != 3 || got[0].CatchUp != 4.2 || got[1].CatchUp != -1 || got[2].What != "latency x2" || got[2].CatchUp != 0 || got[2].End.IsZero() {
		t.Errorf("faults %+v", got)
	}
}
