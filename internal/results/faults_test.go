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
