package build

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// ModulePrefix starts a testnet.binary that names a released node:
// "module:github.com/cometbft/cometbft/cmd/cometbft@v1.0.1".
const ModulePrefix = "module:"

// A Release is a node binary built from a released version of a Go
// module, with that version's default config.toml (written by the
// binary's own init) beside it: the template its nodes' configs are
// made from, since config keys differ between versions.
type Release struct {
	Path    string // the binary
	Config  string // the version's default config.toml
	Package string // the Go package built
	Version string // as asked for, e.g. v1.0.1
	Reports string // what the binary's `version` prints
}

// ParseModule splits "module:PKG@VERSION". The version must be a full
// semantic version (a release, cached by it), not a branch or "latest".
func ParseModule(spec string) (pkg, version string, err error) {
	rest, ok := strings.CutPrefix(spec, ModulePrefix)
	if !ok {
		return "", "", fmt.Errorf("%q does not start with %q", spec, ModulePrefix)
	}
	pkg, version, ok = strings.Cut(rest, "@")
	if !ok || pkg == "" || version == "" {
		return "", "", fmt.Errorf("%q: write module:PACKAGE@VERSION, e.g. module:github.com/cometbft/cometbft/cmd/cometbft@v1.0.1", spec)
	}
	if err := module.CheckImportPath(pkg); err != nil {
		return "", "", fmt.Errorf("%q: %v", pkg, err)
	}
	if !semver.IsValid(version) || semver.Canonical(version) != strings.TrimSuffix(version, "+incompatible") {
		return "", "", fmt.Errorf("%q is not a released version: give one like v1.0.1 (a full semantic version; binaries are cached by it)", version)
	}
	return pkg, version, nil
}

// Module builds the package a "module:PKG@VERSION" spec names with the Go
// toolchain (go install from the module proxy, or the module cache when
// it is there), once per package and version, into cache. It refuses a
// version the proxy does not serve and a binary that has no built-in
// kvstore app, with the reason, and nothing is cached then.
func Module(ctx context.Context, spec, cache string) (*Release, error) {
	pkg, version, err := ParseModule(spec)
	if err != nil {
		return nil, err
	}
	esc, err := module.EscapePath(pkg)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cache, "modules", filepath.FromSlash(esc)+"@"+version)
	rel := &Release{Path: filepath.Join(dir, "node"), Config: filepath.Join(dir, "config.toml"), Package: pkg, Version: version}
	if done, err := os.ReadFile(filepath.Join(dir, "version")); err == nil {
		rel.Reports = strings.TrimSpace(string(done))
		return rel, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	// Built in a fresh folder and renamed into place whole, so that an
	// interrupted build or a refused binary leaves nothing cached.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".build-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, "go", "install", pkg+"@"+version)
	// GOFLAGS from a caller's module (-mod=readonly in CI) do not apply to
	// a package@version install; the local toolchain builds every version.
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building %s@%s failed (does the Go module proxy serve that version, and is it a main package?):\n%s",
			pkg, version, strings.TrimSpace(string(out)))
	}
	bin := filepath.Join(tmp, filepath.Base(pkg))
	if err := os.Rename(bin, filepath.Join(tmp, "node")); err != nil {
		return nil, fmt.Errorf("go install %s@%s left no binary named %s: %w", pkg, version, filepath.Base(pkg), err)
	}
	bin = filepath.Join(tmp, "node")
	if err := probeKVStore(ctx, bin); err != nil {
		return nil, fmt.Errorf("%s@%s: %w", pkg, version, err)
	}
	reports, err := output(ctx, bin, "version")
	if err != nil {
		return nil, fmt.Errorf("%s@%s: `version` failed: %w", pkg, version, err)
	}
	home := filepath.Join(tmp, "home")
	if _, err := output(ctx, bin, "init", "--home", home); err != nil {
		return nil, fmt.Errorf("%s@%s: `init` failed: %w", pkg, version, err)
	}
	if err := os.Rename(filepath.Join(home, "config", "config.toml"), filepath.Join(tmp, "config.toml")); err != nil {
		return nil, fmt.Errorf("%s@%s: init wrote no config/config.toml: %w", pkg, version, err)
	}
	if err := os.RemoveAll(home); err != nil {
		return nil, err
	}
	rel.Reports = strings.TrimSpace(reports)
	if err := os.WriteFile(filepath.Join(tmp, "version"), []byte(rel.Reports+"\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil && !exists(filepath.Join(dir, "version")) {
		return nil, err // another build of the same version may have won the race: that one is as good
	}
	return rel, nil
}

// probeKVStore makes sure the binary is a CometBFT node with the built-in
// kvstore app: its start command must offer "kvstore" as a proxy_app.
func probeKVStore(ctx context.Context, bin string) error {
	help, err := output(ctx, bin, "start", "--help")
	if err != nil || !strings.Contains(help, "--proxy_app") {
		return fmt.Errorf("not a CometBFT node binary (`start --help` names no --proxy_app flag): chainperf runs a released node with its built-in kvstore app")
	}
	if !strings.Contains(help, "'kvstore'") {
		return fmt.Errorf("the node has no built-in kvstore app (`start --help` does not offer proxy_app 'kvstore'): chainperf runs a released node with it")
	}
	return nil
}

func output(ctx context.Context, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
