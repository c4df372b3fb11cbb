package chain

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/chainperf/chainperf/internal/build"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/sdkchain"
)

// CheckSettings checks a Cosmos SDK or EVM scenario's genesis and app.toml
// settings against the files the chain's own init writes, before any node
// starts, when the chain binary is at hand: a path, a build in the cache,
// or (with find) the test chain found or built now. It says what it
// checked, or why not.
func CheckSettings(ctx context.Context, s *scenario.Scenario, find bool, phase func(string)) (string, error) {
	t := s.Testnet
	ref, ok := t.Application()
	if !ok || (len(t.Genesis) == 0 && len(t.App) == 0) {
		return "", nil
	}
	binary, err := chainBinary(ctx, ref, find, phase)
	if err != nil || binary == "" {
		return "genesis and app.toml settings are checked against the chain's own files when the run sets it up (`chainperf scenario build FILE` builds it and checks them now)", err
	}
	settings := sdkchain.Settings{Genesis: t.Genesis, App: t.App, Pos: s.Pos}
	if err := settings.Check(ctx, binary); err != nil {
		return "", err
	}
	return fmt.Sprintf("genesis and app.toml settings checked against %s's own files", filepath.Base(binary)), nil
}

// chainBinary is the scenario's chain binary if it is at hand ("" if not):
// a path, a cached build, or with find chainperf's test chain.
func chainBinary(ctx context.Context, ref scenario.AppRef, find bool, phase func(string)) (string, error) {
	if app, ok := ref.Source(); ok {
		bin, err := build.CachedApp(ctx, app, build.CacheDir())
		if errors.Is(err, build.ErrNotBuilt) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		return bin.Path, nil
	}
	if *ref.Binary != "" || !find {
		return *ref.Binary, nil // a path, or "" for the test chain (found or built at set-up)
	}
	c := sdkchain.SDKD
	if ref.TestChain == sdkchain.EVMD.Name {
		c = sdkchain.EVMD
	}
	return c.Find(ctx, "", func(f string, a ...any) { phase(fmt.Sprintf(f, a...)) })
}
