// Package app is chainperf's Cosmos EVM test chain: the SDK's auth, bank,
// staking, consensus and genutil modules with Cosmos EVM's x/vm and
// x/feemarket (github.com/cosmos/evm v0.7.3: Cosmos SDK v0.54.3, CometBFT
// v0.39.3), wired by hand (those modules have no depinject support). EVM
// txs go through Cosmos EVM's own ante decorator; the only Cosmos txs are
// the validators' gentxs. No mint, no distribution, no precompiles: supply
// never changes and fees end in the fee collector, so a run's balances can
// be checked to the last unit. Cosmos EVM's application-side mempool when
// app.toml's mempool.max-txs is 0 or more (mempool.go).
package app

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	abci "github.com/cometbft/cometbft/abci/types"
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cast"

	"cosmossdk.io/log/v2"
	dbm "github.com/cosmos/cosmos-db"

	"github.com/cosmos/cosmos-sdk/baseapp"
	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/grpc/cmtservice"
	nodeservice "github.com/cosmos/cosmos-sdk/client/grpc/node"
	"github.com/cosmos/cosmos-sdk/codec"
	"github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/runtime"
	"github.com/cosmos/cosmos-sdk/server/api"
	"github.com/cosmos/cosmos-sdk/server/config"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkmempool "github.com/cosmos/cosmos-sdk/types/mempool"
	"github.com/cosmos/cosmos-sdk/types/module"
	"github.com/cosmos/cosmos-sdk/x/auth"
	sdkante "github.com/cosmos/cosmos-sdk/x/auth/ante"
	authkeeper "github.com/cosmos/cosmos-sdk/x/auth/keeper"
	authtx "github.com/cosmos/cosmos-sdk/x/auth/tx"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	"github.com/cosmos/cosmos-sdk/x/bank"
	bankkeeper "github.com/cosmos/cosmos-sdk/x/bank/keeper"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/cosmos/cosmos-sdk/x/consensus"
	consensuskeeper "github.com/cosmos/cosmos-sdk/x/consensus/keeper"
	consensustypes "github.com/cosmos/cosmos-sdk/x/consensus/types"
	"github.com/cosmos/cosmos-sdk/x/genutil"
	genutiltypes "github.com/cosmos/cosmos-sdk/x/genutil/types"
	govtypes "github.com/cosmos/cosmos-sdk/x/gov/types"
	"github.com/cosmos/cosmos-sdk/x/staking"
	stakingkeeper "github.com/cosmos/cosmos-sdk/x/staking/keeper"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"

	evmante "github.com/cosmos/evm/ante"
	cosmosante "github.com/cosmos/evm/ante/cosmos"
	evmmonoante "github.com/cosmos/evm/ante/evm"
	evmencoding "github.com/cosmos/evm/encoding"
	evmaddress "github.com/cosmos/evm/encoding/address"
	evmmempool "github.com/cosmos/evm/mempool"
	srvflags "github.com/cosmos/evm/server/flags"
	"github.com/cosmos/evm/utils"
	"github.com/cosmos/evm/x/feemarket"
	feemarketkeeper "github.com/cosmos/evm/x/feemarket/keeper"
	feemarkettypes "github.com/cosmos/evm/x/feemarket/types"
	"github.com/cosmos/evm/x/vm"
	evmkeeper "github.com/cosmos/evm/x/vm/keeper"
	evmtypes "github.com/cosmos/evm/x/vm/types"
)

// Name is the app's name and its binary's.
const Name = "chainperf-evmd"

// DefaultNodeHome is the home used when --home is not given.
var DefaultNodeHome = filepath.Join(os.Getenv("HOME"), "."+Name)

func init() {
	// Staking power counts whole coins of an 18-decimal denom.
	sdk.DefaultPowerReduction = utils.AttoPowerReduction
}

// moduleAccounts are the module accounts and their permissions.
var moduleAccounts = map[string][]string{
	authtypes.FeeCollectorName:     nil,
	stakingtypes.BondedPoolName:    {authtypes.Burner, authtypes.Staking},
	stakingtypes.NotBondedPoolName: {authtypes.Burner, authtypes.Staking},
	evmtypes.ModuleName:            {authtypes.Minter, authtypes.Burner},
}

// The order each phase runs the modules in.
var (
	preBlockers   = []string{authtypes.ModuleName, evmtypes.ModuleName}
	beginBlockers = []string{feemarkettypes.ModuleName, evmtypes.ModuleName, stakingtypes.ModuleName}
	endBlockers   = []string{banktypes.ModuleName, stakingtypes.ModuleName, evmtypes.ModuleName, feemarkettypes.ModuleName}
	initGenesis   = []string{
		authtypes.ModuleName, banktypes.ModuleName, stakingtypes.ModuleName,
		evmtypes.ModuleName, feemarkettypes.ModuleName, genutiltypes.ModuleName, consensustypes.ModuleName,
	}
)

// App is the chain's ABCI application.
type App struct {
	*baseapp.BaseApp

	cdc       codec.Codec
	amino     *codec.LegacyAmino
	registry  types.InterfaceRegistry
	txConfig  client.TxConfig
	clientCtx client.Context
	listeners []func(common.Hash)
	mempool   *evmmempool.Mempool // nil: CometBFT's mempool only

	AccountKeeper   authkeeper.AccountKeeper
	BankKeeper      bankkeeper.BaseKeeper
	StakingKeeper   *stakingkeeper.Keeper
	ConsensusKeeper consensuskeeper.Keeper
	FeeMarketKeeper feemarketkeeper.Keeper
	EVMKeeper       *evmkeeper.Keeper

	Modules *module.Manager
	Basics  module.BasicManager
}

// New builds the app on db; the EVM chain ID comes from app.toml's
// evm.evm-chain-id (or --evm.evm-chain-id).
func New(logger log.Logger, db dbm.DB, loadLatest bool, appOpts servertypes.AppOptions, opts ...func(*baseapp.BaseApp)) (*App, error) {
	evmChainID := cast.ToUint64(appOpts.Get(srvflags.EVMChainID))
	enc := evmencoding.MakeConfig(evmChainID)
	bApp := baseapp.NewBaseApp(Name, logger, db, enc.TxConfig.TxDecoder(), opts...)
	bApp.SetInterfaceRegistry(enc.InterfaceRegistry)
	bApp.SetTxEncoder(enc.TxConfig.TxEncoder())

	keys := storetypes.NewKVStoreKeys(authtypes.StoreKey, banktypes.StoreKey, stakingtypes.StoreKey,
		consensustypes.StoreKey, evmtypes.StoreKey, feemarkettypes.StoreKey)
	okeys := storetypes.NewObjectStoreKeys(banktypes.ObjectStoreKey, evmtypes.ObjectKey)
	stores := make([]storetypes.StoreKey, 0, len(keys)+len(okeys))
	for _, k := range keys {
		stores = append(stores, k)
	}
	for _, k := range okeys {
		stores = append(stores, k)
	}

	a := &App{BaseApp: bApp, cdc: enc.Codec, amino: enc.Amino, registry: enc.InterfaceRegistry, txConfig: enc.TxConfig}
	authority := authtypes.NewModuleAddress(govtypes.ModuleName)
	prefix := sdk.GetConfig().GetBech32AccountAddrPrefix()

	a.ConsensusKeeper = consensuskeeper.NewKeeper(a.cdc, runtime.NewKVStoreService(keys[consensustypes.StoreKey]),
		authority.String(), runtime.EventService{})
	bApp.SetParamStore(a.ConsensusKeeper.ParamsStore)
	a.AccountKeeper = authkeeper.NewAccountKeeper(a.cdc, runtime.NewKVStoreService(keys[authtypes.StoreKey]),
		authtypes.ProtoBaseAccount, moduleAccounts, evmaddress.NewEvmCodec(prefix), prefix, authority.String())
	blocked := map[string]bool{}
	for name := range moduleAccounts {
		blocked[authtypes.NewModuleAddress(name).String()] = true
	}
	a.BankKeeper = bankkeeper.NewBaseKeeper(a.cdc, runtime.NewKVStoreService(keys[banktypes.StoreKey]),
		a.AccountKeeper, blocked, authority.String(), logger).WithObjStoreKey(okeys[banktypes.ObjectStoreKey])
	a.StakingKeeper = stakingkeeper.NewKeeper(a.cdc, runtime.NewKVStoreService(keys[stakingtypes.StoreKey]),
		a.AccountKeeper, a.BankKeeper, authority.String(),
		evmaddress.NewEvmCodec(sdk.GetConfig().GetBech32ValidatorAddrPrefix()),
		evmaddress.NewEvmCodec(sdk.GetConfig().GetBech32ConsensusAddrPrefix()))
	a.FeeMarketKeeper = feemarketkeeper.NewKeeper(a.cdc, authority, keys[feemarkettypes.StoreKey])
	// An 18-decimal gas denom needs no precisebank; no erc20 keeper and no
	// precompiles (both optional in x/vm).
	a.EVMKeeper = evmkeeper.NewKeeper(a.cdc, keys[evmtypes.StoreKey], okeys[evmtypes.ObjectKey], stores,
		authority, a.AccountKeeper, a.BankKeeper, a.StakingKeeper, a.FeeMarketKeeper, &a.ConsensusKeeper,
		nil, evmChainID, cast.ToString(appOpts.Get(srvflags.EVMTracer)))
	// Fees collect in an object store, moved to the fee collector at the
	// block's end (x/bank's EndBlocker), as evmd does with an 18-decimal
	// gas token: txs do not all write the collector's balance.
	a.EVMKeeper.EnableVirtualFeeCollection()
	vmModule := vm.NewAppModule(a.EVMKeeper, a.AccountKeeper, a.BankKeeper, a.AccountKeeper.AddressCodec())

	a.Modules = module.NewManager(
		genutil.NewAppModule(a.AccountKeeper, a.StakingKeeper, a.BaseApp, a.txConfig),
		auth.NewAppModule(a.cdc, a.AccountKeeper, nil, nil),
		bank.NewAppModule(a.cdc, a.BankKeeper, a.AccountKeeper, nil),
		staking.NewAppModule(a.cdc, a.StakingKeeper, a.AccountKeeper, a.BankKeeper, nil),
		consensus.NewAppModule(a.cdc, a.ConsensusKeeper),
		vmModule,
		feemarket.NewAppModule(a.FeeMarketKeeper),
	)
	a.Basics = module.NewBasicManagerFromManager(a.Modules, map[string]module.AppModuleBasic{
		genutiltypes.ModuleName: genutil.NewAppModuleBasic(genutiltypes.DefaultMessageValidator),
		stakingtypes.ModuleName: staking.AppModuleBasic{},
	})
	a.Basics.RegisterLegacyAminoCodec(a.amino)
	a.Basics.RegisterInterfaces(a.registry)
	a.Modules.SetOrderPreBlockers(preBlockers...)
	a.Modules.SetOrderBeginBlockers(beginBlockers...)
	a.Modules.SetOrderEndBlockers(endBlockers...)
	a.Modules.SetOrderInitGenesis(initGenesis...)
	a.Modules.SetOrderExportGenesis(initGenesis...)
	if err := a.Modules.RegisterServices(module.NewConfigurator(a.cdc, a.MsgServiceRouter(), a.GRPCQueryRouter())); err != nil {
		return nil, err
	}

	a.MountKVStores(keys)
	a.MountObjectStores(okeys)
	a.SetInitChainer(a.initChainer)
	a.SetPreBlocker(func(ctx sdk.Context, _ *abci.RequestFinalizeBlock) (*sdk.ResponsePreBlock, error) {
		return a.Modules.PreBlock(ctx)
	})
	a.SetBeginBlocker(a.Modules.BeginBlock)
	a.SetEndBlocker(a.Modules.EndBlock)
	a.SetAnteHandler(a.anteHandler(cast.ToUint64(appOpts.Get(srvflags.EVMMaxTxGasWanted))))
	if v := cast.ToString(appOpts.Get(SlowMsgKey)); v != "" {
		plant, err := parseSlowMsg(v)
		if err != nil {
			return nil, err
		}
		a.MsgServiceRouter().SetCircuit(plant)
	}
	if err := a.setMempool(appOpts, logger); err != nil {
		return nil, err
	}
	if loadLatest {
		if err := a.LoadLatestVersion(); err != nil {
			return nil, err
		}
		// x/vm's globals (coin, chain config) from the state, for a node
		// started again past genesis.
		vmModule.HydrateGlobals(a.NewContextLegacy(true, cmtproto.Header{Height: a.LastBlockHeight(), ChainID: a.ChainID()}))
	}
	return a, nil
}

func (a *App) initChainer(ctx sdk.Context, req *abci.RequestInitChain) (*abci.ResponseInitChain, error) {
	var state map[string]json.RawMessage
	if err := json.Unmarshal(req.AppStateBytes, &state); err != nil {
		return nil, fmt.Errorf("genesis app_state: %w", err)
	}
	return a.Modules.InitGenesis(ctx, a.cdc, state)
}

// anteHandler sends EVM txs through Cosmos EVM's mono decorator (nonce,
// balance, fee cap, gas, signature) and Cosmos txs (the gentxs) through
// the SDK's checks, refusing any EVM message inside a Cosmos tx.
func (a *App) anteHandler(maxGasWanted uint64) sdk.AnteHandler {
	sigGas := evmante.SigVerificationGasConsumer
	return func(ctx sdk.Context, tx sdk.Tx, sim bool) (sdk.Context, error) {
		if ext, ok := tx.(sdkante.HasExtensionOptionsTx); ok && len(ext.GetExtensionOptions()) > 0 {
			if url := ext.GetExtensionOptions()[0].GetTypeUrl(); url != "/cosmos.evm.vm.v1.ExtensionOptionsEthereumTx" {
				return ctx, fmt.Errorf("unsupported extension option %s", url)
			}
			evmParams := a.EVMKeeper.GetParams(ctx)
			feeParams := a.FeeMarketKeeper.GetParams(ctx)
			return sdk.ChainAnteDecorators(
				evmmonoante.NewEVMMonoDecorator(a.AccountKeeper, a.FeeMarketKeeper, a.EVMKeeper, maxGasWanted, &evmParams, &feeParams),
				evmante.NewTxListenerDecorator(a.onPendingTx),
			)(ctx, tx, sim)
		}
		return sdk.ChainAnteDecorators(
			cosmosante.NewRejectMessagesDecorator(),
			sdkante.NewSetUpContextDecorator(),
			sdkante.NewExtensionOptionsDecorator(nil),
			sdkante.NewValidateBasicDecorator(),
			sdkante.NewTxTimeoutHeightDecorator(),
			sdkante.NewConsumeGasForTxSizeDecorator(a.AccountKeeper),
			sdkante.NewDeductFeeDecorator(a.AccountKeeper, a.BankKeeper, nil, nil),
			sdkante.NewSetPubKeyDecorator(a.AccountKeeper),
			sdkante.NewValidateSigCountDecorator(a.AccountKeeper),
			sdkante.NewSigGasConsumeDecorator(a.AccountKeeper, sigGas),
			sdkante.NewSigVerificationDecorator(a.AccountKeeper, a.txConfig.SignModeHandler()),
			sdkante.NewIncrementSequenceDecorator(a.AccountKeeper),
		)(ctx, tx, sim)
	}
}

func (a *App) onPendingTx(h common.Hash) {
	for _, l := range a.listeners {
		l(h)
	}
}

// RegisterPendingTxListener is how the JSON-RPC server hears of new txs.
func (a *App) RegisterPendingTxListener(l func(common.Hash)) { a.listeners = append(a.listeners, l) }

// GetMempool returns the application-side EVM mempool, or when it is off
// cometOnly, which hands txs to CometBFT's mempool.
func (a *App) GetMempool() sdkmempool.ExtMempool {
	if a.mempool != nil {
		return a.mempool
	}
	return cometOnly{a}
}

// SetClientCtx is given the node's client context when it starts, before
// the node has a client (RegisterTxService gets one with it).
func (a *App) SetClientCtx(c client.Context) { a.clientCtx = c }

// TxConfig, AppCodec, LegacyAmino and InterfaceRegistry serve the CLI.
func (a *App) TxConfig() client.TxConfig                  { return a.txConfig }
func (a *App) AppCodec() codec.Codec                      { return a.cdc }
func (a *App) LegacyAmino() *codec.LegacyAmino            { return a.amino }
func (a *App) InterfaceRegistry() types.InterfaceRegistry { return a.registry }

// DefaultGenesis is every module's default genesis.
func (a *App) DefaultGenesis() map[string]json.RawMessage { return a.Basics.DefaultGenesis(a.cdc) }

// ModuleAccounts names the module accounts, sorted.
func ModuleAccounts() []string { return slices.Sorted(maps.Keys(moduleAccounts)) }

// RegisterAPIRoutes registers nothing: chainperf turns the REST API off.
func (a *App) RegisterAPIRoutes(*api.Server, config.APIConfig) {}

// RegisterTxService serves the tx service over gRPC. Its client context
// has the node's local client: the mempool broadcasts promoted txs with it.
func (a *App) RegisterTxService(c client.Context) {
	a.clientCtx = c
	authtx.RegisterTxService(a.GRPCQueryRouter(), c, a.Simulate, a.registry)
}

// RegisterTendermintService serves the CometBFT service over gRPC.
func (a *App) RegisterTendermintService(c client.Context) {
	cmtservice.RegisterTendermintService(c, a.GRPCQueryRouter(), a.registry, a.Query)
}

// RegisterNodeService serves the node service over gRPC.
func (a *App) RegisterNodeService(c client.Context, cfg config.Config) {
	nodeservice.RegisterNodeService(c, a.GRPCQueryRouter(), cfg, func() int64 { return a.CommitMultiStore().EarliestVersion() })
}
