package results

import (
	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/evm"
)

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
	// Funding is set when a given account funded the wallets on a running
	// chain (an external network) instead of genesis.
	Funding *Funding `json:"funding,omitempty"`
}

// Funding is how the wallets of a run on an external network were funded
// and, if asked, swept back. Only the funder's address is kept.
type Funding struct {
	Funder   string  `json:"funder"`
	ChainID  string  `json:"chain_id"`
	Denom    string  `json:"denom"`
	Txs      int     `json:"txs"`
	Paid     uint64  `json:"paid"`
	Fees     uint64  `json:"fees"`
	GasPrice float64 `json:"gas_price"`
	Swept    uint64  `json:"swept,omitempty"`
	Secs     float64 `json:"s"`
}

// EVM is what a run on a Cosmos EVM chain set up and sent.
type EVM struct {
	Binary       string  `json:"binary"`
	ChainID      uint64  `json:"chain_id"`
	Wallets      int     `json:"wallets"`
	GenesisBytes int64   `json:"genesis_bytes"`
	GenesisSecs  float64 `json:"genesis_s"` // deriving and funding the wallets
	Workload     string  `json:"workload"`
	Token        string  `json:"token,omitempty"` // the evm-erc20 token's address
	// NoncesReused counts refused txs whose nonce the sender's next tx
	// used again; NoncesReread nonces read back from the chain (after a
	// send error).
	NoncesReused int64         `json:"nonces_reused"`
	NoncesReread int64         `json:"nonces_reread"`
	Balances     *evm.Balances `json:"balances,omitempty"`
	// Kinds are the results by kind of tx (native, erc20), rates over
	// LoadSecs of load.
	Kinds    []cosmos.KindStats `json:"kinds,omitempty"`
	LoadSecs float64            `json:"load_s,omitempty"`
}
