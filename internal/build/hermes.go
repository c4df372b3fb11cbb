package build

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
)

// HermesVersion is the Hermes release chainperf relays with: the newest
// that builds here. From 1.11 its Penumbra support fetches proving keys
// from a git LFS host while it compiles (1.13.2 stops there without that
// host); 1.10.5 needs crates.io alone.
const HermesVersion = "1.10.5"

var crateVersionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// Hermes returns the hermes binary of a release of the ibc-relayer-cli
// crate, built the first time with cargo (from crates.io, its lock file
// as released) into cache/hermes/VERSION and found there after. A failed
// build leaves nothing in the cache.
func Hermes(ctx context.Context, version, cache string) (string, error) {
	if !crateVersionRE.MatchString(version) {
		return "", fmt.Errorf("hermes %q: give a released version such as %s (binaries are cached by it)", version, HermesVersion)
	}
	dir := filepath.Join(cache, "hermes", version)
	bin := filepath.Join(dir, "bin", "hermes")
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
		return bin, nil
	}
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		return "", fmt.Errorf("building hermes %s needs Rust's cargo on PATH (install it with rustup): %w", version, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+version+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, cargo, "install", "ibc-relayer-cli", "--version", "="+version, "--locked", "--bin", "hermes",
		"--root", tmp, "--target-dir", filepath.Join(tmp, "target"))
	logPath := filepath.Join(tmp, "build.log")
	log, err := os.Create(logPath)
	if err != nil {
		return "", err
	}
	cmd.Stdout, cmd.Stderr = log, log
	err = cmd.Run()
	log.Close()
	if err != nil {
		return "", fmt.Errorf("cargo install ibc-relayer-cli %s: %v: %s", version, err, tail(logPath, 25))
	}
	if err := os.RemoveAll(filepath.Join(tmp, "target")); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil && !exists(bin) { // another build got there first: use its
		return "", err
	}
	return bin, nil
}
