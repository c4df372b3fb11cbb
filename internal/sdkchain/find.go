// Package sdkchain sets up a testnet of a Cosmos SDK chain: it finds (or
// builds) the chain binary, drives the binary's own commands to make each
// node's home and the validators' gentxs, and funds the load's wallets in
// genesis.
package sdkchain

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/chainperf/chainperf/internal/build"
)

// A TestChain is one of chainperf's own test chains: its binary's name,
// its module inside chainperf's source tree and the environment variable
// that can name a built binary.
type TestChain struct{ Name, SourceDir, Env string }

// The test chains.
var (
	SDKD = TestChain{Name: "chainperf-sdkd", SourceDir: "chains/cosmos", Env: "CHAINPERF_SDKD"}
	EVMD = TestChain{Name: "chainperf-evmd", SourceDir: "chains/evm", Env: "CHAINPERF_EVMD"}
)

// Find returns the chain binary to run: binary when given; else the test
// chain from its environment variable, beside the chainperf executable, on
// PATH, or built from its module in the source tree around the working
// directory or the executable (cached by a hash of its sources).
func (c TestChain) Find(ctx context.Context, binary string, logf func(string, ...any)) (string, error) {
	if binary != "" {
		return filepath.Abs(binary)
	}
	if p := os.Getenv(c.Env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", c.Env, p, err)
		}
		return p, nil
	}
	exe, _ := os.Executable()
	if exe != "" {
		if p := filepath.Join(filepath.Dir(exe), c.Name); isExec(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(c.Name); err == nil {
		return filepath.Abs(p)
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe != "" {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, s := range starts {
		if src := c.sourceAbove(s); src != "" {
			return c.Build(ctx, src, build.CacheDir(), logf)
		}
	}
	return "", fmt.Errorf("%s not found (not in $%s, beside chainperf, on PATH) and no chainperf source tree with %s around: build it with `cd %s && go build ./cmd/%s` or name a chain binary in the scenario", c.Name, c.Env, c.SourceDir, c.SourceDir, c.Name)
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// sourceAbove returns dir/SourceDir for the first dir at or above start
// that has it.
func (c TestChain) sourceAbove(start string) string {
	for d := start; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, c.SourceDir, "go.mod")); err == nil {
			return filepath.Join(d, c.SourceDir)
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// Build builds the test chain from its module at src into cache, named by
// a hash of its sources, unless that binary is there already.
func (c TestChain) Build(ctx context.Context, src, cache string, logf func(string, ...any)) (string, error) {
	sum, err := build.HashTree(src)
	if err != nil {
		return "", err
	}
	out := filepath.Join(cache, c.Name+"-"+sum[:16])
	if isExec(out) {
		return out, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	if logf != nil {
		logf("building %s from %s (a few minutes the first time)", c.Name, src)
	}
	tmp := fmt.Sprintf("%s.tmp%d", out, os.Getpid())
	cmd := exec.CommandContext(ctx, "go", "build", "-o", tmp, "./cmd/"+c.Name)
	cmd.Dir = src
	if msg, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("build %s in %s: %v\n%s", c.Name, src, err, strings.TrimSpace(string(msg)))
	}
	return out, os.Rename(tmp, out)
}
