package observe

import (
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
