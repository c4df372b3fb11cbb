package latency

// WAN describes an emulated wide-area network as a run records it: the
// table its delays came from, the backend that applied them, each node's
// zone (netem makes it; the run record and its readers read it).
type WAN struct {
	Backend   string            `json:"backend"` // "tc" or "nfqueue"
	Table     string            `json:"table"`   // "builtin", a CSV path, "uniform"
	UniformMS float64           `json:"uniform_ms,omitempty"`
	Zones     map[string]string `json:"zones,omitempty"` // node -> zone
	Jitter    float64           `json:"jitter"`          // share of the delay
	Loss      float64           `json:"loss_pct"`
	// BandwidthMbit caps each node's sending to the others (0: none).
	BandwidthMbit float64 `json:"bandwidth_mbit,omitempty"`
}
