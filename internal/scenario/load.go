package scenario

// Load describes the load shape: the rate model and how txs are sent.
type Load struct {
	Model       string   `toml:"model"`
	Rate        float64  `toml:"rate"`
	Connections int      `toml:"connections"`
	Duration    Duration `toml:"duration"`
	From        float64  `toml:"from"`
	To          float64  `toml:"to"`
	Steps       []Step   `toml:"steps"`
	Method      string   `toml:"method"`
	Batch       int      `toml:"batch"`
	MaxInFlight int      `toml:"max_in_flight"`
	MaxPending  int      `toml:"max_pending"`
	// SendEvery > 0 sends the schedule in bursts: at the start of each
	// period, the txs due during it (as CometBFT's loadtime does each
	// second). 0: every tx at its own time.
	SendEvery Duration `toml:"send_every"`
	// Generators > 1 spreads each phase's schedule over that many
	// generator pods (provider "kubernetes"), each with its own ledger,
	// merged at the end.
	Generators int      `toml:"generators"`
	Users      int      `toml:"users"`
	ThinkTime  Duration `toml:"think_time"`
	PID        PID      `toml:"pid"`
}

// PID configures the rate model that holds a target block interval or a
// latency SLO.
type PID struct {
	// Hold is what the controller holds at Target: "latency" (the slowest
	// tx of each block) or "block_interval".
	Hold      string   `toml:"hold"`
	Target    Duration `toml:"target"`
	Window    int      `toml:"window"`
	Kp        float64  `toml:"kp"`
	Ki        float64  `toml:"ki"`
	Kd        float64  `toml:"kd"`
	StartRate float64  `toml:"start_rate"`
	MinRate   float64  `toml:"min_rate"`
	MaxRate   float64  `toml:"max_rate"`
	Stall     Duration `toml:"stall"`
}

// A Step is one stage of the steps rate model.
type Step struct {
	Rate     float64  `toml:"rate"`
	Duration Duration `toml:"duration"`
}
