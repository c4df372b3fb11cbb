// slownode is a tiny CometBFT node with the kvstore app whose FinalizeBlock
// sleeps for `delay` (delay.go): the bisect test commits a slowdown in a
// git history and expects chainperf to find it. Started as
// `slownode start --home DIR ...` like cometbft.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cometbft/cometbft/abci/example/kvstore"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/config"
	cmtlog "github.com/cometbft/cometbft/libs/log"
	cmtnode "github.com/cometbft/cometbft/node"
	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/privval"
	"github.com/cometbft/cometbft/proxy"
	"github.com/spf13/viper"
)

type slowApp struct{ *kvstore.Application }

func (a slowApp) FinalizeBlock(ctx context.Context, req *abci.RequestFinalizeBlock) (*abci.ResponseFinalizeBlock, error) {
	time.Sleep(delay)
	return a.Application.FinalizeBlock(ctx, req)
}

func main() {
	home := ""
	for i, a := range os.Args {
		if a == "--home" && i+1 < len(os.Args) {
			home = os.Args[i+1]
		}
	}
	if err := run(home); err != nil {
		fmt.Fprintln(os.Stderr, "slownode:", err)
		os.Exit(1)
	}
}

func run(home string) error {
	v := viper.New()
	v.SetConfigFile(filepath.Join(home, "config", "config.toml"))
	if err := v.ReadInConfig(); err != nil {
		return err
	}
	cfg := config.DefaultConfig()
	if err := v.Unmarshal(cfg); err != nil {
		return err
	}
	cfg.SetRoot(home)
	nodeKey, err := p2p.LoadNodeKey(cfg.NodeKeyFile())
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	n, err := cmtnode.NewNodeWithContext(ctx, cfg,
		privval.LoadFilePV(cfg.PrivValidatorKeyFile(), cfg.PrivValidatorStateFile()), nodeKey,
		proxy.NewLocalClientCreator(slowApp{kvstore.NewInMemoryApplication()}),
		cmtnode.DefaultGenesisDocProviderFunc(cfg), config.DefaultDBProvider,
		cmtnode.DefaultMetricsProvider(cfg.Instrumentation), cmtlog.NewTMLogger(cmtlog.NewSyncWriter(os.Stdout)))
	if err != nil {
		return err
	}
	if err := n.Start(); err != nil {
		return err
	}
	<-ctx.Done()
	_ = n.Stop()
	n.Wait()
	return nil
}
