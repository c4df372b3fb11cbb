package experiment

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/build"
	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/live"
)

// resolveLifecycle makes the binaries of a mixed network's versions and
// of its upgrades (each release built once, cached by version) and
// returns the scenario with each one's Exec set, and a line for each
// that says what it is and which nodes run it.
func resolveLifecycle(ctx context.Context, s *scenario.Scenario, phase func(string)) (*scenario.Scenario, []string, error) {
	if len(s.Testnet.Versions) == 0 && !slices.ContainsFunc(s.Perturbations, isUpgrade) {
		return s, nil, nil
	}
	spec := *s
	spec.Testnet.Versions = slices.Clone(s.Testnet.Versions)
	spec.Perturbations = slices.Clone(s.Perturbations)
	var lines []string
	of := spec.Testnet.VersionOf()
	for i := range spec.Testnet.Versions {
		v := &spec.Testnet.Versions[i]
		e, err := resolveExec(ctx, v.Binary, spec.Testnet, phase)
		if err != nil {
			return s, nil, fmt.Errorf("testnet.versions[%d].binary: %w", i, err)
		}
		v.Exec = e
		var nodes []string
		for name, j := range of {
			if j == i {
				nodes = append(nodes, name)
			}
		}
		slices.Sort(nodes)
		lines = append(lines, fmt.Sprintf("%s on %s", v.Binary, strings.Join(nodes, ",")))
	}
	for i := range spec.Perturbations {
		p := &spec.Perturbations[i]
		if !isUpgrade(*p) {
			continue
		}
		var e scenario.Exec
		var err error
		if _, app := spec.Testnet.Application(); app {
			e, err = resolveAppExec(ctx, *p, spec.Testnet, phase)
		} else {
			e, err = resolveExec(ctx, p.To, spec.Testnet, phase)
		}
		if err != nil {
			return s, nil, fmt.Errorf("perturbation[%d].to: %w", i, err)
		}
		p.ToExec = e
		if p.Coordinated() {
			haltAt(&spec.Testnet, p.Height)
			lines = append(lines, fmt.Sprintf("upgraded to %s at height %d", upgradeLabel(*p), p.Height))
			continue
		}
		lines = append(lines, fmt.Sprintf("upgraded to %s at %s", upgradeLabel(*p), p.At.D()))
	}
	return &spec, lines, nil
}

// resolveAppExec is how an application chain's upgrade binary runs: built
// from its Go module (with the upgrade's replacements, cached) or a path,
// started with the chain's start arguments.
func resolveAppExec(ctx context.Context, p scenario.Perturbation, t scenario.Testnet, phase func(string)) (scenario.Exec, error) {
	ref, _ := t.Application()
	args := slices.Clone(*ref.StartArgs)
	if !strings.HasPrefix(p.To, build.ModulePrefix) {
		path, err := filepath.Abs(p.To)
		return scenario.Exec{Path: path, Args: args}, err
	}
	phase("build " + strings.TrimPrefix(p.To, build.ModulePrefix))
	logf := func(format string, a ...any) { phase(fmt.Sprintf(format, a...)) }
	bin, err := build.BuildApp(ctx, build.App{Module: p.To, Replace: p.Replace}, build.CacheDir(), logf)
	if err != nil {
		return scenario.Exec{}, err
	}
	return scenario.Exec{Path: bin.Path, Args: args}, nil
}

// haltAt makes every node of an application chain halt at height: the
// SDK server's --halt-height, on a copy of the start arguments (the
// upgrade's binary starts without it).
func haltAt(t *scenario.Testnet, height int64) {
	ref, _ := t.Application() // t's own section from here
	*ref.StartArgs = append(slices.Clone(*ref.StartArgs), "--halt-height", strconv.FormatInt(height, 10))
}

// upgradeLabel names what an upgrade's nodes run after it, for the run
// record: its binary, and the dependencies its build replaced (the same
// module before and after is told apart by them).
func upgradeLabel(p scenario.Perturbation) string { return withReplaced(p.To, p.Replace) }

// withReplaced is a binary's name and the dependencies its build
// replaced: "module:...wasmd@v0.61.14 +github.com/cosmos/cosmos-sdk@v0.53.8".
func withReplaced(binary string, replace map[string]string) string {
	for _, mod := range slices.Sorted(maps.Keys(replace)) {
		binary += " +" + mod + "@" + replace[mod]
	}
	return binary
}

func isUpgrade(p scenario.Perturbation) bool { return p.Kind == string(testnet.FaultUpgrade) }

// resolveExec is how a version's binary runs: the embedded node, a
// release built from its Go module (its config overrides checked against
// that release's keys), or a binary by path with the testnet's arguments.
func resolveExec(ctx context.Context, binary string, t scenario.Testnet, phase func(string)) (scenario.Exec, error) {
	switch {
	case binary == scenario.EmbeddedBinary:
		return scenario.Exec{}, nil
	case strings.HasPrefix(binary, build.ModulePrefix):
		rel, err := buildRelease(ctx, binary, t.Config, phase)
		if err != nil {
			return scenario.Exec{}, err
		}
		return scenario.Exec{Path: rel.Path, Args: ReleaseArgs, Config: rel.Config}, nil
	}
	path, err := filepath.Abs(binary)
	if err != nil {
		return scenario.Exec{}, err
	}
	args := t.Args
	if len(args) == 0 {
		args = ReleaseArgs
	}
	return scenario.Exec{Path: path, Args: args}, nil
}

// readVersions records the CometBFT version each standing node says it
// runs (/status), at the start or the end of the run; a node that does
// not answer within 3 s is left blank. An external network's nodes are
// read too: what they run is theirs to say.
func readVersions(ctx context.Context, net *live.Net, r *results.Run, end bool) {
	for i := range r.Nodes {
		n := net.Testnet.Node(r.Nodes[i].Name)
		if n == nil || n.Role == testnet.RoleRotating {
			continue
		}
		c, cancel := context.WithTimeout(ctx, 3*time.Second)
		st, err := nodehttp.ReadStatus(c, net.Endpoint(n).RPC)
		cancel()
		if err != nil {
			continue
		}
		v := st.Version
		if r := []rune(v); len(r) > 64 { // a node's answer: a version, not a page
			v = string(r[:64]) + "..."
		}
		v = printable.Clean(v)
		if end {
			r.Nodes[i].ReportedEnd = v
			if after := net.Testnet.VersionOf(n); after != r.Nodes[i].Version {
				r.Nodes[i].VersionEnd = after
			}
		} else {
			r.Nodes[i].Reported = v
		}
	}
}
