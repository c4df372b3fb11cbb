// Command chainperf-evmd is chainperf's Cosmos EVM test chain: the SDK's
// init, genesis and keys commands (Ethereum keys by default) and Cosmos
// EVM's start command, which runs the node with its JSON-RPC server.
package main

import (
	"errors"
	"fmt"
	"os"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/spf13/cobra"

	"cosmossdk.io/log/v2"
	dbm "github.com/cosmos/cosmos-db"

	"github.com/cosmos/cosmos-sdk/client"
	clientcfg "github.com/cosmos/cosmos-sdk/client/config"
	"github.com/cosmos/cosmos-sdk/server"
	svrcmd "github.com/cosmos/cosmos-sdk/server/cmd"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	simtestutil "github.com/cosmos/cosmos-sdk/testutil/sims"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	genutilcli "github.com/cosmos/cosmos-sdk/x/genutil/client/cli"

	evmclient "github.com/cosmos/evm/client"
	"github.com/cosmos/evm/crypto/hd"
	evmserver "github.com/cosmos/evm/server"

	"github.com/chainperf/chainperf/chains/evm/app"
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
	cfg := sdk.GetConfig()
	setAddresses(cfg)
	cfg.Seal()

	// An app over a memory database gives the CLI its codecs and modules.
	tmp, err := app.New(log.NewNopLogger(), dbm.NewMemDB(), false, simtestutil.EmptyAppOptions{})
	if err != nil {
		return nil, err
	}
	clientCtx := client.Context{}.
		WithCodec(tmp.AppCodec()).
		WithInterfaceRegistry(tmp.InterfaceRegistry()).
		WithLegacyAmino(tmp.LegacyAmino()).
		WithTxConfig(tmp.TxConfig()).
		WithInput(os.Stdin).
		WithAccountRetriever(authtypes.AccountRetriever{}).
		WithHomeDir(app.DefaultNodeHome).
		WithKeyringOptions(hd.EthSecp256k1Option()).
		WithViper("")
	root := &cobra.Command{
		Use:           app.Name,
		Short:         "chainperf's Cosmos EVM test chain (auth, bank, staking, consensus, genutil, vm, feemarket)",
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(cmd.OutOrStdout())
			cmd.SetErr(cmd.ErrOrStderr())
			ctx := clientCtx.WithCmdContext(cmd.Context())
			ctx, err := client.ReadPersistentCommandFlags(ctx, cmd.Flags())
			if err != nil {
				return err
			}
			if ctx, err = clientcfg.ReadFromClientConfig(ctx); err != nil {
				return err
			}
			if err := client.SetCmdClientContextHandler(ctx, cmd); err != nil {
				return err
			}
			template, appConfig := appConfig("atest")
			return server.InterceptConfigsPreRunHandler(cmd, template, appConfig, cmtcfg.DefaultConfig())
		},
	}
	root.AddCommand(
		genutilcli.InitCmd(tmp.Basics, app.DefaultNodeHome),
		genutilcli.Commands(tmp.TxConfig(), tmp.Basics, app.DefaultNodeHome),
		evmclient.KeyCommands(app.DefaultNodeHome, true),
	)
	evmserver.AddCommands(root, evmserver.NewDefaultStartOptions(newApp, app.DefaultNodeHome), export, func(*cobra.Command) {})
	return root, nil
}

func newApp(logger log.Logger, db dbm.DB, opts servertypes.AppOptions) evmserver.Application {
	a, err := app.New(logger, db, true, opts, server.DefaultBaseappOptions(opts)...)
	if err != nil {
		panic(err)
	}
	return a
}

func export(log.Logger, dbm.DB, int64, bool, []string, servertypes.AppOptions, []string) (servertypes.ExportedApp, error) {
	return servertypes.ExportedApp{}, errors.New("chainperf-evmd does not export state")
}
