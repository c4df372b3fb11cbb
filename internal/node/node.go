// Package node runs the embedded node: CometBFT v0.38 with the kvstore ABCI
// application in the same process. `chainperf node --home DIR` calls Run, so
// every node of a testnet is the chainperf binary re-executed and a user
// needs nothing installed but chainperf.
package node

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cometbft/cometbft/config"
	cmtflags "github.com/cometbft/cometbft/libs/cli/flags"
	cmtlog "github.com/cometbft/cometbft/libs/log"
	cmtnode "github.com/cometbft/cometbft/node"
	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/privval"
	"github.com/cometbft/cometbft/proxy"
	"github.com/spf13/viper"
)

// Run starts the node whose home is home and blocks until ctx is done, then
// stops it. Logs go to out in CometBFT's format.
func Run(ctx context.Context, home string, out io.Writer) error {
	cfg, err := LoadConfig(home)
	if err != nil {
		return err
	}
	if _, err := applyProfiling(home); err != nil {
		return err
	}
	logger, err := cmtflags.ParseLogLevel(cfg.LogLevel, cmtlog.NewTMLogger(cmtlog.NewSyncWriter(out)), config.DefaultLogLevel)
	if err != nil {
		return fmt.Errorf("log_level: %w", err)
	}
	nodeKey, err := p2p.LoadNodeKey(cfg.NodeKeyFile())
	if err != nil {
		return fmt.Errorf("node key: %w", err)
	}
	// In memory, as `cometbft start --proxy_app=kvstore` runs it: after a
	// restart CometBFT replays the stored blocks into the app. It restores
	// a state-sync snapshot, and takes them when the snapshots file says.
	snaps, err := readSnapshots(home)
	if err != nil {
		return err
	}
	app := newSnapshotApp(snaps)
	n, err := cmtnode.NewNodeWithContext(ctx, cfg,
		privval.LoadFilePV(cfg.PrivValidatorKeyFile(), cfg.PrivValidatorStateFile()),
		nodeKey,
		proxy.NewLocalClientCreator(app),
		cmtnode.DefaultGenesisDocProviderFunc(cfg),
		config.DefaultDBProvider,
		cmtnode.DefaultMetricsProvider(cfg.Instrumentation),
		logger)
	if err != nil {
		return fmt.Errorf("create node: %w", err)
	}
	if err := n.Start(); err != nil {
		return fmt.Errorf("start node: %w", err)
	}
	<-ctx.Done()
	if err := n.Stop(); err != nil {
		return fmt.Errorf("stop node: %w", err)
	}
	n.Wait()
	return app.Close()
}

// LoadConfig reads home/config/config.toml the way CometBFT's own command
// does (viper into config.Config), then checks it.
func LoadConfig(home string) (*config.Config, error) {
	path := filepath.Join(home, "config", "config.toml")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no node config at %s: is %s a node home made by chainperf?", path, home)
	}
	v := viper.New()
	v.SetConfigFile(path)
	if err := v.ReadInConfig(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	cfg := config.DefaultConfig()
	if err := v.Unmarshal(cfg); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	cfg.SetRoot(home)
	if err := cfg.ValidateBasic(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}
