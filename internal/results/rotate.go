package results

import "time"

// A Rotation is one pass of the rotating-nodes test: a fresh full node
// started, block-synced to the chain's tip, stopped.
type Rotation struct {
	Node    string    `json:"node"`
	Started time.Time `json:"started"`
	// Tip is the chain's height when the node started; caught up means
	// the node reached it and left block sync.
	Tip       int64   `json:"tip"`
	Height    int64   `json:"height"` // the node's height when caught up (or when given up)
	CatchUp   float64 `json:"catch_up_s"`
	BlocksPer float64 `json:"blocks_per_s"`
	CaughtUp  bool    `json:"caught_up"`
	Error     string  `json:"error,omitempty"`
	// Sync is how it joined: "" or "block" from genesis, "state" from
	// the snapshot at Snapshot (then block sync from there).
	Sync     string `json:"sync,omitempty"`
	Snapshot int64  `json:"snapshot_height,omitempty"`
	// What the join took from the network, by the node's own p2p counters
	// once caught up: bytes received in all, of them in snapshot chunks
	// and in blocks (block sync). -1: its metrics could not be read.
	Received   int64 `json:"received_bytes,omitempty"`
	ChunkBytes int64 `json:"chunk_bytes,omitempty"`
	BlockBytes int64 `json:"block_bytes,omitempty"`
	// What it cost the nodes serving it: their processes' CPU (cores, all
	// standing nodes together) over the 5 s before it started and while it
	// joined, and the load's highest per-second p99 latency over the 10 s
	// before and while it joined (ms). Zero: not measured (no local
	// processes, or no load then).
	ServeCPUBefore float64 `json:"serve_cpu_before,omitempty"`
	ServeCPU       float64 `json:"serve_cpu,omitempty"`
	P99Before      float64 `json:"p99_before_ms,omitempty"`
	P99Joining     float64 `json:"p99_joining_ms,omitempty"`
}

// JoinLatency sets each caught-up rotation's load latency before and
// while it joined, from the phase it ran in.
func JoinLatency(rots []Rotation, phases []*Phase) {
	for i := range rots {
		r := &rots[i]
		for _, p := range phases {
			b := int(r.Started.Sub(p.Start) / time.Second)
			secs := p.Ledger.PerSecond
			if r.Started.Before(p.Start) || b >= len(secs) || !r.CaughtUp {
				continue
			}
			for _, s := range secs[max(0, b-10):b] {
				r.P99Before = max(r.P99Before, s.LatencyP99)
			}
			end := min(len(secs), b+1+int(r.CatchUp))
			for _, s := range secs[b:end] {
				r.P99Joining = max(r.P99Joining, s.LatencyP99)
			}
		}
	}
}
