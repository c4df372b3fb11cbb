package scenario_test

// The chains register their [testnet.<chain>] tables from their init:
// imported here, they are in this package's test binary, and the
// scenario tests (of both packages) read Cosmos and EVM scenarios.
import (
	_ "github.com/chainperf/chainperf/internal/cosmos"
	_ "github.com/chainperf/chainperf/internal/evm"
)
