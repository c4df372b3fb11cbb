package observe

import (
	"math"
	"testing"
	"time"
)

// TestBlockRates: a block's rate is its committed txs over the interval
// since the block before; a gap in heights or a header time that does not
// move gives none.
func TestBlockRates(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	blocks := []Block{
		{Height: 5, Time: at(0), Ours: 100},
		{Height: 6, Time: at(1300), Ours: 130, OursFailed: 13}, // 117 / 1.3 s
		{Height: 7, Time: at(2600), Ours: 0},
		{Height: 9, Time: at(3900), Ours: 50}, // height 8 unread
		{Height: 10, Time: at(3900), Ours: 50},
	}
	got := BlockRates(blocks)
	if len(got) != 2 || got[0].Height != 6 || got[1].Height != 7 {
		t.Fatalf("rates %+v: want heights 6 and 7", got)
	}
	if got[0].TPS != 90 || got[1].TPS != 0 {
		t.Errorf("rates %v, %v: want 90 and 0 tx/s", got[0].TPS, got[1].TPS)
	}
}

// TestWindowRatesFlatUnderConstantLoad: 100 tx/s in blocks of 1.4 s draws
// 100 every second once a window's worth of blocks is in; a stall of 7 s
// draws a fall, and the rate is back after it.
func TestWindowRatesFlatUnderConstantLoad(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var blocks []Block
	for k := 1; k <= 17; k++ {
		if k >= 9 && k <= 12 { // no block from 11.2 s to 18.2 s
			continue
		}
		at := t0.Add(time.Duration(k) * 1400 * time.Millisecond)
		blocks = append(blocks, Block{Height: int64(k), Time: at, Seen: at.Add(50 * time.Millisecond), Ours: 140})
	}
	got := WindowRates(blocks, t0, 25, 5*time.Second)
	for i, v := range got {
		switch {
		case i < 7: // the first window closes at the 5th block, 7.0 s
			if !math.IsNaN(v) {
				t.Errorf("second %d: %.1f before a window's worth of blocks; want none", i, v)
			}
		case i <= 12 || i >= 23:
			if math.Abs(v-100) > 0.01 {
				t.Errorf("second %d: %.1f tx/s; want a flat 100", i, v)
			}
		case i >= 14 && i <= 17: // the next block is overdue
			if v >= got[i-1] || (i == 17 && v > 60) {
				t.Errorf("second %d, in the stall: %.1f tx/s after %.1f; want a fall", i, v, got[i-1])
			}
		}
	}
	t.Logf("%.0f", got)
}

// TestStalled: between blocks 1.4 s apart no moment is stalled; inside a
// 7 s wait every moment is, and before and after the blocks only past one
// and a half intervals.
func TestStalled(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var blocks []Block
	for _, ms := range []int{1400, 2800, 4200, 5600, 12600, 14000, 15400} {
		at := t0.Add(time.Duration(ms) * time.Millisecond)
		blocks = append(blocks, Block{Time: at, Seen: at})
	}
	stalled := Stalled(blocks)
	for _, c := range []struct {
		ms   int
		want bool
	}{{0, false}, {2000, false}, {5000, false}, {6000, true}, {9000, true}, {12000, true}, {13000, false}, {16000, false}, {18000, true}} {
		if got := stalled(t0.Add(time.Duration(c.ms) * time.Millisecond)); got != c.want {
			t.Errorf("stalled at %d ms: %v; want %v", c.ms, got, c.want)
		}
	}
	if !Stalled(nil)(t0) {
		t.Error("with no block, not stalled")
	}
}
