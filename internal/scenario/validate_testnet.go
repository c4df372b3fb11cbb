package scenario

import (
	"fmt"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"

	"github.com/chainperf/chainperf/internal/secret"
	"slices"
	"strings"
	"time"

	"github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/types"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/chainperf/chainperf/internal/build"
	"github.com/chainperf/chainperf/internal/cometcfg"
	"github.com/chainperf/chainperf/internal/nodehttp"
)

// validateTestnet checks [testnet]: provider, sizes, binary or build,
// CometBFT config overrides, the chain.
func (s *Scenario) validateTestnet(c *Checker) {
	t := &s.Testnet
	c.oneOf("testnet.provider", t.Provider, Providers)
	if t.Provider == ProviderExternal {
		s.validateExternal(c)
		return
	}
	if len(t.Nodes) > 0 {
		c.fail("testnet.node", "nodes are listed for a network that already runs: set [testnet] provider = %q", ProviderExternal)
	}
	if t.Provider == "netns" {
		if p, err := netip.ParsePrefix(t.Subnet); err != nil || !p.Addr().Is4() || p.Bits() > 24 {
			c.fail("testnet.subnet", "%q: give an IPv4 range of /24 or wider, e.g. \"198.18.0.0/15\"", t.Subnet)
		}
		if n := min(t.Validators, MaxNodes+1) + min(t.FullNodes, MaxNodes+1) + min(t.Seeds, MaxNodes+1); n > 200 {
			c.fail("testnet", "the netns provider gives each node an address of one /24: at most 200 nodes")
		}
	}
	if t.Provider == ProviderKubernetes {
		s.validateKubernetes(c)
	} else {
		s.validateWAN(c)
	}
	if parts := strings.Split(t.ScaleProfile, ","); len(parts) == 1 {
		c.oneOf("testnet.scale_profile", t.ScaleProfile, append([]string{"auto", "on", "off"}, ScaleParts...))
	} else {
		for _, p := range parts {
			c.oneOf("testnet.scale_profile", strings.TrimSpace(p), ScaleParts)
		}
	}
	validateSizes(c, t)
	s.validateNodeNice(c)
	if t.ChainID == "" || len(t.ChainID) > 50 {
		c.fail("testnet.chain_id", "%q: must be 1 to 50 characters", t.ChainID)
	}
	if t.BasePort != 0 && (t.BasePort < 1024 || t.BasePort > 65535-4*MaxNodes) {
		c.fail("testnet.base_port", "%d: use 0 (automatic) or a port from 1024 to %d", t.BasePort, 65535-4*MaxNodes)
	}
	release := validateBinary(c, t)
	if !release { // a release's own keys are checked once it is built
		s.validateConfig(c)
	}
	s.validateChain(c)
	s.validateSettings(c)
}

// validateChain checks testnet.chain and the chain's own table.
func (s *Scenario) validateChain(c *Checker) {
	c.oneOf("testnet.chain", s.Testnet.Chain, Chains())
	if ch, ok := chainNamed(s.Testnet.Chain); ok && ch.Check != nil {
		ch.Check(s, c)
	}
	// An application named in another chain's table would not run: say
	// so, never measure the kvstore app in its place.
	for _, ch := range registered() {
		if ch.Name == s.Testnet.Chain || ch.App == nil || s.Testnet.sections[ch.Name] == nil {
			continue
		}
		ref := ch.App(s.Testnet.sections[ch.Name])
		if *ref.Binary == "" && ref.Build.Dir == "" {
			continue
		}
		key := ref.Key + ".binary"
		if *ref.Binary == "" {
			key = ref.Key + ".build.dir"
		}
		c.fail(key, "names %s's application, which runs only with testnet.chain = %q: testnet.chain is %q; set it", ch.Is, ch.Name, s.Testnet.Chain)
	}
}

// validateSizes checks the node counts and powers against what the
// provider can hold.
func validateSizes(c *Checker, t *Testnet) {
	if t.Validators < 1 {
		c.fail("testnet.validators", "%d: a testnet needs at least 1 validator", t.Validators)
	}
	if t.FullNodes < 0 {
		c.fail("testnet.full_nodes", "%d: cannot be negative", t.FullNodes)
	}
	if t.Seeds < 0 {
		c.fail("testnet.seeds", "%d: cannot be negative", t.Seeds)
	}
	// Each count alone first: a sum of huge counts wraps negative.
	most, where := MaxNodes, "on one machine"
	if t.Provider == ProviderKubernetes {
		most, where = MaxClusterNodes, "in one testnet on a cluster"
	}
	for _, k := range []struct {
		path string
		n    int
	}{{"testnet.validators", t.Validators}, {"testnet.full_nodes", t.FullNodes}, {"testnet.seeds", t.Seeds}} {
		if k.n > most {
			c.fail(k.path, "%d: at most %d nodes fit %s", k.n, most, where)
		}
	}
	if n := t.Validators + t.FullNodes + t.Seeds; n > most && t.Validators <= most && t.FullNodes <= most && t.Seeds <= most {
		c.fail("testnet", "%d nodes: at most %d fit %s", n, most, where)
	}
	if len(t.Powers) > 0 {
		if len(t.Powers) != t.Validators {
			c.fail("testnet.powers", "%d powers for %d validators: give one per validator or none", len(t.Powers), t.Validators)
		}
		var sum int64
		for i, p := range t.Powers {
			if p <= 0 {
				c.fail("testnet.powers", "power %d of validator %d: must be positive", p, i)
				continue
			}
			if sum += p; sum > types.MaxTotalVotingPower || sum < 0 {
				c.fail("testnet.powers", "the powers add up past CometBFT's maximum total voting power %d (MaxInt64/8): the nodes would refuse the genesis", types.MaxTotalVotingPower)
				break
			}
		}
	}
}

// validateBinary checks the node binary: a release (module:), a path, or
// a build from a repository; it reports whether it is a release.
func validateBinary(c *Checker, t *Testnet) (release bool) {
	release = strings.HasPrefix(t.Binary, build.ModulePrefix)
	if release {
		// Built (or refused) when the run starts: a version the proxy does
		// not serve or a node with no kvstore app is known only then.
		if _, _, err := build.ParseModule(t.Binary); err != nil {
			c.fail("testnet.binary", "%v", err)
		}
	} else if t.Binary != "" {
		if err := checkBinary(t.Binary); err != nil {
			c.fail("testnet.binary", "%v", err)
		}
		if len(t.Args) == 0 {
			c.fail("testnet.args", "an external binary needs its start arguments")
		}
	}
	if b := t.Build; b.Dir != "" {
		if t.Binary != "" {
			c.fail("testnet.build.dir", "give either testnet.binary or testnet.build, not both")
		}
		if st, err := os.Stat(b.Dir); err != nil || !st.IsDir() {
			c.fail("testnet.build.dir", "%q is not a directory", b.Dir)
		}
		if b.Ref == "" {
			c.fail("testnet.build.ref", "name a branch, tag or commit")
		}
		if len(t.Args) == 0 {
			c.fail("testnet.args", "a built binary needs its start arguments")
		}
	}
	return release
}

// LoadtimeMinSize is the smallest tx CometBFT's loadtime payload fits in
// (load.MinLoadtimeSize; a test keeps them equal).
const LoadtimeMinSize = 138

var envRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// EnvName fails the value at path unless it is "" or the name of an
// environment variable.
func (c *Checker) EnvName(path, v string) {
	if v != "" && !envRE.MatchString(v) {
		c.fail(path, "%q: the name of an environment variable (letters, digits, '_')", v)
	}
}

func checkBinary(path string) error {
	if !strings.Contains(path, "/") {
		return fmt.Errorf("%q: give a path (./%s or /usr/local/bin/%s)", path, path, path)
	}
	abs, _ := filepath.Abs(path)
	st, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("node binary %s not found", abs)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("node binary %s is not an executable file", abs)
	}
	return nil
}

// validateWAN checks the emulated WAN keys: zones known to the table, a
// square table of non-negative delays, sane jitter and loss, and the netns
// provider.
func (s *Scenario) validateWAN(c *Checker) {
	t := &s.Testnet
	c.oneOf("testnet.netem_backend", t.NetemBackend, NetemBackends)
	if t.Jitter < 0 || t.Jitter > 1 {
		c.fail("testnet.jitter", "%g: a share of the delay, from 0 to 1", t.Jitter)
	}
	if t.Loss < 0 || t.Loss > 100 {
		c.fail("testnet.loss", "%g: a percentage, from 0 to 100", t.Loss)
	}
	if t.BandwidthMbit < 0 || t.BandwidthMbit > 100_000 {
		c.fail("testnet.bandwidth_mbit", "%g: from 0 (no cap) to 100000", t.BandwidthMbit)
	}
	if t.UniformDelay < 0 || t.UniformDelay > Duration(10*time.Second) {
		c.fail("testnet.uniform_delay", "%s: from 0 to 10s", t.UniformDelay.D())
	}
	if !t.Emulated() {
		return
	}
	if t.Provider != "netns" && t.Provider != ProviderKubernetes {
		c.fail("testnet.provider", "zones and delays need nodes as emulated hosts: set provider = \"netns\" (or \"kubernetes\")")
	}
	if t.UniformDelay > 0 && (len(t.Zones) > 0 || len(t.NodeZones) > 0) {
		c.fail("testnet.uniform_delay", "give either a uniform delay or zones, not both")
	}
	if !(len(t.Zones) > 0 || len(t.NodeZones) > 0) {
		return // a uniform delay or a bandwidth cap: no table
	}
	table, err := s.LatencyTable()
	if err != nil {
		c.fail("testnet.latency_table", "%v", err)
		return
	}
	for i, z := range t.Zones {
		c.oneOf(fmt.Sprintf("testnet.zones[%d]", i), z, table.Zones)
	}
	nodes := t.NodeNames()
	for _, n := range slices.Sorted(maps.Keys(t.NodeZones)) {
		c.oneOf("testnet.node_zones", n, nodes)
		c.oneOf("testnet.node_zones."+n, t.NodeZones[n], table.Zones)
	}
}

// validateKubernetes checks [testnet.kubernetes]: zones as placement by a
// node label or as emulated delays in the pods, resource quantities
// Kubernetes accepts, an image source.
// validateNodeNice checks the nodes' nice: a value Linux has, at or
// below the harness's priority.
func (s *Scenario) validateNodeNice(c *Checker) {
	if n := s.Testnet.NodeNice; n < 0 || n > 19 {
		c.fail("testnet.node_nice", "%d: from 0 (the harness's priority) to 19 (the lowest)", n)
	}
}

func (s *Scenario) validateKubernetes(c *Checker) {
	t := &s.Testnet
	k := &t.Kubernetes
	if k.ZoneLabel != "" {
		// Zones are placement: the latency between them is the cluster's.
		if t.UniformDelay > 0 || t.BandwidthMbit > 0 || t.LatencyTable != "builtin" {
			c.fail("testnet.kubernetes.zone_label", "zones placed by a node label have the cluster's own latency: emulated delays (uniform_delay, bandwidth_mbit, latency_table) go with zones from the latency table instead (zone_label = \"\")")
		}
		nodes := t.NodeNames()
		for _, n := range slices.Sorted(maps.Keys(t.NodeZones)) {
			c.oneOf("testnet.node_zones", n, nodes)
		}
	} else {
		// Zones and delays are emulated in each pod (its agent's queue).
		s.validateWAN(c)
	}
	if k.ZoneLabel != "" && !labelKeyRE.MatchString(k.ZoneLabel) {
		c.fail("testnet.kubernetes.zone_label", "%q is not a Kubernetes label key", k.ZoneLabel)
	}
	if k.Namespace != "" && !dnsLabelRE.MatchString(k.Namespace) {
		c.fail("testnet.kubernetes.namespace", "%q is not a namespace name (lower-case letters, digits and '-', at most 63)", k.Namespace)
	}
	if strings.ContainsAny(k.Registry, " \t\n@") || strings.HasPrefix(k.Registry, "http") {
		c.fail("testnet.kubernetes.registry", "%q: give a repository such as \"registry.example.com/team/chainperf\" (no scheme, tag or digest)", k.Registry)
	}
	if k.Registry != "" && k.Containerd != "" {
		c.fail("testnet.kubernetes.containerd", "give either a registry to push the image to or a containerd to import it into, not both")
	}
	c.oneOf("testnet.kubernetes.reach", k.Reach, []string{ReachPods, ReachAPI})
	c.oneOf("testnet.kubernetes.harness", k.Harness, []string{HarnessHere, HarnessPod})
	if k.Harness == HarnessPod {
		// The pod runs as the service account of kube/rbac/role.yaml, and
		// its image carries chainperf alone.
		switch {
		case k.Namespace == "":
			c.fail("testnet.kubernetes.harness", "a harness pod runs in a namespace you give it (testnet.kubernetes.namespace), as the service account kube/rbac/role.yaml makes there")
		case t.Chain != "kvstore" || t.Binary != "" || len(t.Versions) > 0:
			c.fail("testnet.kubernetes.harness", "a harness pod runs chainperf's own node (chain = \"kvstore\", no binary or versions): a chain's binary is built where chainperf runs and is not in the pod")
		case t.LatencyTable != "builtin":
			c.fail("testnet.kubernetes.harness", "a harness pod cannot read latency_table %q (a file on this machine): use the built-in table", t.LatencyTable)
		}
	}
	if k.Ready < Duration(5*time.Second) || k.Ready > Duration(time.Hour) {
		c.fail("testnet.kubernetes.ready_timeout", "%s: from 5s to 1h", k.Ready.D())
	}
	if k.StorageClass != "" && !dnsSubdomainRE.MatchString(k.StorageClass) {
		c.fail("testnet.kubernetes.storage_class", "%q is not a storage class name (lower-case letters, digits, '-' and '.')", k.StorageClass)
	}
	if q, err := resource.ParseQuantity(k.StorageSize); k.StorageClass != "" && (err != nil || q.Sign() <= 0) {
		c.fail("testnet.kubernetes.storage_size", "%q: a positive Kubernetes quantity (e.g. \"1Gi\")", k.StorageSize)
	}
	for _, r := range []struct {
		role string
		res  Resources
	}{{"validator", k.Validator}, {"full", k.Full}, {"generator", k.Generator}} {
		for _, q := range []struct{ key, v string }{{"cpu", r.res.CPU}, {"memory", r.res.Memory}, {"cpu_limit", r.res.CPULimit}, {"memory_limit", r.res.MemoryLimit}} {
			if q.v == "" {
				continue
			}
			if _, err := resource.ParseQuantity(q.v); err != nil {
				c.fail("testnet.kubernetes."+r.role+"."+q.key, "%q is not a Kubernetes quantity (e.g. \"500m\", \"2\", \"512Mi\")", q.v)
			}
		}
	}
}

var (
	dnsLabelRE     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	dnsSubdomainRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
	labelKeyRE     = regexp.MustCompile(`^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
)

// ScaleParts are the parts of the scale profile (testnet.scale_profile),
// in the order bench/netns-scale.sh adds them; internal/testnet says
// what each changes.
var ScaleParts = []string{"peers", "procs", "log", "timeouts", "gossip"}

// ScaleFrom: "auto" applies the whole scale profile from this many
// validators. A full mesh of 10 validators held a steady interval on 2
// cores; 25 did not (bench/netns-scale.sh).
const ScaleFrom = 16

// ScaleProfileParts returns the parts of the scale profile a checked
// testnet.scale_profile asks for: "auto" (or "") all of them from
// ScaleFrom validators, "on" all, "off" none, or the parts listed.
func (t *Testnet) ScaleProfileParts() []string {
	switch t.ScaleProfile {
	case "", "auto":
		if t.Validators < ScaleFrom {
			return nil
		}
		return slices.Clone(ScaleParts)
	case "on":
		return slices.Clone(ScaleParts)
	case "off":
		return nil
	}
	var parts []string
	for _, p := range strings.Split(t.ScaleProfile, ",") {
		if p = strings.TrimSpace(p); slices.Contains(ScaleParts, p) && !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return parts
}

// NetemBackends are the delay backends of an emulated WAN.
var NetemBackends = []string{"auto", "tc", "nfqueue"}

// validateConfig checks [testnet.config]: each key is CometBFT's and of
// its type, and CometBFT accepts the result.
func (s *Scenario) validateConfig(c *Checker) {
	t := &s.Testnet
	cfg := config.DefaultConfig()
	keys := slices.Sorted(maps.Keys(t.Config))
	for _, k := range keys {
		if err := cometcfg.Set(cfg, k, t.Config[k]); err != nil {
			c.fail("testnet.config."+k, "%v", err)
		}
	}
	if len(keys) > 0 {
		if err := cfg.ValidateBasic(); err != nil {
			c.fail("testnet.config", "CometBFT rejects these settings: %v", err)
		}
	}

}

// validateExternal checks a network chainperf did not make: its listed
// nodes with their URLs, and no key that would need chainperf to make or
// change the nodes.
func (s *Scenario) validateExternal(c *Checker) {
	t := &s.Testnet
	if len(t.Nodes) == 0 {
		c.fail("testnet.node", "the external provider needs the network's nodes: add [[testnet.node]] with role and rpc")
	}
	if len(t.Nodes) > MaxNodes {
		c.fail("testnet.node", "%d nodes: at most %d", len(t.Nodes), MaxNodes)
	}
	seen := map[string]bool{}
	for i, n := range t.ExternalNames() {
		path := fmt.Sprintf("testnet.node[%d]", i)
		nd := t.Nodes[i]
		c.oneOf(path+".role", nd.Role, []string{"validator", "full"})
		if seen[n] {
			c.fail(path+".name", "%q is named twice", n)
		}
		seen[n] = true
		checkURL(c, path+".rpc", nd.RPC, true)
		checkURL(c, path+".metrics", nd.Metrics, false)
		checkURL(c, path+".pprof", nd.Pprof, false)
		checkURL(c, path+".json_rpc", nd.JSONRPC, false)
	}
	why := "chainperf starts and configures no node of an external network"
	switch {
	case len(t.Zones) > 0 || len(t.NodeZones) > 0 || t.UniformDelay > 0 || t.BandwidthMbit > 0:
		c.fail("testnet.zones", "an emulated WAN needs emulated hosts: %s", why)
	case t.Binary != "" || t.Build.Dir != "":
		c.fail("testnet.binary", "a node binary cannot be chosen: %s", why)
	case len(t.Config) > 0:
		c.fail("testnet.config", "config overrides cannot be applied: %s", why)
	}
	s.validateChain(c)
	s.validateSettings(c)
	if s.Experiment.Kind.Has(KindRotate) {
		c.fail("experiment.kind", "rotate starts fresh nodes: an external network has none for chainperf to start")
	}
}

// checkURL checks an http(s) URL with a host; "" is fine unless needed.
func checkURL(c *Checker, path, v string, needed bool) {
	if v == "" {
		if needed {
			c.fail(path, "give the URL, e.g. \"http://127.0.0.1:26657\"")
		}
		return
	}
	if _, _, err := nodehttp.Canonical(v); err != nil {
		c.fail(path, "%v", err)
	}
}

// Redact masks the secrets in s (credentials of a URL, password= and the
// values chainperf was given), so that no message, record or report
// holds them.
func Redact(s string) string { return secret.Redact(s) }
