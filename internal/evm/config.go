package evm

import (
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/chainperf/chainperf/internal/scenario"
)

// defaults is the [testnet.evm] table of the built-in default scenario.
//
//go:embed default.toml
var defaults []byte

func init() {
	scenario.RegisterChain(scenario.ChainSection{
		Name:     "evm",
		Is:       "a Cosmos EVM chain",
		Defaults: defaults,
		New:      func() any { return new(Config) },
		// Its runs signed live before it had a pregenerate mode (and
		// pregeneration cannot repair nonces).
		Mode:          "live",
		Workloads:     []string{"evm-transfer", "evm-erc20", "evm-mix"},
		WorkloadKeys:  []string{"read_rate", "in_flight_per_account"},
		Check:         check,
		CheckWorkload: checkWorkload,
		Describe: func(s *scenario.Scenario) string {
			w := s.Workload
			what := map[string]string{"evm-transfer": fmt.Sprintf(" of %d wei", w.Amount), "evm-erc20": fmt.Sprintf(" of %d token units", w.Amount)}[w.Kind]
			return fmt.Sprintf("%s%s from %d Ethereum accounts", w.Kind, what, Of(s.Testnet).Wallets)
		},
		App: func(sec any) scenario.AppRef {
			c := sec.(*Config)
			return scenario.AppRef{Key: "testnet.evm", Binary: &c.Binary, Build: &c.Build, Replace: &c.Replace, StartArgs: &c.StartArgs,
				TestChain: "chainperf-evmd", TestChainIs: "chainperf's Cosmos EVM test chain"}
		},
	})
}

// Of is testnet t's [testnet.evm] table (zero when t was not decoded from
// a scenario); a copy: set it with t.SetSection("evm", &c).
func Of(t scenario.Testnet) Config { return scenario.SectionOf[Config](t, "evm") }

// Config is a Cosmos EVM chain's [testnet.evm] table: its application
// and the Ethereum accounts funded in its genesis.
type Config struct {
	// Binary is "" for chainperf's test chain (chainperf-evmd, found or
	// built), else the path of a Cosmos EVM chain binary (evmd, ...) or a
	// release ("module:PKG@VERSION"); Build and Replace as for Cosmos.
	Binary    string            `toml:"binary"`
	Build     scenario.AppBuild `toml:"build"`
	Replace   map[string]string `toml:"replace"`
	StartArgs []string          `toml:"start_args"`
	// ChainID is the EVM chain ID (EIP-155) txs are signed for.
	ChainID uint64 `toml:"chain_id"`
	// Denom is the 18-decimal gas token, Display its whole unit.
	Denom   string `toml:"denom"`
	Display string `toml:"display"`
	// Stake is each validator's self-delegation in whole tokens (10^18
	// denom) per unit of voting power.
	Stake int64 `toml:"stake"`
	// Wallets are derived from Seed and funded with WalletBalance whole
	// tokens each.
	Wallets       int    `toml:"wallets"`
	WalletBalance int64  `toml:"wallet_balance"`
	Seed          string `toml:"seed"`
	// MaxFee is the fee cap per unit of gas in wei (the gas price of a
	// legacy tx), Tip the priority fee; Legacy signs EIP-155 legacy txs
	// instead of EIP-1559 dynamic-fee ones.
	MaxFee uint64 `toml:"max_fee"`
	Tip    uint64 `toml:"tip"`
	Legacy bool   `toml:"legacy"`
	// TokenBalance is each wallet's ERC20 tokens (whole tokens of 18
	// decimals) after the evm-erc20 workload's token is deployed.
	TokenBalance int64 `toml:"token_balance"`
	// SendVia is how txs reach the nodes: "cometbft" (broadcast_tx_sync,
	// in the Cosmos envelope) or "json-rpc" (eth_sendRawTransaction).
	SendVia string `toml:"send_via"`
	// Mempool is "app" (Cosmos EVM's application-side mempool) or
	// "cometbft" (CometBFT's alone), set by app.toml's mempool.max-txs.
	Mempool string `toml:"mempool"`
	// PoolReads: how often each load node's application-side mempool is
	// read (txpool_inspect) to follow the load's txs in it; 0: never.
	PoolReads scenario.Duration `toml:"pool_reads"`
	// FunderKeyFile or FunderKeyEnv hold the hex private key of the account
	// that funds the wallets on an external network; SweepBack sends what
	// they hold back to it after the run.
	FunderKeyFile string `toml:"funder_key_file"`
	FunderKeyEnv  string `toml:"funder_key_env"`
	SweepBack     bool   `toml:"sweep_back"`
}

// GenesisWallet is wallet 0 of an EVM testnet chainperf makes (funded
// in its genesis) and the seed it is derived from; an error for a testnet
// of another chain.
func GenesisWallet(t scenario.Testnet) (Wallet, string, error) {
	if t.Chain != "evm" {
		return Wallet{}, "", fmt.Errorf("the scenario's chain is %q: only an EVM testnet (chain = \"evm\") has a genesis wallet whose key this writes", t.Chain)
	}
	seed := Of(t).Seed
	return Derive(seed, 0), seed, nil
}

// Funded says whether the EVM wallets are funded by a given account at
// the start, not in genesis.
func (e Config) Funded() bool { return e.FunderKeyFile != "" || e.FunderKeyEnv != "" }

// Modes are how an EVM workload signs: every tx before its phase, each
// when due, or each after the account's last is in a block.
var Modes = []string{"pregenerate", "live", "persistent"}

// Mempools are the mempools an EVM testnet can order its txs with.
var Mempools = []string{"app", "cometbft"}

// MaxInFlightPerAccount bounds an EVM account's txs in flight at once
// (Cosmos EVM's legacy pool queues 64 a account by default).
const MaxInFlightPerAccount = 64

// MixMsgs are the kinds of tx an evm-mix draws from.
var MixMsgs = []string{"native", "erc20", "store", "burn", "deploy"}

func check(s *scenario.Scenario, c *scenario.Checker) {
	t, e := &s.Testnet, Of(s.Testnet)
	if t.Binary != "" || t.Build.Dir != "" {
		c.Fail("testnet.binary", "a Cosmos EVM chain names its binary in testnet.evm.binary")
	}
	external := t.Provider == scenario.ProviderExternal
	if external && (e.Binary != "" || e.Build.Dir != "" || len(e.Replace) > 0) {
		c.Fail("testnet.evm.binary", "chainperf starts no node of an external network: leave out its binary, build and replace")
	} else {
		c.App("testnet.evm", e.Binary, e.Build, e.Replace)
	}
	checkExternal(t, e, c)
	if len(e.StartArgs) == 0 {
		c.Fail("testnet.evm.start_args", "the chain needs its start arguments, e.g. [\"start\", \"--home\", \"{home}\"]")
	}
	// EIP-155 puts chain_id*2+36 in a uint64 v; wallets' keys sign for it.
	if e.ChainID < 1 || e.ChainID > 1<<53 {
		c.Fail("testnet.evm.chain_id", "%d: must be from 1 to 2^53", e.ChainID)
	}
	if !scenario.IsDenom(e.Denom) {
		c.Fail("testnet.evm.denom", "%q: 3 to 128 characters, a letter first, then letters, digits, '/', ':', '.', '_' or '-'", e.Denom)
	}
	if !scenario.IsDenom(e.Display) || e.Display == e.Denom {
		c.Fail("testnet.evm.display", "%q: a denom other than testnet.evm.denom (its whole unit, 10^18 of it)", e.Display)
	}
	if e.Stake < 1 || e.Stake > 1e9 {
		c.Fail("testnet.evm.stake", "%d: must be from 1 to 1e9 whole tokens", e.Stake)
	}
	if e.Wallets < 2 || e.Wallets > scenario.MaxWallets {
		c.Fail("testnet.evm.wallets", "%d: must be from 2 (a sender and a receiver) to %d", e.Wallets, scenario.MaxWallets)
	}
	if e.WalletBalance < 1 || e.WalletBalance > 1e12 {
		c.Fail("testnet.evm.wallet_balance", "%d: must be from 1 to 1e12 whole tokens", e.WalletBalance)
	}
	if e.Seed == "" {
		c.Fail("testnet.evm.seed", "give a seed: the wallets are derived from it")
	}
	if e.MaxFee < 1 || e.MaxFee > 1e15 {
		c.Fail("testnet.evm.max_fee", "%d: must be from 1 to 1e15 wei per gas", e.MaxFee)
	}
	if e.Tip > e.MaxFee {
		c.Fail("testnet.evm.tip", "%d: above max_fee (%d), which no tx can pay", e.Tip, e.MaxFee)
	}
	if e.TokenBalance < 0 || e.TokenBalance > 1e12 {
		c.Fail("testnet.evm.token_balance", "%d: must be from 0 to 1e12 whole tokens", e.TokenBalance)
	}
	c.OneOf("testnet.evm.send_via", e.SendVia, []string{"cometbft", "json-rpc"})
	c.OneOf("testnet.evm.mempool", e.Mempool, Mempools)
	switch r := e.PoolReads.D(); {
	case r == 0:
	case r < 100*time.Millisecond || r > time.Minute:
		c.Fail("testnet.evm.pool_reads", "%s: from 100ms to 1m, or 0 for none (each read costs every load node the whole pool's listing)", r)
	case e.Mempool != "app":
		c.Fail("testnet.evm.pool_reads", "%s: the pool read is the application-side mempool's (txpool_inspect); set mempool = \"app\" or pool_reads = \"0s\"", r)
	case e.Funded():
		c.Fail("testnet.evm.pool_reads", "%s: for testnets chainperf starts (an external network's nodes may not serve txpool_inspect)", r)
	}
	if e.SendVia == "json-rpc" && s.Load.Method != "sync" {
		c.Fail("load.method", "%q: eth_sendRawTransaction answers after CheckTx, as broadcast_tx_sync does; with testnet.evm.send_via = \"json-rpc\" the method is \"sync\"", s.Load.Method)
	}
}

func checkWorkload(s *scenario.Scenario, c *scenario.Checker) {
	w, e := &s.Workload, Of(s.Testnet)
	c.OneOf("workload.mode", w.Mode, Modes)
	if w.Amount < 0 {
		c.Fail("workload.amount", "%d: an amount of wei, 0 or more", w.Amount)
	}
	if w.Accounts != 0 && (w.Accounts < 2 || w.Accounts > e.Wallets) {
		c.Fail("workload.accounts", "%d: 0 (all %d wallets) or from 2 to testnet.evm.wallets", w.Accounts, e.Wallets)
	}
	if id, err := strconv.ParseUint(w.ChainID, 10, 64); w.ChainID != "" && (err != nil || id < 1 || id > 1<<53) {
		c.Fail("workload.chain_id", "%q: an EVM chain ID to sign for, from 1 to 2^53 (\"\" is testnet.evm.chain_id)", w.ChainID)
	}
	if s.Load.Batch > 1 {
		c.Fail("load.batch", "%d: EVM workloads send one tx per request, so that each account's txs reach its one node in order", s.Load.Batch)
	}
	if n := w.InFlightPerAccount; n < 1 || n > MaxInFlightPerAccount {
		c.Fail("workload.in_flight_per_account", "%d: from 1 (one tx of an account at a time) to %d", n, MaxInFlightPerAccount)
	}
	if w.Mode == "persistent" && w.InFlightPerAccount > 1 {
		c.Fail("workload.in_flight_per_account", "%d: persistent execution sends one tx per account at a time, read from the chain after the last is in a block (leave it 1)", w.InFlightPerAccount)
	}
	if !(w.ReadRate >= 0 && w.ReadRate <= 10000) {
		c.Fail("workload.read_rate", "%g: from 0 (no reads) to 10000 reads a second", w.ReadRate)
	}
	if w.Kind == "evm-mix" {
		checkMix(s, c)
	} else {
		c.NoMix(w)
	}
}

// checkMix checks an evm-mix's kinds: each once, a weight, no
// Cosmos message settings.
func checkMix(s *scenario.Scenario, c *scenario.Checker) {
	w := &s.Workload
	if len(w.Mix) == 0 {
		c.Fail("workload.mix", "an evm-mix lists its tx kinds: [[workload.mix]] msg = \"native\", weight = 70 ...")
	}
	c.MixEntries(w.Mix, MixMsgs, "tx kind", func(p string, m scenario.MixEntry) {
		if m.Outputs != 0 || m.Validator != nil {
			c.Fail(p+".msg", "outputs and validator are for cosmos-mix messages, not EVM txs")
		}
		switch {
		case (m.Msg == "store" || m.Msg == "deploy") && m.Amount != 0:
			c.Fail(p+".amount", "%d: %s txs move no value: leave amount out", m.Amount, m.Msg)
		case m.Msg == "burn" && m.Amount > MaxBurnTurns:
			c.Fail(p+".amount", "%d: a burn's turns of its loop (40 gas each), at most %d", m.Amount, MaxBurnTurns)
		case m.Msg == "burn" && m.Amount == 0 && (w.Amount < 1 || w.Amount > MaxBurnTurns):
			c.Fail(p+".amount", "a burn's turns of its loop (40 gas each), from 1 to %d (workload.amount is %d)", MaxBurnTurns, w.Amount)
		}
	})
}

// checkExternal checks the funder an external network needs (and a
// testnet chainperf makes must not have), and the nodes' JSON-RPC.
func checkExternal(t *scenario.Testnet, e Config, c *scenario.Checker) {
	external := t.Provider == scenario.ProviderExternal
	switch {
	case external && !e.Funded():
		c.Fail("testnet.evm.funder_key_file", "an external network's wallets are funded by an account you give: set funder_key_file (a file holding its hex private key) or funder_key_env (a variable holding it)")
	case external && e.FunderKeyFile != "" && e.FunderKeyEnv != "":
		c.Fail("testnet.evm.funder_key_env", "give the funder's key once: funder_key_file or funder_key_env, not both")
	case !external && e.Funded():
		c.Fail("testnet.evm.funder_key_file", "a funder is for provider \"external\": a testnet chainperf makes funds its wallets in genesis")
	case !external && e.SweepBack:
		c.Fail("testnet.evm.sweep_back", "for provider \"external\" only: a testnet chainperf makes is removed after the run")
	}
	c.EnvName("testnet.evm.funder_key_env", e.FunderKeyEnv)
	if external {
		served := 0
		for i, n := range t.Nodes {
			if n.JSONRPC != "" {
				served++
			} else if e.SendVia == "json-rpc" {
				c.Fail(fmt.Sprintf("testnet.node[%d].json_rpc", i), "testnet.evm.send_via = \"json-rpc\" sends to the nodes' JSON-RPC: give each node's URL")
			}
		}
		if served == 0 {
			c.Fail("testnet.node", "an EVM network's checks read its JSON-RPC: give json_rpc (e.g. \"http://10.0.0.5:8545\") for at least one node")
		}
	}
}
