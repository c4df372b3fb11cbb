package experiment

import (
	"context"
	"fmt"
	"strings"

	"github.com/chainperf/chainperf/internal/build"
	"github.com/chainperf/chainperf/internal/cometcfg"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// A NodeBinary is the node binary a scenario resolved to, and what the
// run record says about it.
type NodeBinary struct {
	Describe string            // the run's node version, e.g. "cometbft 1.0.1 (module ...)"
	Labels   map[string]string // labels the run gets (commit=, release=)
}

// ResolveNode makes the node binary a scenario names before anything
// starts: a build of a git ref (testnet.build) or a released version from
// its Go module (testnet.binary = "module:PKG@VERSION", whose config
// overrides are then checked against that version's own keys). It
// returns the scenario with testnet.binary set to the built file; a
// scenario that names neither comes back as it was, with a nil NodeBinary.
//
// The binaries of a mixed network's versions and of its upgrades are
// made too (versions.go); the run's node line then says what ran where.
func ResolveNode(ctx context.Context, s *scenario.Scenario, phase func(string)) (*scenario.Scenario, *NodeBinary, error) {
	if phase == nil {
		phase = func(string) {}
	}
	spec, bin, err := resolveMain(ctx, s, phase)
	if err != nil {
		return s, nil, err
	}
	spec, lines, err := resolveLifecycle(ctx, spec, phase)
	if err != nil {
		return s, nil, err
	}
	if len(lines) > 0 {
		if bin == nil {
			bin = &NodeBinary{Describe: scenario.EmbeddedBinary + " (CometBFT v0.38.19 + kvstore)", Labels: map[string]string{}}
		}
		bin.Describe += "; " + strings.Join(lines, "; ")
	}
	return spec, bin, nil
}

// resolveMain makes the binary every node runs unless a version or an
// upgrade says otherwise.
func resolveMain(ctx context.Context, s *scenario.Scenario, phase func(string)) (*scenario.Scenario, *NodeBinary, error) {
	t := s.Testnet
	_, isApp := t.Application()
	switch {
	case isApp:
		return resolveApp(ctx, s, phase)
	case t.Build.Dir != "":
		b := t.Build
		phase("build " + b.Ref)
		bin, err := build.Build(ctx, build.Spec{Dir: b.Dir, Ref: b.Ref, Package: b.Package, Flags: b.Flags}, build.CacheDir())
		if err != nil {
			return s, nil, err
		}
		spec := *s
		spec.Testnet.Binary = bin.Path
		return &spec, &NodeBinary{
			Describe: fmt.Sprintf("built from %s at %s (package %s)", b.Dir, bin.Commit, b.Package),
			Labels:   map[string]string{"commit": bin.Commit},
		}, nil
	case strings.HasPrefix(t.Binary, build.ModulePrefix):
		rel, err := buildRelease(ctx, t.Binary, t.Config, phase)
		if err != nil {
			return s, nil, fmt.Errorf("testnet.binary: %w", err)
		}
		spec := *s
		spec.Testnet.Binary, spec.Testnet.NodeConfig = rel.Path, rel.Config
		if len(spec.Testnet.Args) == 0 {
			spec.Testnet.Args = ReleaseArgs
		}
		return &spec, &NodeBinary{
			Describe: fmt.Sprintf("cometbft %s (module %s@%s) + kvstore", rel.Reports, rel.Package, rel.Version),
			Labels:   map[string]string{"release": rel.Version},
		}, nil
	}
	return s, nil, nil
}

// buildRelease builds a released node from its Go module (cached by
// version) and checks the scenario's config overrides against that
// version's own keys.
func buildRelease(ctx context.Context, binary string, overrides map[string]any, phase func(string)) (*build.Release, error) {
	phase("build " + strings.TrimPrefix(binary, build.ModulePrefix))
	rel, err := build.Module(ctx, binary, build.CacheDir())
	if err != nil {
		return nil, err
	}
	tmpl, err := cometcfg.ReadTemplate(rel.Config, "cometbft "+rel.Reports)
	if err != nil {
		return nil, err
	}
	if err := testnet.CheckReleaseConfig(tmpl, overrides); err != nil {
		return nil, err
	}
	return rel, nil
}

// ReleaseArgs start a released node on its home; its config names the
// built-in kvstore app.
var ReleaseArgs = []string{"start", "--home", "{home}"}

// resolveApp builds a Cosmos SDK or Cosmos EVM application the scenario
// names by release or git ref, and returns the scenario with the chain's
// binary set to the built file (and nothing left to build).
func resolveApp(ctx context.Context, s *scenario.Scenario, phase func(string)) (*scenario.Scenario, *NodeBinary, error) {
	spec := *s
	ref, _ := spec.Testnet.Application()
	app, ok := ref.Source()
	if !ok {
		return s, nil, nil
	}
	if app.Module != "" {
		phase("build " + strings.TrimPrefix(app.Module, build.ModulePrefix))
	} else {
		phase("build " + app.Ref)
	}
	logf := func(format string, args ...any) { phase(fmt.Sprintf(format, args...)) }
	bin, err := build.BuildApp(ctx, app, build.CacheDir(), logf)
	if err != nil {
		return s, nil, fmt.Errorf("%s: %w", ref.Key, err)
	}
	label := *ref.Binary
	if app.Dir != "" {
		label = app.Dir + "@" + app.Ref
	}
	spec.Testnet.AppLabel = withReplaced(label, app.Replace)
	*ref.Binary, *ref.Build, *ref.Replace = bin.Path, scenario.AppBuild{}, nil
	labels := map[string]string{}
	if bin.Commit != "" {
		labels["commit"] = bin.Commit
	}
	if _, v, err := build.ParseModule(app.Module); err == nil {
		labels["release"] = v
	}
	desc := fmt.Sprintf("%s %s (built from %s, package %s, with %s)", bin.Name, bin.Version, bin.Source, bin.Package, bin.Toolchain)
	if len(bin.Replaced) > 0 {
		desc += "; replaced " + strings.Join(bin.Replaced, ", ")
	}
	return &spec, &NodeBinary{Describe: desc, Labels: labels}, nil
}
