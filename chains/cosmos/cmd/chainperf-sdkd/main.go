// Command chainperf-sdkd is chainperf's Cosmos SDK test chain: the stock SDK
// commands (init, genesis, keys, start, ...) over the app in package app.
package main

import (
	"fmt"
	"io"
	"os"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/spf13/cobra"

	"cosmossdk.io/depinject"
	"cosmossdk.io/log"
	dbm "github.com/cosmos/cosmos-db"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/config"
	"github.com/cosmos/cosmos-sdk/client/keys"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/server"
	svrcmd "github.com/cosmos/cosmos-sdk/server/cmd"
	serverconfig "github.com/cosmos/cosmos-sdk/server/config"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	"github.com/cosmos/cosmos-sdk/types/module"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	genutilcli "github.com/cosmos/cosmos-sdk/x/genutil/client/cli"

	"github.com/chainperf/chainperf/chains/cosmos/app"
)

func main() {
	root, err := newRootCmd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := svrcmd.Execute(root, "", app.DefaultNodeHome); err != nil {
		fmt.Fprintln(root.OutOrStderr(), err)
		os.Exit(1)
	}
}

func newRootCmd() (*cobra.Command, error) {
	var (
		basics   module.BasicManager
		txConfig client.TxConfig
		cdc      codec.Codec
		amino    *codec.LegacyAmino
		registry codectypes.InterfaceRegistry
	)
	if err := depinject.Inject(depinject.Configs(app.Config(), depinject.Supply(log.NewNopLogger())),
		&basics, &txConfig, &cdc, &amino, &registry); err != nil {
		return nil, err
	}
	clientCtx := client.Context{}.
		WithCodec(cdc).
		WithInterfaceRegistry(registry).
		WithLegacyAmino(amino).
		WithTxConfig(txConfig).
		WithInput(os.Stdin).
		WithAccountRetriever(authtypes.AccountRetriever{}).
		WithHomeDir(app.DefaultNodeHome).
		WithViper("")
	root := &cobra.Command{
		Use:           app.Name,
		Short:         "chainperf's Cosmos SDK test chain (auth, bank, staking, consensus, genutil, tx)",
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(cmd.OutOrStdout())
			cmd.SetErr(cmd.ErrOrStderr())
			ctx := clientCtx.WithCmdContext(cmd.Context())
			ctx, err := client.ReadPersistentCommandFlags(ctx, cmd.Flags())
			if err != nil {
				return err
			}
			if ctx, err = config.ReadFromClientConfig(ctx); err != nil {
				return err
			}
			if err := client.SetCmdClientContextHandler(ctx, cmd); err != nil {
				return err
			}
			template, cfg := appConfig()
			return server.InterceptConfigsPreRunHandler(cmd, template, cfg, cmtcfg.DefaultConfig())
		},
	}
	root.AddCommand(
		genutilcli.InitCmd(basics, app.DefaultNodeHome),
		genutilcli.Commands(txConfig, basics, app.DefaultNodeHome),
		keys.Commands(),
	)
	server.AddCommands(root, app.DefaultNodeHome, newApp, nil, func(*cobra.Command) {})
	return root, nil
}

func newApp(logger log.Logger, db dbm.DB, trace io.Writer, opts servertypes.AppOptions) servertypes.Application {
	a, err := app.New(logger, db, trace, opts, server.DefaultBaseappOptions(opts)...)
	if err != nil {
		panic(err)
	}
	return a
}

// sdkAppConfig is app.toml: the SDK's server settings and the test chain's
// own section.
type sdkAppConfig struct {
	serverconfig.Config
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

# "TYPE_URL=DURATION" (e.g. "/cosmos.bank.v1beta1.MsgSend=20us") makes every
# message of that type spin that long in its handler; "" plants nothing.
slow-msg = "{{ .Chainperf.SlowMsg }}"
`

// appConfig is app.toml's template and defaults: the SDK's, and the
// planted cost's section.
func appConfig() (string, any) {
	return serverconfig.DefaultConfigTemplate + chainperfTemplate, sdkAppConfig{Config: *serverconfig.DefaultConfig()}
}
