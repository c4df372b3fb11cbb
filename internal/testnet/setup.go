package testnet

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/privval"
	"github.com/cometbft/cometbft/types"

	"github.com/chainperf/chainperf/internal/cometcfg"
	"github.com/chainperf/chainperf/internal/files"
	"github.com/chainperf/chainperf/internal/node"
)

// Setup writes every node's home (config.toml, genesis.json, keys) under
// t.Dir. It refuses a dir that holds another testnet's state file and a dir
// it cannot write; on error it removes what it wrote.
func (t *Testnet) Setup() (err error) {
	if err := CheckDir(t.Dir); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			for _, n := range t.Nodes {
				_ = files.RemoveBeneath(t.Dir, n.Home)
			}
		}
	}()
	genesis, err := t.genesis()
	if err != nil {
		return err
	}
	for _, n := range t.Nodes {
		if err := t.writeHome(n, genesis); err != nil {
			return fmt.Errorf("set up %s: %w", n.Name, err)
		}
	}
	return os.MkdirAll(t.LogDir(), 0o755)
}

// LogDir is where node logs go: one file per node, DIR/logs/NAME.log.
func (t *Testnet) LogDir() string { return filepath.Join(t.Dir, "logs") }

// CheckDir makes sure dir exists, is writable and holds no other testnet.
func CheckDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("testnet dir %s cannot be created: %w", dir, unwrapPath(err))
	}
	probe, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("testnet dir %s is not writable: %w", dir, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	if _, err := os.Stat(filepath.Join(dir, StateFile)); err == nil {
		st, err := ReadState(dir)
		if err != nil {
			return fmt.Errorf("dir %s holds a state file chainperf cannot use (%v): remove it or choose another dir", dir, err)
		}
		return fmt.Errorf("dir %s already holds testnet %s: run `chainperf testnet down --dir %s` first or choose another dir", dir, st.ID, dir)
	}
	// Node folders no state records: another tool's, or a testnet whose
	// state is gone. Writing homes over them would mix two nodes' data.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() && nodeDir.MatchString(e.Name()) {
			return fmt.Errorf("dir %s holds %s/, a node folder no testnet of chainperf's records: remove it or choose an empty dir", dir, e.Name())
		}
	}
	return nil
}

// nodeDir matches the folders of a testnet's node homes.
var nodeDir = regexp.MustCompile(`^(validator|full|seed|rotate)\d+$`)

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (t *Testnet) genesis() (*types.GenesisDoc, error) {
	g := &types.GenesisDoc{
		GenesisTime:     time.Now().UTC().Round(time.Millisecond),
		ChainID:         t.ChainID,
		InitialHeight:   1,
		ConsensusParams: types.DefaultConsensusParams(),
	}
	for _, n := range t.ByRole(RoleValidator) {
		g.Validators = append(g.Validators, types.GenesisValidator{
			Address: n.valKey.PubKey().Address(),
			PubKey:  n.valKey.PubKey(),
			Power:   n.Power,
			Name:    n.Name,
		})
	}
	if err := g.ValidateAndComplete(); err != nil {
		return nil, fmt.Errorf("genesis: %w", err)
	}
	return g, nil
}

func (t *Testnet) writeHome(n *Node, g *types.GenesisDoc) error {
	for _, d := range []string{"config", "data"} {
		if err := os.MkdirAll(filepath.Join(n.Home, d), 0o755); err != nil {
			return err
		}
	}
	cfg, err := t.NodeConfig(n)
	if err != nil {
		return err
	}
	if err := g.SaveAs(cfg.GenesisFile()); err != nil {
		return err
	}
	if err := (&p2p.NodeKey{PrivKey: n.nodeKey}).SaveAs(cfg.NodeKeyFile()); err != nil {
		return err
	}
	if err := writeFile(func() {
		privval.NewFilePV(n.validatorKey(), cfg.PrivValidatorKeyFile(), cfg.PrivValidatorStateFile()).Save()
	}); err != nil {
		return err
	}
	if err := node.WriteProfiling(n.Home, t.Profiling); err != nil {
		return err
	}
	if n.Role != RoleRotating {
		if err := node.WriteSnapshots(n.Home, node.Snapshots{Interval: t.spec.SnapshotInterval}); err != nil {
			return err
		}
	}
	return t.writeConfig(n, cfg)
}

// WriteConfig writes n's config.toml (again, over what a chain's own init
// command wrote): the embedded version's, or for a released node made from
// that version's own default config.
func (t *Testnet) WriteConfig(n *Node) error {
	cfg, err := t.NodeConfig(n)
	if err != nil {
		return err
	}
	return t.writeConfig(n, cfg)
}

func (t *Testnet) writeConfig(n *Node, cfg *config.Config) error {
	path := filepath.Join(n.Home, "config", "config.toml")
	if t.configTemplate(n) == "" {
		return writeFile(func() { config.WriteConfigFile(path, cfg) })
	}
	b, err := t.releaseConfig(n, cfg)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// UseConfigOf makes every node's config.toml from path, the default
// config of the CometBFT version the nodes run (a chain binary's own init
// writes it), where that version is not the one chainperf embeds: its
// keys and values then are the ones set and checked (CometBFT v0.39's
// mempool.type "app", say). The consensus timeouts stay CometBFT's
// defaults, as on every chain chainperf sets up, not the chain's init's
// (the Cosmos SDK's init writes a 5 s timeout_commit).
func (t *Testnet) UseConfigOf(path string) {
	t.spec.NodeConfig = path
	t.chainConfig = true
}

// configTemplate is the default config.toml of the release n runs, ""
// when it runs the embedded node (whose config chainperf writes itself).
func (t *Testnet) configTemplate(n *Node) string {
	if n.Version != "" {
		return n.Exec.Config
	}
	return t.spec.NodeConfig
}

// releaseConfig is a released node's config.toml: its version's default
// config with the harness settings of cfg and the scenario's overrides,
// each checked against that version's keys and types.
func (t *Testnet) releaseConfig(n *Node, cfg *config.Config) ([]byte, error) {
	bin, _ := t.Exec(n)
	tmpl, err := cometcfg.ReadTemplate(t.configTemplate(n), bin)
	if err != nil {
		return nil, fmt.Errorf("the node's default config: %w", err)
	}
	type setting struct {
		key   string
		value any
	}
	harness := []setting{
		{"moniker", cfg.Moniker}, {"proxy_app", cfg.ProxyApp},
		{"p2p.laddr", cfg.P2P.ListenAddress}, {"p2p.external_address", cfg.P2P.ExternalAddress},
		{"p2p.addr_book_strict", cfg.P2P.AddrBookStrict}, {"p2p.allow_duplicate_ip", cfg.P2P.AllowDuplicateIP},
		{"p2p.seed_mode", cfg.P2P.SeedMode}, {"p2p.seeds", cfg.P2P.Seeds}, {"p2p.persistent_peers", cfg.P2P.PersistentPeers},
		{"rpc.laddr", cfg.RPC.ListenAddress}, {"rpc.pprof_laddr", cfg.RPC.PprofListenAddress}, {"rpc.unsafe", cfg.RPC.Unsafe},
		{"instrumentation.prometheus", cfg.Instrumentation.Prometheus},
		{"instrumentation.prometheus_listen_addr", cfg.Instrumentation.PrometheusListenAddr},
	}
	if t.chainConfig {
		c := cfg.Consensus
		harness = append(harness,
			setting{"consensus.timeout_propose", c.TimeoutPropose.String()},
			setting{"consensus.timeout_propose_delta", c.TimeoutProposeDelta.String()},
			setting{"consensus.timeout_prevote", c.TimeoutPrevote.String()},
			setting{"consensus.timeout_prevote_delta", c.TimeoutPrevoteDelta.String()},
			setting{"consensus.timeout_precommit", c.TimeoutPrecommit.String()},
			setting{"consensus.timeout_precommit_delta", c.TimeoutPrecommitDelta.String()},
			setting{"consensus.timeout_commit", c.TimeoutCommit.String()})
	}
	for _, h := range harness {
		if err := tmpl.SetHarness(h.key, h.value); err != nil {
			return nil, fmt.Errorf("chainperf cannot run this node: %w", err)
		}
	}
	if err := CheckReleaseConfig(tmpl, t.scaleConfig()); err != nil {
		return nil, fmt.Errorf("the scale profile (testnet.scale_profile = \"off\" turns it off): %w", err)
	}
	if err := CheckReleaseConfig(tmpl, t.Config); err != nil {
		return nil, err
	}
	return tmpl.Bytes()
}

// CheckReleaseConfig sets the scenario's overrides on a released node's
// default config: the error names the first key that version does not
// have or whose value is of the wrong type.
func CheckReleaseConfig(tmpl *cometcfg.Template, overrides map[string]any) error {
	for _, k := range slices.Sorted(maps.Keys(overrides)) {
		if err := tmpl.Set(k, overrides[k]); err != nil {
			return fmt.Errorf("testnet.config: %w", err)
		}
	}
	return nil
}

// validatorKey is the validator key, or for other nodes a key of their own
// (CometBFT loads one on every node).
func (n *Node) validatorKey() ed25519.PrivKey {
	if n.valKey != nil {
		return n.valKey
	}
	return n.nodeKey
}

// writeFile runs a CometBFT writer that panics on I/O errors.
func writeFile(write func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	write()
	return nil
}

// NodeConfig returns n's CometBFT config: harness settings (addresses, peers,
// Prometheus, pprof), then the scenario's overrides.
func (t *Testnet) NodeConfig(n *Node) (*config.Config, error) {
	cfg := config.DefaultConfig()
	cfg.SetRoot(n.Home)
	cfg.Moniker = n.Name
	cfg.ProxyApp = "kvstore"
	hp := func(p int) string { return net.JoinHostPort(n.Host, strconv.Itoa(p)) }
	cfg.P2P.ListenAddress = "tcp://" + hp(n.Ports.P2P)
	cfg.P2P.ExternalAddress = hp(n.Ports.P2P)
	cfg.P2P.AddrBookStrict = false
	cfg.P2P.AllowDuplicateIP = true
	cfg.P2P.SeedMode = n.Role == RoleSeed
	cfg.P2P.Seeds = strings.Join(t.addresses(t.ByRole(RoleSeed), n), ",")
	cfg.P2P.PersistentPeers = strings.Join(t.addresses(t.peers(n), n), ",")
	cfg.RPC.ListenAddress = "tcp://" + hp(n.Ports.RPC)
	cfg.RPC.PprofListenAddress = hp(n.Ports.Pprof)
	cfg.Instrumentation.Prometheus = true
	cfg.Instrumentation.PrometheusListenAddr = hp(n.Ports.Metrics)
	if t.DialPeers {
		cfg.P2P.ExternalAddress, cfg.P2P.Seeds, cfg.P2P.PersistentPeers = "", "", ""
		cfg.RPC.Unsafe = true // dial_peers, dial_seeds
	}
	if t.configTemplate(n) != "" {
		return cfg, nil // the overrides are that version's keys, set by releaseConfig
	}
	for _, m := range []map[string]any{t.scaleConfig(), t.Config, n.Config} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if err := cometcfg.Set(cfg, k, m[k]); err != nil {
				return nil, err
			}
		}
	}
	if err := cfg.ValidateBasic(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

// peers returns the persistent peers of n: validators peer with every
// other validator, full nodes with every validator (under the scale
// profile, with a few: scaledPeers); seeds have none.
func (t *Testnet) peers(n *Node) []*Node {
	if n.Role == RoleSeed {
		return nil
	}
	if t.Scaled(ScalePeers) {
		return t.scaledPeers(n)
	}
	return t.ByRole(RoleValidator)
}

// PeerAddresses are the persistent peers and seeds of n (id@host:port) at
// the nodes' current hosts, for a provider that dials them (DialPeers).
func (t *Testnet) PeerAddresses(n *Node) (peers, seeds []string) {
	return t.addresses(t.peers(n), n), t.addresses(t.ByRole(RoleSeed), n)
}

func (t *Testnet) addresses(nodes []*Node, self *Node) []string {
	var out []string
	for _, p := range nodes {
		if p != self {
			out = append(out, p.Endpoint().P2P)
		}
	}
	return out
}
