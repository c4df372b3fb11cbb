package observe

import "time"

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
