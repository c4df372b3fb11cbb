package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/mod/module"

	"github.com/chainperf/chainperf/internal/build"
)

// EmbeddedBinary names the embedded node (CometBFT v0.38.19 + kvstore) in
// a version list or an upgrade's `to`, where "" would read as unset.
const EmbeddedBinary = "embedded"

// A Version is a node binary some nodes of a mixed-version testnet run,
// as the CometBFT QA's mixed networks: a share of the nodes on one
// release, the rest on another.
type Version struct {
	// Binary is a node binary's path, "module:PKG@VERSION" (a release
	// built from its Go module), or "embedded".
	Binary string `toml:"binary"`
	// Weight is this version's share of the validators, and apart of the
	// full nodes (the QA's version weights); Nodes names them instead.
	Weight int      `toml:"weight"`
	Nodes  []string `toml:"nodes"`
	// Resolved, once the binary is built: the file that runs ("" for the
	// embedded node), its arguments and, for a release, its default
	// config.toml.
	Exec Exec `toml:"-"`
}

// Exec is how a resolved node binary runs.
type Exec struct {
	Path   string   `json:"path,omitempty"`   // "" for the embedded node
	Args   []string `json:"args,omitempty"`   // "{home}" replaced
	Config string   `json:"config,omitempty"` // a release's default config.toml, "" for the embedded node's
}

// VersionOf assigns the testnet's nodes to its versions: by name where a
// version names nodes, else by weight, validators and full nodes each in
// shares (largest remainder, earlier versions first). A node of no
// version is missing from the map.
func (t Testnet) VersionOf() map[string]int {
	out := map[string]int{}
	weighted := map[int]int{}
	total := 0
	for i, v := range t.Versions {
		for _, n := range v.Nodes {
			out[n] = i
		}
		if len(v.Nodes) == 0 && v.Weight > 0 {
			weighted[i] = v.Weight
			total += v.Weight
		}
	}
	if total == 0 {
		return out
	}
	for _, role := range []struct {
		prefix string
		count  int
	}{{"validator", t.Validators}, {"full", t.FullNodes}} {
		var free []string
		for i := range role.count {
			if name := fmt.Sprintf("%s%d", role.prefix, i); !hasKey(out, name) {
				free = append(free, name)
			}
		}
		at := 0
		for _, i := range shares(weighted, total, len(free)) {
			out[free[at]] = i
			at++
		}
	}
	return out
}

func hasKey(m map[string]int, k string) bool { _, ok := m[k]; return ok }

// shares splits n places among the weighted versions (version index ->
// weight) by largest remainder and lists each place's version, in
// version order.
func shares(weights map[int]int, total, n int) []int {
	idx := slices.Sorted(maps.Keys(weights))
	count := map[int]int{}
	given := 0
	type rem struct{ i, r int }
	var rems []rem
	for _, i := range idx {
		count[i] = n * weights[i] / total
		given += count[i]
		rems = append(rems, rem{i, n * weights[i] % total})
	}
	slices.SortStableFunc(rems, func(a, b rem) int { return b.r - a.r })
	for k := 0; given < n; k++ {
		count[rems[k%len(rems)].i]++
		given++
	}
	var out []int
	for _, i := range idx {
		for range count[i] {
			out = append(out, i)
		}
	}
	return out
}

// UpgradeNodes are the nodes a rolling upgrade takes, in order: those it
// names, or every validator then every full node.
func (s *Scenario) UpgradeNodes(p Perturbation) []string {
	if len(p.Nodes) > 0 {
		return p.Nodes
	}
	var out []string
	for i := range s.Testnet.Validators {
		out = append(out, fmt.Sprintf("validator%d", i))
	}
	for i := range s.Testnet.FullNodes {
		out = append(out, fmt.Sprintf("full%d", i))
	}
	return out
}

// UpgradeLength is how long a rolling upgrade lasts at the least: each
// node down for its duration, the gap between one node back at the tip
// and the next going down (catching up takes longer).
func (s *Scenario) UpgradeLength(p Perturbation) Duration {
	n := len(s.UpgradeNodes(p))
	if n == 0 {
		return 0
	}
	return Duration(int64(n)*int64(p.Duration) + int64(n-1)*int64(p.Gap))
}

// lifecycleProviders can swap a node's binary: they run the node binary
// as a process of this machine.
var lifecycleProviders = []string{"process", "netns"}

// validateLifecycle checks the mixed versions and the upgrades: node
// binaries a provider can swap, on kvstore (an application chain swaps
// its app, not its node: not yet), each node in one version.
func (s *Scenario) validateLifecycle(c *Checker) {
	t := s.Testnet
	upgrades := 0
	for _, p := range s.Perturbations {
		if p.Kind == "upgrade" {
			upgrades++
		}
	}
	if len(t.Versions) == 0 && upgrades == 0 {
		return
	}
	what := "testnet.versions"
	if len(t.Versions) == 0 {
		what = "an upgrade"
	}
	if !slices.Contains(lifecycleProviders, t.Provider) {
		c.fail("testnet.provider", "%s swaps node binaries, which the %q provider cannot: use %s", what, t.Provider, strings.Join(lifecycleProviders, " or "))
	}
	if _, app := t.Application(); app && len(t.Versions) > 0 {
		c.fail("testnet.versions", "a mixed network runs CometBFT node binaries with kvstore; a %s chain's nodes all run testnet.%s's binary (an upgrade swaps it)", t.Chain, t.Chain)
	}
	if t.Build.Dir != "" && len(t.Versions) > 0 {
		c.fail("testnet.versions", "give each version's binary, not testnet.build")
	}
	names := t.NodeNames()
	seen := map[string]int{}
	weights := 0
	for i, v := range t.Versions {
		path := fmt.Sprintf("testnet.versions[%d]", i)
		if strings.TrimSpace(v.Binary) == "" {
			c.fail(path+".binary", "name the binary: a path, \"module:github.com/cometbft/cometbft/cmd/cometbft@VERSION\" or %q", EmbeddedBinary)
		}
		if v.Weight < 0 {
			c.fail(path+".weight", "%d: a share is 0 or more", v.Weight)
		}
		if v.Weight > 0 && len(v.Nodes) > 0 {
			c.fail(path, "give a weight or nodes, not both")
		}
		weights += v.Weight
		for _, n := range v.Nodes {
			c.oneOf(path+".nodes", n, names)
			if j, ok := seen[n]; ok {
				c.fail(path+".nodes", "%q is already in testnet.versions[%d]", n, j)
			}
			seen[n] = i
		}
	}
	if len(t.Versions) > 0 && len(t.Versions) < 2 {
		c.fail("testnet.versions", "a mixed network has at least two versions (one version for every node is testnet.binary)")
	}
	if len(t.Versions) > 0 && weights == 0 && len(seen) == 0 {
		c.fail("testnet.versions", "give each version a weight or its nodes")
	}
}

// validateUpgrade checks one upgrade perturbation: what it upgrades to,
// its nodes, and that it ends within the phase; a coordinated one, that
// the chain can halt at a height and that one phase reaches it.
func (s *Scenario) validateUpgrade(c *Checker, path string, p Perturbation, total Duration, phase string) {
	t := s.Testnet
	_, app := t.Application()
	if strings.TrimSpace(p.To) == "" {
		if app {
			c.fail(path+".to", "name the application binary the nodes upgrade to: a path or \"module:PKG@VERSION\"")
		} else {
			c.fail(path+".to", "name the binary the nodes upgrade to: a path, \"module:github.com/cometbft/cometbft/cmd/cometbft@VERSION\" or %q", EmbeddedBinary)
		}
	}
	if app && p.To == EmbeddedBinary {
		c.fail(path+".to", "%q is the kvstore node; a %s chain upgrades to an application binary", EmbeddedBinary, t.Chain)
	}
	if p.Gap < 0 {
		c.fail(path+".gap", "cannot be negative")
	}
	if len(p.Replace) > 0 && !app {
		c.fail(path+".replace", "replaces dependencies of an application's build: a %q chain's nodes are CometBFT releases (name the release in to)", t.Chain)
	}
	if app && len(p.Replace) > 0 && !strings.HasPrefix(p.To, build.ModulePrefix) {
		c.fail(path+".replace", "replaces a dependency of a build: give to = \"module:PKG@VERSION\"")
	}
	for _, mod := range slices.Sorted(maps.Keys(p.Replace)) {
		if err := module.CheckPath(mod); err != nil || p.Replace[mod] == "" {
			c.fail(path+".replace", "%q = %q: a Go module path and a version, commit, branch or local directory", mod, p.Replace[mod])
		}
	}
	if p.Height < 0 {
		c.fail(path+".height", "%d: a coordinated upgrade's height is positive (leave it out for a rolling upgrade)", p.Height)
	}
	if !p.Coordinated() {
		if p.Duration <= 0 {
			c.fail(path+".duration", "how long each node is down for its upgrade: a positive duration")
		}
		if end := p.At + s.UpgradeLength(p); total > 0 && end >= total {
			c.fail(path+".at", "the upgrade of %d nodes (each down %s, %s apart) ends at %s, after the %s %s phase",
				len(s.UpgradeNodes(p)), p.Duration.D(), p.Gap.D(), end.D(), total.D(), phase)
		}
		return
	}
	if !app {
		c.fail(path+".height", "a coordinated upgrade halts every node at a height, which a %q chain's nodes cannot (CometBFT's kvstore has no halt height): leave height out for a rolling upgrade, or use a cosmos or evm chain", t.Chain)
	}
	if p.Height < MinUpgradeHeight {
		c.fail(path+".height", "%d: the chain passes its first heights while it is set up; halt at %d or later", p.Height, MinUpgradeHeight)
	}
	if len(p.Nodes) > 0 || p.At != 0 || p.Gap != 0 {
		c.fail(path, "a coordinated upgrade takes every node at its height: leave out nodes, at and gap")
	}
	if e := s.Experiment; len(e.Kind) != 1 || !e.Kind.Has(KindSteady) || e.Repeats > 1 {
		c.fail("experiment.kind", "a coordinated upgrade halts the chain once: one steady phase (no other kinds, no repeats)")
	}
	n := 0
	for _, q := range s.Perturbations {
		if q.Coordinated() {
			n++
		}
	}
	if n > 1 {
		c.fail(path, "one coordinated upgrade a run (the chain halts at one height)")
	}
}

// MinUpgradeHeight is the lowest height a coordinated upgrade may halt
// at: a testnet's setup and the first blocks come before it.
const MinUpgradeHeight = 10

// SyncKinds are how a rotating node joins the chain.
var SyncKinds = []string{"block", "state"}

// validateStateSync checks what a state-sync join needs: snapshots, the
// embedded node that takes them, and two validators for the light client.
func (s *Scenario) validateStateSync(c *Checker) {
	t, e := s.Testnet, s.Experiment
	c.oneOf("experiment.rotate_sync", e.RotateSync, SyncKinds)
	if t.SnapshotInterval < 0 || t.SnapshotInterval > 1_000_000 {
		c.fail("testnet.snapshot_interval", "%d: heights between snapshots, 0 (none) to 1000000", t.SnapshotInterval)
	}
	embedded := t.Binary == "" && t.Build.Dir == "" && len(t.Versions) == 0 && (t.Chain == "" || t.Chain == "kvstore")
	if t.SnapshotInterval > 0 && !embedded {
		c.fail("testnet.snapshot_interval", "snapshots are the embedded node's (its kvstore takes them); a binary, a build, versions or a %q chain keep their own", t.Chain)
	}
	if e.RotateSync != "state" {
		return
	}
	if !slices.Contains(s.Experiment.Kind, KindRotate) {
		c.fail("experiment.rotate_sync", "how rotating nodes join: experiment.kind has no \"rotate\"")
	}
	if t.SnapshotInterval <= 0 {
		c.fail("experiment.rotate_sync", "a state-sync join restores a snapshot: set testnet.snapshot_interval (heights between snapshots, e.g. 10)")
	}
	if t.Validators < 2 {
		c.fail("experiment.rotate_sync", "the joining node's light client asks two RPC servers: at least 2 validators")
	}
}
