// Package app is chainperf's Cosmos SDK test chain: stock SDK modules (auth,
// bank, staking, consensus, genutil, tx) wired with depinject, the default
// ante handler (signatures, fees, sequences, gas), unordered txs (SDK
// v0.53: no sequence, a timeout of at most 10 minutes) and nothing else. No mint
// and no distribution: supply never changes and fees stay in the fee
// collector, so a run's balances can be checked to the last unit.
package app

import (
	"io"
	"os"
	"path/filepath"

	runtimev1alpha1 "cosmossdk.io/api/cosmos/app/runtime/v1alpha1"
	appv1alpha1 "cosmossdk.io/api/cosmos/app/v1alpha1"
	authmodulev1 "cosmossdk.io/api/cosmos/auth/module/v1"
	bankmodulev1 "cosmossdk.io/api/cosmos/bank/module/v1"
	consensusmodulev1 "cosmossdk.io/api/cosmos/consensus/module/v1"
	genutilmodulev1 "cosmossdk.io/api/cosmos/genutil/module/v1"
	stakingmodulev1 "cosmossdk.io/api/cosmos/staking/module/v1"
	txconfigv1 "cosmossdk.io/api/cosmos/tx/config/v1"
	"cosmossdk.io/core/appconfig"
	"cosmossdk.io/depinject"
	"cosmossdk.io/log"
	dbm "github.com/cosmos/cosmos-db"

	"github.com/cosmos/cosmos-sdk/baseapp"
	"github.com/cosmos/cosmos-sdk/runtime"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	"github.com/cosmos/cosmos-sdk/types/module"
	"github.com/cosmos/cosmos-sdk/x/genutil"
	genutiltypes "github.com/cosmos/cosmos-sdk/x/genutil/types"

	_ "github.com/cosmos/cosmos-sdk/x/auth"           // module registration
	_ "github.com/cosmos/cosmos-sdk/x/auth/tx/config" // tx config and default ante handler
	_ "github.com/cosmos/cosmos-sdk/x/bank"
	_ "github.com/cosmos/cosmos-sdk/x/consensus"
	_ "github.com/cosmos/cosmos-sdk/x/staking"
)

// Name is the app's name and its binary's.
const Name = "chainperf-sdkd"

// Bech32Prefix is the account address prefix.
const Bech32Prefix = "cosmos"

// DefaultNodeHome is the home used when --home is not given.
var DefaultNodeHome = filepath.Join(os.Getenv("HOME"), "."+Name)

// modules in the order each list needs them.
var (
	preBlockers   = []string{"auth"} // removes expired unordered nonces
	beginBlockers = []string{"staking"}
	endBlockers   = []string{"staking"}
	initGenesis   = []string{"auth", "bank", "staking", "genutil", "consensus"}
)

// Config is the app's module configuration.
func Config() depinject.Config {
	modules := appconfig.Compose(&appv1alpha1.Config{Modules: []*appv1alpha1.ModuleConfig{
		{Name: "runtime", Config: appconfig.WrapAny(&runtimev1alpha1.Module{
			AppName:           Name,
			PreBlockers:       preBlockers,
			BeginBlockers:     beginBlockers,
			EndBlockers:       endBlockers,
			InitGenesis:       initGenesis,
			OverrideStoreKeys: []*runtimev1alpha1.StoreKeyConfig{{ModuleName: "auth", KvStoreKey: "acc"}},
		})},
		{Name: "auth", Config: appconfig.WrapAny(&authmodulev1.Module{
			Bech32Prefix:                Bech32Prefix,
			EnableUnorderedTransactions: true,
			ModuleAccountPermissions: []*authmodulev1.ModuleAccountPermission{
				{Account: "fee_collector"},
				{Account: "bonded_tokens_pool", Permissions: []string{"burner", "staking"}},
				{Account: "not_bonded_tokens_pool", Permissions: []string{"burner", "staking"}},
			},
		})},
		{Name: "bank", Config: appconfig.WrapAny(&bankmodulev1.Module{})},
		{Name: "staking", Config: appconfig.WrapAny(&stakingmodulev1.Module{})},
		{Name: "consensus", Config: appconfig.WrapAny(&consensusmodulev1.Module{})},
		{Name: "genutil", Config: appconfig.WrapAny(&genutilmodulev1.Module{})},
		{Name: "tx", Config: appconfig.WrapAny(&txconfigv1.Config{})},
	}})
	// genutil's CLI needs its full module basic (with the gentx message
	// validator), not depinject's adaptor.
	basics := map[string]module.AppModuleBasic{
		genutiltypes.ModuleName: genutil.NewAppModuleBasic(genutiltypes.DefaultMessageValidator),
	}
	return depinject.Configs(modules, depinject.Supply(basics))
}

// New builds the app on db and loads its latest state.
func New(logger log.Logger, db dbm.DB, traceStore io.Writer, appOpts servertypes.AppOptions, opts ...func(*baseapp.BaseApp)) (*runtime.App, error) {
	var builder *runtime.AppBuilder
	if err := depinject.Inject(depinject.Configs(Config(), depinject.Supply(logger, appOpts)), &builder); err != nil {
		return nil, err
	}
	a := builder.Build(db, traceStore, opts...)
	if v, _ := appOpts.Get(SlowMsgKey).(string); v != "" {
		plant, err := parseSlowMsg(v)
		if err != nil {
			return nil, err
		}
		a.SetCircuitBreaker(plant)
	}
	if err := a.Load(true); err != nil {
		return nil, err
	}
	return a, nil
}
