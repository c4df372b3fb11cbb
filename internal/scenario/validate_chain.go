package scenario

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/chainperf/chainperf/internal/build"
	"golang.org/x/mod/module"
)

// validateWorkload checks [workload].
func (s *Scenario) validateWorkload(c *Checker) {
	t := &s.Testnet
	w := &s.Workload
	c.oneOf("workload.kind", w.Kind, WorkloadKinds())
	owner, chainKind := chainOfWorkload(w.Kind)
	switch on, onChain := chainNamed(t.Chain); {
	case chainKind && t.Chain != owner.Name:
		c.fail("workload.kind", "%q needs %s: set testnet.chain = %q", w.Kind, owner.Is, owner.Name)
	case chainKind && owner.CheckWorkload != nil:
		owner.CheckWorkload(s, c)
	case onChain:
		c.fail("workload.kind", "%q sends kvstore txs, which %s rejects: use %s", w.Kind, on.Is, strings.Join(on.Workloads[:min(2, len(on.Workloads))], " or "))
	}
	takes := func(key string) bool { return chainKind && slices.Contains(owner.WorkloadKeys, key) }
	if !takes("read_rate") && w.ReadRate != 0 {
		c.fail("workload.read_rate", "%g: for the Cosmos and EVM workloads (kind is %q)", w.ReadRate, w.Kind)
	}
	if !takes("setup") && len(w.Setup) > 0 {
		c.fail("workload.setup[0]", "for the Cosmos workloads (kind is %q)", w.Kind)
	}
	if !takes("read") && len(w.Reads) > 0 {
		c.fail("workload.read[0]", "for the Cosmos workloads (kind is %q)", w.Kind)
	}
	if !takes("in_flight_per_account") && w.InFlightPerAccount != 1 {
		c.fail("workload.in_flight_per_account", "%d: for EVM workloads (the others send one tx of an account at a time, or unordered)", w.InFlightPerAccount)
	}
	if w.TxSize < 64 || w.TxSize > 1<<20 {
		c.fail("workload.tx_size", "%d: must be from 64 to 1048576 bytes", w.TxSize)
	} else if w.Kind == "loadtime" && w.TxSize < LoadtimeMinSize {
		c.fail("workload.tx_size", "%d: CometBFT's loadtime payload needs at least %d bytes", w.TxSize, LoadtimeMinSize)
	}
	switch {
	case w.Kind == "replay" && w.ReplayFile == "":
		c.fail("workload.replay_file", "kind \"replay\" sends the txs of a file: name it (one hex or base64 tx a line)")
	case w.Kind != "replay" && w.ReplayFile != "":
		c.fail("workload.replay_file", "for kind \"replay\" only (kind is %q)", w.Kind)
	case w.ReplayFile != "":
		if fi, err := os.Stat(w.ReplayFile); err != nil {
			c.fail("workload.replay_file", "%v", err)
		} else if !fi.Mode().IsRegular() {
			c.fail("workload.replay_file", "%s is not a regular file", w.ReplayFile)
		}
	}
	if w.Accounts < 0 || w.Accounts > 10_000_000 {
		c.fail("workload.accounts", "%d: must be from 0 to 10000000", w.Accounts)
	}
	c.oneOf("workload.selection", w.Selection, Selections)
	if w.Selection == "zipf" {
		if !(w.ZipfExponent > 0) {
			c.fail("workload.zipf_exponent", "%g: must be positive", w.ZipfExponent)
		}
		if !(w.ZipfShift >= 0) {
			c.fail("workload.zipf_shift", "%g: must be 0 or more", w.ZipfShift)
		}
	}

}

// NoMix fails a workload whose kind takes no mix when it lists one.
func (c *Checker) NoMix(w *Workload) {
	if len(w.Mix) == 0 {
		return
	}
	var kinds []string
	for _, ch := range registered() {
		for _, k := range ch.Workloads {
			if strings.HasSuffix(k, "-mix") {
				kinds = append(kinds, strconv.Quote(k))
			}
		}
	}
	c.fail("workload.mix[0]", "for kinds %s only (kind is %q)", strings.Join(kinds, " and "), w.Kind)
}

// MixEntries checks what every mix entry needs (a kind of kinds, given
// once, a weight, an amount of 0 or more), then each entry's own with
// each, and returns the kinds given.
func (c *Checker) MixEntries(mix []MixEntry, kinds []string, noun string, each func(p string, m MixEntry)) map[string]bool {
	seen := map[string]bool{}
	for i, m := range mix {
		p := fmt.Sprintf("workload.mix[%d]", i)
		if m.Template == "" { // a template's name is the chain's to check
			c.oneOf(p+".msg", m.Msg, kinds)
		}
		if seen[m.Msg] {
			c.fail(p+".msg", "%q twice: give each %s once", m.Msg, noun)
		}
		seen[m.Msg] = true
		if !(m.Weight > 0) || m.Weight > 1e9 {
			c.fail(p+".weight", "%g: must be above 0 (and at most 1e9)", m.Weight)
		}
		if m.Amount < 0 {
			c.fail(p+".amount", "%d: 0 (workload.amount) or more", m.Amount)
		}
		each(p, m)
	}
	return seen
}

// App checks where a chain application comes from (its table is key): a
// path, a release ("module:PKG@VERSION"), or a git tree at a ref; and the
// dependencies its build replaces.
func (c *Checker) App(key, binary string, b AppBuild, replace map[string]string) {
	release := strings.HasPrefix(binary, build.ModulePrefix)
	switch {
	case release:
		// Built (or refused) when the run starts: whether the proxy serves
		// the version is known only then.
		if _, _, err := build.ParseModule(binary); err != nil {
			c.fail(key+".binary", "%v", err)
		}
	case binary != "":
		if err := checkBinary(binary); err != nil {
			c.fail(key+".binary", "%v", err)
		}
	}
	if b.Dir != "" || b.Ref != "" || b.Package != "" {
		if binary != "" {
			c.fail(key+".build.dir", "give either %s.binary or %s.build, not both", key, key)
		}
		if st, err := os.Stat(b.Dir); err != nil || !st.IsDir() {
			c.fail(key+".build.dir", "%q is not a directory: give the application's git repository", b.Dir)
		}
		if b.Ref == "" {
			c.fail(key+".build.ref", "name a branch, tag or commit")
		}
		if b.Package == "" {
			c.fail(key+".build.package", "name the main package relative to the repository root, e.g. \"./cmd/appd\"")
		}
	}
	if len(replace) > 0 && !release && b.Dir == "" {
		c.fail(key+".replace", "replaces a dependency of a build: give %s.binary = \"module:PKG@VERSION\" or %s.build", key, key)
	}
	for _, mod := range slices.Sorted(maps.Keys(replace)) {
		if err := module.CheckPath(mod); err != nil {
			c.fail(key+".replace", "%q: not a Go module path: %v", mod, err)
		}
		if replace[mod] == "" {
			c.fail(key+".replace", "%q: give a version (v0.53.5), a commit or branch, or a local directory (./sdk)", mod)
		}
	}
}

// validateSettings checks that genesis and app.toml settings are for a
// chain whose files chainperf writes; the keys themselves are checked
// against the chain's own files (sdkchain.CheckSettings).
func (s *Scenario) validateSettings(c *Checker) {
	t := &s.Testnet
	ch, _ := chainNamed(t.Chain)
	sdk := ch.App != nil
	for _, k := range slices.Sorted(maps.Keys(t.Genesis)) {
		switch {
		case !sdk:
			c.fail("testnet.genesis", "patches a Cosmos SDK or EVM chain's genesis.json: testnet.chain is %q", t.Chain)
		case t.Provider == ProviderExternal:
			c.fail("testnet.genesis", "an external network's genesis is its own: leave it out")
		case strings.HasPrefix(k, "genesis_time") || strings.HasPrefix(k, "chain_id") || strings.HasPrefix(k, "app_state.genutil"):
			c.fail("testnet.genesis."+k, "is set by chainperf for the testnet (chain id, start time, the validators' gentxs)")
		default:
			continue
		}
		break
	}
	for range t.App {
		switch {
		case !sdk:
			c.fail("testnet.app", "sets a Cosmos SDK or EVM chain's app.toml: testnet.chain is %q", t.Chain)
		case t.Provider == ProviderExternal:
			c.fail("testnet.app", "an external network's nodes are configured by their operators: leave it out")
		}
		break
	}
}
