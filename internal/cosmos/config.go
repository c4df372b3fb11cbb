package cosmos

import (
	_ "embed"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/msgtemplate"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/scenario"
)

// defaults is the [testnet.cosmos] table of the built-in default scenario.
//
//go:embed default.toml
var defaults []byte

func init() {
	scenario.RegisterChain(scenario.ChainSection{
		Name:          "cosmos",
		Is:            "a Cosmos SDK chain",
		Defaults:      defaults,
		New:           func() any { return new(Config) },
		Workloads:     []string{"cosmos-send", "cosmos-multisend", "cosmos-mix"},
		WorkloadKeys:  []string{"setup", "read", "read_rate"},
		Check:         check,
		CheckWorkload: checkWorkload,
		Describe: func(s *scenario.Scenario) string {
			return fmt.Sprintf("%s (%s) from %d wallets", s.Workload.Kind, s.Workload.Mode, Of(s.Testnet).Wallets)
		},
		App: func(sec any) scenario.AppRef {
			c := sec.(*Config)
			return scenario.AppRef{Key: "testnet.cosmos", Binary: &c.Binary, Build: &c.Build, Replace: &c.Replace, StartArgs: &c.StartArgs,
				TestChain: "chainperf-sdkd", TestChainIs: "chainperf's Cosmos SDK test chain"}
		},
	})
}

// Of is testnet t's [testnet.cosmos] table (zero when t was not decoded
// from a scenario); a copy: set it with t.SetSection("cosmos", &c).
func Of(t scenario.Testnet) Config { return scenario.SectionOf[Config](t, "cosmos") }

// Config is a Cosmos SDK chain's [testnet.cosmos] table: its application
// and the wallets funded in its genesis.
type Config struct {
	// Binary is "" for chainperf's test chain (chainperf-sdkd, found or
	// built), the path of an SDK chain binary (gaiad, simd, ...), or a
	// released version built from its Go module ("module:PKG@VERSION").
	// Build builds it from a git tree at a ref instead; Replace swaps the
	// application's dependencies in either build.
	Binary    string            `toml:"binary"`
	Build     scenario.AppBuild `toml:"build"`
	Replace   map[string]string `toml:"replace"`
	StartArgs []string          `toml:"start_args"`
	// InitArgs are added to every node's init; SetupHook runs in each
	// node's home after it (relative to the scenario file).
	InitArgs     []string `toml:"init_args"`
	SetupHook    string   `toml:"setup_hook"`
	Denom        string   `toml:"denom"`
	Bech32Prefix string   `toml:"bech32_prefix"`
	// GasPrice is every node's minimum gas price, in denom per unit of gas.
	GasPrice float64 `toml:"gas_price"`
	// Stake is each validator's self-delegation per unit of voting power.
	Stake int64 `toml:"stake"`
	// Wallets are derived from Seed and funded with WalletBalance each.
	Wallets       int    `toml:"wallets"`
	WalletBalance int64  `toml:"wallet_balance"`
	Seed          string `toml:"seed"`
	// Accounts are addresses funded in genesis beside the wallets, with
	// WalletBalance each: keys held outside chainperf (a relayer's, your
	// own) that the load never signs for.
	Accounts []string `toml:"accounts"`
	// Mnemonics are keys given by mnemonic (a relayer's, which chainperf
	// makes) funded in genesis as Accounts are, at the chain's own prefix.
	Mnemonics []string `toml:"-"`
	// Servers turns on every node's REST gateway and gRPC server, each at
	// a port of its own, for programs of yours (a relayer, an indexer).
	Servers bool `toml:"servers"`
	// On an external network the wallets are derived from the funder's
	// key and Seed and funded by it at the start: its mnemonic is read
	// from a file or an environment variable, never from the scenario.
	FunderMnemonicFile string `toml:"funder_mnemonic_file"`
	FunderMnemonicEnv  string `toml:"funder_mnemonic_env"`
	FunderHDPath       string `toml:"funder_hd_path"`
	// SweepBack sends what the wallets hold back to the funder after the
	// balance check.
	SweepBack bool `toml:"sweep_back"`
	// StateCache keeps the testnet's start state (every node's store once
	// genesis is loaded) the first time, named by all that makes it, and
	// starts later runs of the same chain, testnet and wallets from it.
	StateCache bool `toml:"state_cache"`
}

// maxAccounts bounds testnet.cosmos.accounts: a few keys of one's own.
const maxAccounts = 100

// cut keeps the first n bytes of s, for quoting input in errors.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// HookPath is the scenario's set-up hook, a path relative to the scenario
// file made absolute ("": none).
func HookPath(s *scenario.Scenario) string {
	h := Of(s.Testnet).SetupHook
	if h == "" || filepath.IsAbs(h) {
		return h
	}
	return filepath.Join(filepath.Dir(s.File), h)
}

// executable says why path is no executable regular file (nil: it is).
func executable(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case st.Mode()&0o111 == 0:
		return fmt.Errorf("%s is not executable (chmod +x)", path)
	}
	return nil
}

// Funded says whether the wallets are funded by a given account at the
// start, not in genesis.
func (c Config) Funded() bool { return c.FunderMnemonicFile != "" || c.FunderMnemonicEnv != "" }

// Modes are how a Cosmos workload signs: every tx before its phase, or
// each when due.
var Modes = []string{"pregenerate", "live"}

// MixMsgs are the message kinds a cosmos-mix draws from.
var MixMsgs = []string{"send", "multisend", "delegate", "undelegate", "redelegate"}

// MaxUnorderedTimeout leaves a minute of the SDK's 10-minute bound on an
// unordered tx's timeout for clocks and block times apart.
const MaxUnorderedTimeout = 9 * time.Minute

var (
	prefixRE = regexp.MustCompile(`^[a-z]{1,40}$`)
	hdPathRE = regexp.MustCompile(`^m(/[0-9]{1,9}'?){1,10}$`)
)

func check(s *scenario.Scenario, c *scenario.Checker) {
	t, cs := &s.Testnet, Of(s.Testnet)
	external := t.Provider == scenario.ProviderExternal
	if t.Binary != "" || t.Build.Dir != "" {
		c.Fail("testnet.binary", "a Cosmos SDK chain names its binary in testnet.cosmos.binary")
	}
	if t.Provider == scenario.ProviderExternal && (cs.Binary != "" || cs.Build.Dir != "" || len(cs.Replace) > 0) {
		c.Fail("testnet.cosmos.binary", "chainperf starts no node of an external network: leave out its binary, build and replace")
	} else {
		c.App("testnet.cosmos", cs.Binary, cs.Build, cs.Replace)
	}
	if len(cs.StartArgs) == 0 {
		c.Fail("testnet.cosmos.start_args", "the chain needs its start arguments, e.g. [\"start\", \"--home\", \"{home}\"]")
	}
	if cs.StateCache && (external || t.Provider == scenario.ProviderKubernetes) {
		c.Fail("testnet.cosmos.state_cache", "the start state is kept from the nodes' homes on this machine: the process or netns provider only")
	}
	if cs.SetupHook != "" {
		if external {
			c.Fail("testnet.cosmos.setup_hook", "chainperf sets up no node of an external network: leave out its set-up hook")
		} else if err := executable(HookPath(s)); err != nil {
			c.Fail("testnet.cosmos.setup_hook", "%v: give an executable file (a path relative to the scenario file)", err)
		}
	}
	for _, a := range cs.InitArgs {
		if a == "" || strings.ContainsAny(a, "\x00\n") {
			c.Fail("testnet.cosmos.init_args", "%q: each argument a non-empty line", a)
		}
	}
	if cs.Denom != "" && !scenario.IsDenom(cs.Denom) {
		c.Fail("testnet.cosmos.denom", "%q: 3 to 128 characters, a letter first, then letters, digits, '/', ':', '.', '_' or '-' (or \"\": the chain's own)", cs.Denom)
	}
	if cs.Bech32Prefix != "" && !prefixRE.MatchString(cs.Bech32Prefix) {
		c.Fail("testnet.cosmos.bech32_prefix", "%q: 1 to 40 lowercase letters (or \"\": the chain's own)", cs.Bech32Prefix)
	}
	if !(cs.GasPrice >= 0) || cs.GasPrice > 1e9 {
		c.Fail("testnet.cosmos.gas_price", "%g: must be from 0 to 1e9", cs.GasPrice)
	}
	if cs.Stake < 1 {
		c.Fail("testnet.cosmos.stake", "%d: must be at least 1", cs.Stake)
	}
	if cs.Wallets < 2 || cs.Wallets > scenario.MaxWallets {
		c.Fail("testnet.cosmos.wallets", "%d: must be from 2 (a sender and a receiver) to %d", cs.Wallets, scenario.MaxWallets)
	}
	if cs.WalletBalance < 1 {
		c.Fail("testnet.cosmos.wallet_balance", "%d: must be at least 1", cs.WalletBalance)
	}
	if cs.Seed == "" {
		c.Fail("testnet.cosmos.seed", "give a seed: the wallets are derived from it")
	}
	switch {
	case len(cs.Accounts) > 0 && external:
		c.Fail("testnet.cosmos.accounts", "accounts are funded in genesis, which an external network made long ago: fund them yourself")
	case len(cs.Accounts) > maxAccounts:
		c.Fail("testnet.cosmos.accounts", "%d addresses: at most %d (the load's own are wallets)", len(cs.Accounts), maxAccounts)
	default:
		for i, a := range cs.Accounts {
			if _, _, err := DecodeBech32(a); err != nil {
				c.Fail(fmt.Sprintf("testnet.cosmos.accounts[%d]", i), "%q is not a bech32 address: %v", printable.Clean(cut(a, 100)), err)
			}
		}
	}
	switch {
	case external && !cs.Funded():
		c.Fail("testnet.cosmos.funder_mnemonic_file", "an external network's wallets are funded by an account you give: set funder_mnemonic_file (a file holding its mnemonic) or funder_mnemonic_env (a variable holding it)")
	case external && cs.FunderMnemonicFile != "" && cs.FunderMnemonicEnv != "":
		c.Fail("testnet.cosmos.funder_mnemonic_env", "give the funder's mnemonic once: funder_mnemonic_file or funder_mnemonic_env, not both")
	case !external && cs.Funded():
		c.Fail("testnet.cosmos.funder_mnemonic_file", "a funder is for provider \"external\": a testnet chainperf makes funds its wallets in genesis")
	case external && cs.Servers:
		c.Fail("testnet.cosmos.servers", "for testnets chainperf starts: an external network's servers are its own")
	case !external && cs.SweepBack:
		c.Fail("testnet.cosmos.sweep_back", "for provider \"external\" only: a testnet chainperf makes is removed after the run")
	}
	c.EnvName("testnet.cosmos.funder_mnemonic_env", cs.FunderMnemonicEnv)
	if !hdPathRE.MatchString(cs.FunderHDPath) {
		c.Fail("testnet.cosmos.funder_hd_path", "%q: a BIP-32 path such as \"m/44'/118'/0'/0/0\"", cs.FunderHDPath)
	}
}

func checkWorkload(s *scenario.Scenario, c *scenario.Checker) {
	w, cs := &s.Workload, Of(s.Testnet)
	c.OneOf("workload.mode", w.Mode, Modes)
	if w.Amount < 1 {
		c.Fail("workload.amount", "%d: must be at least 1", w.Amount)
	}
	if w.Kind == "cosmos-multisend" && (w.Outputs < 1 || w.Outputs > 1000) {
		c.Fail("workload.outputs", "%d: must be from 1 to 1000", w.Outputs)
	}
	if w.GasLimit < 0 {
		c.Fail("workload.gas_limit", "%d: 0 (simulate one tx) or a gas limit", w.GasLimit)
	}
	if w.Fee < -1 {
		c.Fail("workload.fee", "%d: -1 (gas_limit x gas_price) or an amount of %s", w.Fee, cs.Denom)
	}
	if w.Accounts == 1 || w.Accounts > cs.Wallets {
		c.Fail("workload.accounts", "%d: 0 (all %d wallets) or from 2 to testnet.cosmos.wallets", w.Accounts, cs.Wallets)
	}
	if len(w.ChainID) > 50 {
		c.Fail("workload.chain_id", "%q: at most 50 characters", w.ChainID)
	}
	if s.Load.Batch > 1 {
		c.Fail("load.batch", "%d: Cosmos workloads send one tx per request, so that each wallet's txs reach its one node in order", s.Load.Batch)
	}
	if w.MsgsPerTx < 0 || w.MsgsPerTx > 1000 {
		c.Fail("workload.msgs_per_tx", "%d: 0 or 1 (one message a tx) up to 1000", w.MsgsPerTx)
	}
	if w.Unordered && (w.UnorderedTimeout.D() < time.Second || w.UnorderedTimeout.D() > MaxUnorderedTimeout) {
		c.Fail("workload.unordered_timeout", "%s: from 1s to %s (the SDK refuses an unordered tx whose timeout lies more than 10m ahead)", w.UnorderedTimeout.D(), MaxUnorderedTimeout)
	}
	bound := checkSetup(s, c)
	checkMix(s, c, bound)
	checkReads(s, c, bound)
}

var readPathRE = regexp.MustCompile(`^/[A-Za-z0-9_.]{1,200}/[A-Za-z0-9_]{1,100}$`)

// checkReads checks the read load's rate and its queries of the chain's
// own.
func checkReads(s *scenario.Scenario, c *scenario.Checker, bound []string) {
	w := &s.Workload
	if !(w.ReadRate >= 0) || w.ReadRate > 100_000 {
		c.Fail("workload.read_rate", "%g: from 0 (no reads) to 100000 a second", w.ReadRate)
	}
	if len(w.Reads) > 0 && !(w.ReadRate > 0) {
		c.Fail("workload.read[0]", "queries go out with the read load: set workload.read_rate above 0")
	}
	seen := map[string]bool{}
	for i, r := range w.Reads {
		p := fmt.Sprintf("workload.read[%d]", i)
		if !templateNameRE.MatchString(r.Name) || seen[r.Name] {
			c.Fail(p+".name", "%q: a name of yours for the query, once, 1 to 32 lowercase letters, digits, '_' or '-'", r.Name)
		}
		seen[r.Name] = true
		if !readPathRE.MatchString(r.Path) {
			c.Fail(p+".path", "%q: a gRPC query method's path, \"/package.Query/Method\"", r.Path)
		}
		if _, err := msgtemplate.Syntax(r.Request, bound); err != nil {
			c.Fail(p+".request", "%v", err)
		}
	}
}

var (
	templateNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)
	eventAttrRE    = regexp.MustCompile(`^[A-Za-z0-9_./-]{1,64}\.[A-Za-z0-9_./-]{1,64}$`)
)

// checkSetup checks the set-up steps and returns the names they bind.
func checkSetup(s *scenario.Scenario, c *scenario.Checker) []string {
	w, cs := &s.Workload, Of(s.Testnet)
	var bound []string
	for i, st := range w.Setup {
		p := fmt.Sprintf("workload.setup[%d]", i)
		if _, err := msgtemplate.Syntax(st.Msg, bound); err != nil {
			c.Fail(p+".msg", "%v", err)
		}
		if st.Count < 0 || st.Count > 100 {
			c.Fail(p+".count", "%d: 0 or 1 (once) up to 100", st.Count)
		}
		for _, name := range slices.Sorted(maps.Keys(st.Bind)) {
			switch attr := st.Bind[name]; {
			case slices.Contains(msgtemplate.Builtins, name) || !templateNameRE.MatchString(name):
				c.Fail(p+".bind."+name, "%q: a placeholder's name, 1 to 32 lowercase letters, digits, '_' or '-', none of the built-in ones (%s)", name, strings.Join(msgtemplate.Builtins, ", "))
			case slices.Contains(bound, name):
				c.Fail(p+".bind."+name, "%q is bound by an earlier step: give each name once", name)
			case !eventAttrRE.MatchString(attr):
				c.Fail(p+".bind."+name, "%q: an event's type and attribute, \"type.attribute\" (e.g. \"instantiate._contract_address\")", attr)
			}
			bound = append(bound, name)
		}
	}
	if len(w.Setup) > 0 && cs.Wallets < 3 {
		c.Fail("testnet.cosmos.wallets", "%d: set-up steps send from a wallet of their own, the last: 3 or more", cs.Wallets)
	}
	if len(w.Setup) > 0 && w.Accounts >= cs.Wallets {
		c.Fail("workload.accounts", "%d: set-up steps take the last wallet: at most testnet.cosmos.wallets - 1 (0: all the others)", w.Accounts)
	}
	return bound
}

// checkMix checks a cosmos-mix's message kinds (and that no other kind
// lists a mix); a template may use the names set-up steps bind.
func checkMix(s *scenario.Scenario, c *scenario.Checker, bound []string) {
	w := &s.Workload
	if w.Kind != "cosmos-mix" {
		c.NoMix(w)
		return
	}
	if len(w.Mix) == 0 {
		c.Fail("workload.mix", "a cosmos-mix lists its message kinds: [[workload.mix]] msg = \"send\", weight = 70 ...")
	}
	seen := c.MixEntries(w.Mix, MixMsgs, "message kind", func(p string, m scenario.MixEntry) {
		if m.Template != "" {
			if slices.Contains(MixMsgs, m.Msg) || !templateNameRE.MatchString(m.Msg) {
				c.Fail(p+".msg", "%q: a templated message's name of yours, 1 to 32 lowercase letters, digits, '_' or '-', none of chainperf's own kinds (%s)", m.Msg, strings.Join(MixMsgs, ", "))
			}
			if _, err := msgtemplate.Syntax(m.Template, bound); err != nil {
				c.Fail(p+".template", "%v", err)
			}
			if m.Amount != 0 || m.Outputs != 0 || m.Validator != nil {
				c.Fail(p+".amount", "a templated message gives its own amounts and addresses: leave out amount, outputs and validator")
			}
			return
		}
		if m.Outputs < 0 || m.Outputs > 1000 {
			c.Fail(p+".outputs", "%d: 0 (workload.outputs) up to 1000", m.Outputs)
		}
		staking := m.Msg == "delegate" || m.Msg == "undelegate" || m.Msg == "redelegate"
		if m.Validator != nil && (!staking || *m.Validator < 0 || *m.Validator >= max(s.Testnet.Validators, 1)) {
			c.Fail(p+".validator", "%d: for staking messages, a validator index from 0 to %d", *m.Validator, s.Testnet.Validators-1)
		}
		if m.Msg == "redelegate" && s.Testnet.Provider != scenario.ProviderExternal && s.Testnet.Validators < 2 {
			c.Fail(p+".msg", "redelegate needs 2 validators or more (testnet.validators = %d)", s.Testnet.Validators)
		}
	})
	if (seen["undelegate"] || seen["redelegate"]) && !seen["delegate"] {
		c.Fail("workload.mix", "undelegate and redelegate need delegate in the mix: a wallet has stake to move only once it delegated")
	}
}
