package observe

import (
	"math"
	"slices"
	"time"
)

// A BlockRate is the committed tx/s one block shows: the run's txs it
// committed (result code 0) over the header time since the block before.
// A block interval is the chain's own unit of throughput; a chart in
// 1 s buckets of 1.3 s blocks swings between 0 and a block's worth.
type BlockRate struct {
	Height int64
	Seen   time.Time // when chainperf read the block
	TPS    float64
}

// BlockRates is the rate of every block but the first (it has no
// interval), blocks in height order; a block whose header time does not
// move past the one before is left out.
func BlockRates(blocks []Block) []BlockRate {
	var out []BlockRate
	for i := 1; i < len(blocks); i++ {
		b, prev := blocks[i], blocks[i-1]
		iv := b.Time.Sub(prev.Time).Seconds()
		if iv <= 0 || b.Height != prev.Height+1 {
			continue
		}
		out = append(out, BlockRate{Height: b.Height, Seen: b.Seen, TPS: float64(b.Ours-b.OursFailed) / iv})
	}
	return out
}

// WindowRates is the committed tx/s at the end of each of n seconds from
// start, over whole blocks: at the second's end, the run's txs (result
// code 0) of the blocks since the last block at least window older than
// the newest one seen, over their header-time span. A window opens and
// closes on block boundaries, so a constant load draws a flat line
// whatever the block interval (a 5 s mean of 1 s buckets holds 3 or 4
// blocks of 1.4 s and saws by a quarter). A block overdue (its wait past
// one and a half intervals) stretches the window by the wait, so a stall
// draws as a fall. A second before a window's worth of blocks is NaN.
func WindowRates(blocks []Block, start time.Time, n int, window time.Duration) []float64 {
	out := make([]float64, n)
	typical := typicalInterval(blocks)
	k := -1 // the newest block seen by the second's end
	for i := range out {
		out[i] = math.NaN()
		end := start.Add(time.Duration(i+1) * time.Second)
		for k+1 < len(blocks) && !blocks[k+1].Seen.After(end) {
			k++
		}
		if k < 1 {
			continue
		}
		txs, j := 0, k
		for j >= 0 && blocks[k].Time.Sub(blocks[j].Time) < window {
			txs += blocks[j].Ours - blocks[j].OursFailed
			j--
		}
		if j < 0 {
			continue // not a window's worth of blocks yet
		}
		span := blocks[k].Time.Sub(blocks[j].Time)
		if wait := end.Sub(blocks[k].Seen); typical > 0 && wait > typical*3/2 {
			span += wait - typical
		}
		out[i] = float64(txs) / span.Seconds()
	}
	return out
}

// typicalInterval is the median interval between the blocks' header
// times (0 with fewer than two).
func typicalInterval(blocks []Block) time.Duration {
	var iv []time.Duration
	for i := 1; i < len(blocks); i++ {
		if d := blocks[i].Time.Sub(blocks[i-1].Time); d > 0 {
			iv = append(iv, d)
		}
	}
	if len(iv) == 0 {
		return 0
	}
	slices.Sort(iv)
	return iv[len(iv)/2]
}

// Stalled says of a moment whether the chain stalled then: the blocks
// seen around it are more than three typical intervals apart (or, before
// the first and after the last, the nearest is more than one and a half
// away). With fewer than two blocks every moment is.
func Stalled(blocks []Block) func(time.Time) bool {
	typical := typicalInterval(blocks)
	return func(t time.Time) bool {
		if typical <= 0 {
			return true
		}
		i, _ := slices.BinarySearchFunc(blocks, t, func(b Block, t time.Time) int { return b.Seen.Compare(t) })
		switch {
		case i == 0:
			return blocks[0].Seen.Sub(t) > typical*3/2
		case i == len(blocks):
			return t.Sub(blocks[i-1].Seen) > typical*3/2
		}
		return blocks[i].Seen.Sub(blocks[i-1].Seen) > 3*typical
	}
}
