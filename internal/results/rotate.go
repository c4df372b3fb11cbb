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
}
