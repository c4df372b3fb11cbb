package suggest

import "testing"

// TestClosest on the names people mistype, among the scenario's real
// kinds of names: tables, dotted keys, words in another order.
func TestClosest(t *testing.T) {
	keys := []string{"criteria", "criteria.figure", "criteria.figure.max", "criteria.max_p99_latency", "criteria.min_committed_tps",
		"load", "load.rate", "testnet", "testnet.app", "testnet.validators", "consensus.timeout_commit", "workload.read_rate"}
	for s, want := range map[string]string{
		"testnett":             "testnet",                  // a table (was testnet.app: tables were no candidates)
		"testnett.validators":  "testnet.validators",       // a key under a mistyped table
		"criteria.latency_p99": "criteria.max_p99_latency", // the words in another order (was criteria.figure.max)
		"criteria.p99_latency": "criteria.max_p99_latency",
		"timeout_commit":       "consensus.timeout_commit", // the key without its section
		"load.rat":             "load.rate",
		"read_rate":            "workload.read_rate",
		"nothing_like_it":      "",
	} {
		if got := Closest(s, keys); got != want {
			t.Errorf("Closest(%q) = %q; want %q", s, got, want)
		}
	}
}
