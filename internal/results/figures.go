package results

import (
	"slices"

	"github.com/chainperf/chainperf/internal/load"
)

// Figures are the headline numbers of a load phase. Rates and latency
// percentiles are over the measured window (warm-up and cool-down left
// out: sent by intended second, committed by the blocks seen in it,
// latency of the txs seen then); shares over all txs. Committed counts
// txs with result code 0 only: a tx in a block that failed is not
// throughput.
type Figures struct {
	OfferedTPS float64 `json:"offered_tps"` // txs due by the schedule / load length
	SentTPS    float64 `json:"sent_tps"`    // txs sent with intended time in the window / window
	// CommittedTPS is the chain's commit rate of the run's txs: the code-0
	// txs of the blocks seen in the window over the header time those
	// blocks span, from the block before the first. Whole blocks on both
	// sides: a window that happens to hold one block more than the next
	// reads no higher. It equals the offered rate when the chain keeps up,
	// and what the chain committed when it does not. Without two such
	// blocks (no follower): code-0 txs seen in the window / window.
	CommittedTPS   float64 `json:"committed_tps"`
	FailedTPS      float64 `json:"committed_failed_tps,omitempty"` // txs in a block with code != 0, in the window / window
	CommittedShare float64 `json:"committed_share"`
	RejectedShare  float64 `json:"rejected_share"`
	LatencyP50     float64 `json:"latency_p50_ms"`
	LatencyP99     float64 `json:"latency_p99_ms"`
	// The whole phase's latency: warm-up, cool-down and drain included.
	PhaseLatencyP50 float64 `json:"phase_latency_p50_ms"`
	PhaseLatencyP99 float64 `json:"phase_latency_p99_ms"`
	Blocks          int     `json:"blocks"`
	BlockInterval   float64 `json:"block_interval_s"` // mean of header time differences
	TxsPerBlock     float64 `json:"txs_per_block"`
	MaxRound        int32   `json:"max_round"`
	LagP99          float64 `json:"lag_p99_ms"`
}

// Compute derives the figures of a phase from its ledger and blocks.
func Compute(r *Phase) Figures {
	s := r.Ledger
	f := Figures{LatencyP50: s.WindowLatency.P50, LatencyP99: s.WindowLatency.P99, LagP99: s.Lag.P99, Blocks: len(r.Blocks),
		PhaseLatencyP50: s.Latency.P50, PhaseLatencyP99: s.Latency.P99}
	if l := r.Length.Seconds(); l > 0 {
		f.OfferedTPS = r.Generator.Due / l
	}
	from, to := int(r.Window[0]), int(r.Window[1])
	if to > from {
		var sent, committed, failed int64
		for i := from; i < to && i < len(s.PerSecond); i++ {
			sent += s.PerSecond[i].Sent
			committed += s.PerSecond[i].Committed
			failed += s.PerSecond[i].Failed
		}
		f.SentTPS = float64(sent) / float64(to-from)
		f.CommittedTPS = float64(committed) / float64(to-from)
		f.FailedTPS = float64(failed) / float64(to-from)
	}
	if rate, ok := BlockRate(r); ok {
		f.CommittedTPS = rate
	}
	if s.Sent > 0 {
		f.CommittedShare = float64(s.Fates[load.FateCommitted]) / float64(s.Sent)
		f.RejectedShare = float64(s.Fates[load.FateRejected]) / float64(s.Sent)
	}
	if n := len(r.Blocks); n > 1 {
		f.BlockInterval = r.Blocks[n-1].Time.Sub(r.Blocks[0].Time).Seconds() / float64(n-1)
		var txs, counted int
		for _, b := range r.Blocks {
			f.MaxRound = max(f.MaxRound, b.Round)
			if !slices.Contains(r.Implausible, b.Height) {
				txs, counted = txs+b.Txs, counted+1
			}
		}
		if counted > 0 {
			f.TxsPerBlock = float64(txs) / float64(counted)
		}
	}
	return f
}

// ImplausibleMargin is how many txs nobody here sent a block may hold on a
// network only the run loads: the chain's set-up txs, a phase's last
// stragglers.
const ImplausibleMargin = 1000

// Implausible are the heights of p's blocks that held more txs the run did
// not send than could be true of a network only the run loads: more than
// the phase sent, and ImplausibleMargin more. A node that makes txs up (a
// million one-byte txs in a block) is said, not averaged into txs per
// block. On a network others load too, no count is implausible: call it
// only for a testnet chainperf made.
func Implausible(p *Phase) []int64 {
	var out []int64
	for _, b := range p.Blocks {
		if others := int64(b.Txs - b.Ours); others > p.Ledger.Sent+ImplausibleMargin {
			out = append(out, b.Height)
		}
	}
	return out
}

// BlockRate is the phase's commit rate over the blocks seen in its
// window: their code-0 txs of the run over the header time from the block
// before the first to the last. One block is enough (its txs over its own
// interval): a short window with slow blocks may hold only one, and the
// window's seconds would then read a block's worth over the whole window
// (a 3 s window and 1.6 s blocks read 300 tx/s of 600 committed).
func BlockRate(p *Phase) (float64, bool) {
	in := WindowBlocks(p)
	if len(in) == 0 {
		return 0, false
	}
	var txs int
	for _, i := range in {
		txs += p.Blocks[i].Ours - p.Blocks[i].OursFailed
	}
	span := p.Blocks[in[len(in)-1]].Time.Sub(p.Blocks[in[0]-1].Time).Seconds()
	if span <= 0 {
		return 0, false
	}
	return float64(txs) / span, true
}
