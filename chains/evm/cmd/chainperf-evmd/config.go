package main

import (
	serverconfig "github.com/cosmos/cosmos-sdk/server/config"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/cosmos/evm/crypto/hd"
	evmserverconfig "github.com/cosmos/evm/server/config"
	evmtypes "github.com/cosmos/evm/x/vm/types"
)

// prefix is the bech32 prefix of the chain's addresses, Cosmos EVM's.
const prefix = "cosmos"

// setAddresses gives cfg Cosmos EVM's bech32 prefixes and Ethereum's
// BIP-44 coin type (60), as its reference chain does.
func setAddresses(cfg *sdk.Config) {
	cfg.SetBech32PrefixForAccount(prefix, prefix+sdk.PrefixPublic)
	val := prefix + sdk.PrefixValidator
	cfg.SetBech32PrefixForValidator(val+sdk.PrefixOperator, val+sdk.PrefixOperator+sdk.PrefixPublic)
	cfg.SetBech32PrefixForConsensusNode(val+sdk.PrefixConsensus, val+sdk.PrefixConsensus+sdk.PrefixPublic)
	cfg.SetCoinType(hd.Bip44CoinType)
	cfg.SetPurpose(sdk.Purpose)
}

// evmAppConfig is app.toml: the SDK's server settings and Cosmos EVM's
// (evm, json-rpc, tls).
type evmAppConfig struct {
	serverconfig.Config

	EVM       evmserverconfig.EVMConfig
	JSONRPC   evmserverconfig.JSONRPCConfig
	TLS       evmserverconfig.TLSConfig
	Chainperf chainperfConfig `mapstructure:"chainperf"`
}

// chainperfConfig is the test chain's own section: a planted cost
// (app.SlowMsgKey), off unless a scenario sets it.
type chainperfConfig struct {
	SlowMsg string `mapstructure:"slow-msg"`
}

const chainperfTemplate = `
###############################################################################
###                    chainperf's test chain: planted costs                ###
###############################################################################

[chainperf]

# "TYPE_URL=DURATION" (e.g. "/cosmos.evm.vm.v1.MsgEthereumTx=2ms") makes every
# message of that type wait that long in its handler; "" plants nothing.
slow-msg = "{{ .Chainperf.SlowMsg }}"
`

// appConfig is app.toml's template and defaults: gas free in denom, the
// default EVM chain ID (chainperf sets its own per testnet).
func appConfig(denom string) (string, any) {
	srv := serverconfig.DefaultConfig()
	srv.MinGasPrices = "0" + denom
	evm := evmserverconfig.DefaultEVMConfig()
	evm.EVMChainID = evmtypes.DefaultEVMChainID
	return serverconfig.DefaultConfigTemplate + evmserverconfig.DefaultEVMConfigTemplate + chainperfTemplate, evmAppConfig{
		Config: *srv, EVM: *evm, JSONRPC: *evmserverconfig.DefaultJSONRPCConfig(), TLS: *evmserverconfig.DefaultTLSConfig(),
	}
}
