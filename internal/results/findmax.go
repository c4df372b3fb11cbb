package results

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/chainperf/chainperf/internal/load"
)

// FindMax is the result of a find-max phase: the committed rate the chain
// sustained while the pid controller held its target, over the stable
// window (the controller's search left out).
type FindMax struct {
	Hold     string  `json:"hold"`      // "latency" or "block_interval"
	TargetMS float64 `json:"target_ms"` // what the controller held
	// MaxTPS is the committed tx/s of the run in the stable window's
	// blocks: their txs over their header-time span.
	MaxTPS float64 `json:"max_tps"`
	// Low and High bound a 95 % confidence interval of MaxTPS by batch
	// means (batches of BatchSeconds of block time, Student's t).
	Low          float64 `json:"ci95_low"`
	High         float64 `json:"ci95_high"`
	Batches      int     `json:"batches"`
	BatchSeconds float64 `json:"batch_s"`
	// HeldMS is the mean of what was held over the window's blocks (the
	// slowest tx of each block, or the block interval).
	HeldMS   float64 `json:"held_ms"`
	SentTPS  float64 `json:"sent_tps"`
	Rejected int64   `json:"rejected"`
	Evidence string  `json:"evidence"`
}

// findMaxBatch is the length of block time one batch of the confidence
// interval spans: several blocks, so that a batch's rate is not one
// block's luck.
const findMaxBatch = 5 * time.Second

// FindMaxOf computes the find-max result of phase p, run with the pid
// model holding hold at target and capped at maxRate tx/s.
func FindMaxOf(p *Phase, hold string, target time.Duration, maxRate float64) *FindMax {
	fm := &FindMax{Hold: hold, TargetMS: ms(target), BatchSeconds: findMaxBatch.Seconds(),
		SentTPS: p.Figures.SentTPS, Rejected: p.Ledger.Fates[load.FateRejected]}
	in := WindowBlocks(p)
	if len(in) < 2 {
		fm.Evidence = fmt.Sprintf("only %d blocks in the stable window: no result (lengthen find_max_duration)", len(in))
		return fm
	}
	// Each block's txs count over the time since the block before it.
	var ours, carrying int
	var held float64
	for _, i := range in {
		b, prev := p.Blocks[i], p.Blocks[i-1]
		ours += b.Ours - b.OursFailed // a failed tx is not throughput
		switch {
		case hold != "latency":
			held += ms(b.Time.Sub(prev.Time))
			carrying++
		case b.Ours > 0: // a block with none of the run's txs has no latency to hold
			held += b.LatencyMax
			carrying++
		}
	}
	batchRates := BatchRates(p, in, findMaxBatch)
	span := p.Blocks[in[len(in)-1]].Time.Sub(p.Blocks[in[0]-1].Time).Seconds()
	if span <= 0 {
		fm.Evidence = "the stable window's blocks span no time: no result"
		return fm
	}
	fm.MaxTPS = float64(ours) / span
	if carrying > 0 {
		fm.HeldMS = held / float64(carrying)
	}
	fm.Batches = len(batchRates)
	fm.Low, fm.High = fm.MaxTPS, fm.MaxTPS
	if n := len(batchRates); n >= 2 {
		var mean, ss float64
		for _, r := range batchRates {
			mean += r
		}
		mean /= float64(n)
		for _, r := range batchRates {
			ss += (r - mean) * (r - mean)
		}
		sem := math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
		fm.Low, fm.High = fm.MaxTPS-t*sem, fm.MaxTPS+t*sem
	}
	what := "block latency"
	if hold != "latency" {
		what = "block interval"
	}
	fm.Evidence = fmt.Sprintf("%.0f tx/s committed over %d blocks (%.0f s) while the controller held %s at %.0f ms (target %.0f ms)",
		fm.MaxTPS, len(in), span, what, fm.HeldMS, fm.TargetMS)
	switch {
	case maxRate > 0 && fm.SentTPS >= 0.95*maxRate:
		fm.Evidence += fmt.Sprintf("; the rate reached max_rate %g tx/s: the chain may take more, raise [load.pid] max_rate", maxRate)
	case fm.HeldMS > fm.TargetMS:
		fm.Evidence += "; target not held: the chain ran above it (the result is the rate at which it ran, not a sustainable one)"
	}
	return fm
}

// WindowBlocks returns the indices of p's blocks seen inside its measured
// window, each with the block before it (the first block of a phase has
// none, so it is left out: its interval is not known).
func WindowBlocks(p *Phase) []int {
	var in []int
	for i, b := range p.Blocks {
		at := b.Seen.Sub(p.Start).Seconds()
		if at >= p.Window[0] && at < p.Window[1] && i > 0 {
			in = append(in, i)
		}
	}
	return in
}

// BatchRates cuts the blocks in (WindowBlocks) into batches of at least
// span of header time and returns each batch's committed rate: its code-0
// txs of the run over its span, measured from the block before it.
func BatchRates(p *Phase, in []int, span time.Duration) []float64 {
	if len(in) == 0 {
		return nil
	}
	var rates []float64
	txs, from := 0, p.Blocks[in[0]-1].Time
	for _, i := range in {
		b := p.Blocks[i]
		txs += b.Ours - b.OursFailed
		if d := b.Time.Sub(from); d >= span {
			rates = append(rates, float64(txs)/d.Seconds())
			txs, from = 0, b.Time
		}
	}
	return rates
}

// Interval says the confidence interval, or why there is none: fewer
// than two batches give no spread to build one from.
func (fm *FindMax) Interval() string {
	if fm.Batches < 2 {
		return fmt.Sprintf("no confidence interval: %d batch of %.0f s (lengthen find_max_duration)", fm.Batches, fm.BatchSeconds)
	}
	return fmt.Sprintf("95 %% CI %.0f..%.0f over %d batches of %.0f s", fm.Low, fm.High, fm.Batches, fm.BatchSeconds)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
