package results

import "github.com/chainperf/chainperf/internal/cosmos"

// Cosmos is what a run on a Cosmos SDK chain adds: the chain, its genesis
// funding, what the workload did and the balance check after the run.
type Cosmos struct {
	Binary       string           `json:"binary"`
	Wallets      int              `json:"wallets"`
	GenesisBytes int64            `json:"genesis_bytes"`
	GenesisSecs  float64          `json:"genesis_s"` // deriving and funding the wallets
	Workload     string           `json:"workload"`
	Stats        cosmos.Stats     `json:"stats"`
	Balances     *cosmos.Balances `json:"balances,omitempty"`
}
