package node_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/node"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/providertest"
)

// A home the testnet wrote reads back with its addresses and the
// scenario's overrides; a dir that is no home, or a config CometBFT
// rejects, is an error that names the file.
func TestLoadConfig(t *testing.T) {
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 1\nfull_nodes = 0\n[testnet.config]\n\"mempool.size\" = 1234\n"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CHAINPERF_REGISTRY", t.TempDir())
	tn := testnet.New(s.Testnet, "tn-000001", t.TempDir(), "127.0.0.1", 41000)
	if err := tn.Setup(); err != nil {
		t.Fatal(err)
	}
	home := tn.Nodes[0].Home
	cfg, err := node.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RPC.ListenAddress != "tcp://127.0.0.1:41001" || cfg.Mempool.Size != 1234 || cfg.RootDir != home {
		t.Errorf("rpc %s, mempool %d, root %s", cfg.RPC.ListenAddress, cfg.Mempool.Size, cfg.RootDir)
	}
	if _, err := node.LoadConfig(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no node config at") {
		t.Errorf("empty dir: %v", err)
	}
	path := filepath.Join(home, "config", "config.toml")
	data, _ := os.ReadFile(path)
	bad := strings.Replace(string(data), "size = 1234", "size = -5", 1)
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := node.LoadConfig(home); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("negative mempool size: %v; want an error naming %s", err, path)
	}
}

// A node runs from its home until its context ends, then closes cleanly.
func TestRunUntilCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("a real node")
	}
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 1\nfull_nodes = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CHAINPERF_REGISTRY", t.TempDir())
	base, err := providertest.TestBlock(4) // apart from the command tests' ports

	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// CometBFT's address book may still be saved for a moment after Stop
	// returns: remove the homes with a retry before TempDir's own
	// cleanup (which runs after this one) fails on a dir being written.
	t.Cleanup(func() {
		for i := 0; i < 30 && os.RemoveAll(dir) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	tn := testnet.New(s.Testnet, "tn-000002", dir, "127.0.0.1", base)
	// As for a scenario that captures mutex and block profiles: the
	// runtime's rates are 0 by default, and such profiles empty.
	tn.Profiling = node.Profiling{MutexFraction: 5, BlockRate: 10000}
	if err := tn.Setup(); err != nil {
		t.Fatal(err)
	}
	defer runtime.SetMutexProfileFraction(0)
	defer runtime.SetBlockProfileRate(0)
	// A profiling file that is not chainperf's is an error naming it.
	file := filepath.Join(tn.Nodes[0].Home, "config", node.ProfilingFile)
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"block_profile_rate": -1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if err := node.Run(context.Background(), tn.Nodes[0].Home, &log); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("crafted profiling file: %v; want an error naming it", err)
	}
	if err := os.WriteFile(file, good, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := node.Run(ctx, tn.Nodes[0].Home, &log); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tn.Nodes[0].Home, "data", "blockstore.db")); err != nil {
		t.Errorf("no block store after running: %v", err)
	}
	if f := runtime.SetMutexProfileFraction(-1); f != 5 {
		t.Errorf("mutex profile fraction %d; want 5", f)
	}
	if n, _ := runtime.BlockProfile(nil); n == 0 {
		t.Error("no block profile records after a node ran with block profiling on")
	}
}
