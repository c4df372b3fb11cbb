package results

import (
	"math"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
)

// A chain that keeps up with 300 tx/s, a block every 1.3 s of 390 txs:
// the committed rate reads 300 in every window, wherever it falls among
// the blocks. Counted by the second a block was seen, windows of the same
// length read 273 or 312 as they hold 7 or 8 blocks.
func TestCommittedRateByBlocks(t *testing.T) {
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	p := &Phase{Start: start, Length: 30 * time.Second, Ledger: load.Summary{Fates: map[load.Fate]int64{}}}
	for i := 0; i < 24; i++ {
		at := start.Add(time.Duration(i) * 1300 * time.Millisecond)
		p.Blocks = append(p.Blocks, observe.Block{Height: int64(i + 1), Time: at, Seen: at.Add(5 * time.Millisecond), Txs: 390, Ours: 390})
	}
	perSecond := map[float64]bool{}
	for _, from := range []float64{2, 2.5, 3, 3.7, 4.1, 5} {
		p.Window = [2]float64{from, from + 10}
		p.Ledger.PerSecond = make([]load.Second, 32)
		for _, b := range p.Blocks {
			p.Ledger.PerSecond[int(b.Seen.Sub(start).Seconds())].Committed += int64(b.Ours)
		}
		f := Compute(p)
		if math.Abs(f.CommittedTPS-300) > 1e-9 {
			t.Errorf("window from %gs: committed %.2f tx/s; want 300", from, f.CommittedTPS)
		}
		var c int64
		for s := int(from); s < int(from)+10; s++ {
			c += p.Ledger.PerSecond[s].Committed
		}
		perSecond[float64(c)/10] = true
	}
	if len(perSecond) < 2 {
		t.Errorf("by seconds the windows read %v: want them to differ (the quantisation the blocks remove)", perSecond)
	}
	// A window of 3 s with 1.6 s blocks of 960 txs (600 tx/s): wherever it
	// starts it holds one or two blocks, and reads 600.
	slow := &Phase{Start: start, Length: 10 * time.Second, Ledger: load.Summary{Fates: map[load.Fate]int64{}, PerSecond: make([]load.Second, 16)}}
	for i := 0; i < 8; i++ {
		at := start.Add(time.Duration(i) * 1600 * time.Millisecond)
		slow.Blocks = append(slow.Blocks, observe.Block{Height: int64(i + 1), Time: at, Seen: at.Add(1800 * time.Millisecond), Txs: 960, Ours: 960})
	}
	ones := 0
	for _, from := range []float64{5, 5.1, 5.3, 6.2, 6.7} {
		slow.Window = [2]float64{from, from + 3}
		if len(WindowBlocks(slow)) == 1 {
			ones++
		}
		if f := Compute(slow); math.Abs(f.CommittedTPS-600) > 1e-9 {
			t.Errorf("3 s window from %gs over 1.6 s blocks (%d in it): committed %.2f tx/s; want 600", from, len(WindowBlocks(slow)), f.CommittedTPS)
		}
	}
	if ones == 0 {
		t.Error("no window held a single block: the case is not tested")
	}
	// No follower, no blocks: by seconds.
	p.Blocks = nil
	p.Window = [2]float64{0, 10}
	p.Ledger.PerSecond = []load.Second{{Committed: 100}, {Committed: 200}}
	if f := Compute(p); f.CommittedTPS != 30 {
		t.Errorf("no blocks: %.1f; want 300 txs over the 10 s window = 30", f.CommittedTPS)
	}
}
