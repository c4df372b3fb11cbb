package cosmos

// count applies f to the counts of each of e's messages' kinds (a tx's
// gas is shared by its messages).
func (w *Workload) count(e *effect, f func(*KindCounts)) {
	for _, m := range e.msgs {
		f(&w.kinds[m.kind])
	}
}

// KindStats are one message kind's results, counted by message: a tx of
// several messages counts once for each, its latency is each one's, its
// gas shared out equally.
type KindStats struct {
	Msg       string  `json:"msg"`
	Weight    float64 `json:"weight"`
	Sent      int64   `json:"sent"`
	Accepted  int64   `json:"accepted"`
	Committed int64   `json:"committed"`
	Failed    int64   `json:"committed_failed"`
	GasPerMsg float64 `json:"gas_per_msg"`
	// CommittedPerSec: committed over the run's load seconds (set by
	// the run, which knows them).
	CommittedPerSec float64 `json:"committed_msgs_per_s"`
	// Latency of the committed ones' txs (first seen in a block -
	// intended), every phase, warm-up included.
	LatencyP50 float64 `json:"latency_p50_ms"`
	LatencyP99 float64 `json:"latency_p99_ms"`
	LatencyMax float64 `json:"latency_max_ms"`
}

// Stats are what the workload did besides sending.
type Stats struct {
	Signed      int     `json:"signed"`
	Cached      int64   `json:"read_from_cache,omitempty"`
	PregenSecs  float64 `json:"pregenerate_s"`
	SignedLive  int64   `json:"signed_live"` // past the pregenerated txs
	Repairs     int64   `json:"sequence_repairs"`
	SkippedPoor int64   `json:"senders_skipped"`
	MsgsPerTx   int     `json:"msgs_per_tx"`
	// Expired: unordered txs a node accepted that no block held when
	// their timeout passed (a node's recheck drops them): unresolved,
	// with this as the reason.
	Expired   int64       `json:"expired,omitempty"`
	LoadSecs  float64     `json:"load_s,omitempty"` // the run's load phases, for the rates by kind
	Unordered bool        `json:"unordered,omitempty"`
	Kinds     []KindStats `json:"kinds"`
}

// Stats reports signing and repair counts, and results by message kind
// with their rates over loadSecs.
func (w *Workload) Stats(loadSecs float64) Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := Stats{Signed: int(w.signed.Load() - w.cached.Load()), Cached: w.cached.Load(), PregenSecs: w.signTime.Seconds(), SignedLive: w.live.Load(),
		Repairs: w.repaired.Load(), SkippedPoor: w.skipped.Load(), MsgsPerTx: w.cfg.MsgsPerTx, Unordered: w.cfg.Unordered, LoadSecs: loadSecs, Expired: w.expired}
	for i := range w.kinds {
		s.Kinds = append(s.Kinds, w.kinds[i].Stats(w.cfg.Mix[i].Msg, w.cfg.Mix[i].Weight, loadSecs))
	}
	return s
}
