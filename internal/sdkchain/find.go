// Package sdkchain sets up a testnet of a Cosmos SDK chain: it finds (or
// builds) the chain binary, drives the binary's own commands to make each
// node's home and the validators' gentxs, and funds the load's wallets in
// genesis.
package sdkchain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/chainperf/chainperf/internal/build"
)

// TestChain is the name of chainperf's own SDK test chain binary.
const TestChain = "chainperf-sdkd"

// SourceDir is the test chain's module inside chainperf's source tree.
const SourceDir = "chains/cosmos"

// Find returns the chain binary to run: binary when given; else
// chainperf-sdkd from $CHAINPERF_SDKD, beside the chainperf executable, on
// PATH, or built from chains/cosmos of the source tree around the working
// directory or the executable (cached by a hash of its sources).
func Find(ctx context.Context, binary string, logf func(string, ...any)) (string, error) {
	if binary != "" {
		return filepath.Abs(binary)
	}
	if p := os.Getenv("CHAINPERF_SDKD"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("CHAINPERF_SDKD=%s: %w", p, err)
		}
		return p, nil
	}
	exe, _ := os.Executable()
	if exe != "" {
		if p := filepath.Join(filepath.Dir(exe), TestChain); isExec(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(TestChain); err == nil {
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
		if src := sourceAbove(s); src != "" {
			return Build(ctx, src, build.CacheDir(), logf)
		}
	}
	return "", fmt.Errorf("%s not found (not in $CHAINPERF_SDKD, beside chainperf, on PATH) and no chainperf source tree with %s around: build it with `cd %s && go build ./cmd/%s` or set testnet.cosmos.binary", TestChain, SourceDir, SourceDir, TestChain)
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// sourceAbove returns dir/chains/cosmos for the first dir at or above
// start that has it.
func sourceAbove(start string) string {
	for d := start; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, SourceDir, "go.mod")); err == nil {
			return filepath.Join(d, SourceDir)
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// Build builds the test chain from its module at src into cache, named by
// a hash of its sources, unless that binary is there already.
func Build(ctx context.Context, src, cache string, logf func(string, ...any)) (string, error) {
	sum, err := hashSources(src)
	if err != nil {
		return "", err
	}
	out := filepath.Join(cache, TestChain+"-"+sum[:16])
	if isExec(out) {
		return out, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	if logf != nil {
		logf("building %s from %s (a few minutes the first time)", TestChain, src)
	}
	tmp := fmt.Sprintf("%s.tmp%d", out, os.Getpid())
	cmd := exec.CommandContext(ctx, "go", "build", "-o", tmp, "./cmd/"+TestChain)
	cmd.Dir = src
	if msg, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("build %s in %s: %v\n%s", TestChain, src, err, strings.TrimSpace(string(msg)))
	}
	return out, os.Rename(tmp, out)
}

// hashSources hashes go.mod, go.sum and the non-test .go files of src.
func hashSources(src string) (string, error) {
	var files []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if !d.IsDir() && (name == "go.mod" || name == "go.sum" || strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", errors.New("no sources in " + src)
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(src, f)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
