package scenario

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/build"
	"golang.org/x/mod/module"
)

// validateWorkload checks [workload].
func (s *Scenario) validateWorkload(c *checker) {
	t := &s.Testnet
	w := &s.Workload
	c.oneOf("workload.kind", w.Kind, WorkloadKinds)
	switch {
	case w.IsCosmos():
		s.validateCosmosWorkload(c)
	case w.IsEVM():
		s.validateEVMWorkload(c)
	case t.Chain == "cosmos":
		c.fail("workload.kind", "%q sends kvstore txs, which a Cosmos SDK chain rejects: use cosmos-send or cosmos-multisend", w.Kind)
	case t.Chain == "evm":
		c.fail("workload.kind", "%q sends kvstore txs, which a Cosmos EVM chain rejects: use evm-transfer or evm-erc20", w.Kind)
	}
	if !w.IsEVM() && w.ReadRate != 0 {
		c.fail("workload.read_rate", "%g: for EVM workloads (reads go to the nodes' JSON-RPC)", w.ReadRate)
	}
	if !w.IsEVM() && w.InFlightPerAccount != 1 {
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

func (s *Scenario) validateCosmos(c *checker) {
	t, cs := &s.Testnet, &s.Testnet.Cosmos
	if t.Binary != "" || t.Build.Dir != "" {
		c.fail("testnet.binary", "a Cosmos SDK chain names its binary in testnet.cosmos.binary")
	}
	if t.Provider == ProviderExternal && (cs.Binary != "" || cs.Build.Dir != "" || len(cs.Replace) > 0) {
		c.fail("testnet.cosmos.binary", "chainperf starts no node of an external network: leave out its binary, build and replace")
	} else {
		validateApp(c, "testnet.cosmos", cs.Binary, cs.Build, cs.Replace)
	}
	if len(cs.StartArgs) == 0 {
		c.fail("testnet.cosmos.start_args", "the chain needs its start arguments, e.g. [\"start\", \"--home\", \"{home}\"]")
	}
	if cs.Denom != "" && !denomRE.MatchString(cs.Denom) {
		c.fail("testnet.cosmos.denom", "%q: 3 to 128 characters, a letter first, then letters, digits, '/', ':', '.', '_' or '-' (or \"\": the chain's own)", cs.Denom)
	}
	if cs.Bech32Prefix != "" && !prefixRE.MatchString(cs.Bech32Prefix) {
		c.fail("testnet.cosmos.bech32_prefix", "%q: 1 to 40 lowercase letters (or \"\": the chain's own)", cs.Bech32Prefix)
	}
	if !(cs.GasPrice >= 0) || cs.GasPrice > 1e9 {
		c.fail("testnet.cosmos.gas_price", "%g: must be from 0 to 1e9", cs.GasPrice)
	}
	if cs.Stake < 1 {
		c.fail("testnet.cosmos.stake", "%d: must be at least 1", cs.Stake)
	}
	if cs.Wallets < 2 || cs.Wallets > MaxWallets {
		c.fail("testnet.cosmos.wallets", "%d: must be from 2 (a sender and a receiver) to %d", cs.Wallets, MaxWallets)
	}
	if cs.WalletBalance < 1 {
		c.fail("testnet.cosmos.wallet_balance", "%d: must be at least 1", cs.WalletBalance)
	}
	if cs.Seed == "" {
		c.fail("testnet.cosmos.seed", "give a seed: the wallets are derived from it")
	}
	external := t.Provider == ProviderExternal
	switch {
	case external && !cs.Funded():
		c.fail("testnet.cosmos.funder_mnemonic_file", "an external network's wallets are funded by an account you give: set funder_mnemonic_file (a file holding its mnemonic) or funder_mnemonic_env (a variable holding it)")
	case external && cs.FunderMnemonicFile != "" && cs.FunderMnemonicEnv != "":
		c.fail("testnet.cosmos.funder_mnemonic_env", "give the funder's mnemonic once: funder_mnemonic_file or funder_mnemonic_env, not both")
	case !external && cs.Funded():
		c.fail("testnet.cosmos.funder_mnemonic_file", "a funder is for provider \"external\": a testnet chainperf makes funds its wallets in genesis")
	case !external && cs.SweepBack:
		c.fail("testnet.cosmos.sweep_back", "for provider \"external\" only: a testnet chainperf makes is removed after the run")
	}
	if cs.FunderMnemonicEnv != "" && !envRE.MatchString(cs.FunderMnemonicEnv) {
		c.fail("testnet.cosmos.funder_mnemonic_env", "%q: the name of an environment variable (letters, digits, '_')", cs.FunderMnemonicEnv)
	}
	if !hdPathRE.MatchString(cs.FunderHDPath) {
		c.fail("testnet.cosmos.funder_hd_path", "%q: a BIP-32 path such as \"m/44'/118'/0'/0/0\"", cs.FunderHDPath)
	}
}

func (s *Scenario) validateEVM(c *checker) {
	t, e := &s.Testnet, &s.Testnet.EVM
	if t.Binary != "" || t.Build.Dir != "" {
		c.fail("testnet.binary", "a Cosmos EVM chain names its binary in testnet.evm.binary")
	}
	external := t.Provider == ProviderExternal
	if external && (e.Binary != "" || e.Build.Dir != "" || len(e.Replace) > 0) {
		c.fail("testnet.evm.binary", "chainperf starts no node of an external network: leave out its binary, build and replace")
	} else {
		validateApp(c, "testnet.evm", e.Binary, e.Build, e.Replace)
	}
	switch {
	case external && !e.Funded():
		c.fail("testnet.evm.funder_key_file", "an external network's wallets are funded by an account you give: set funder_key_file (a file holding its hex private key) or funder_key_env (a variable holding it)")
	case external && e.FunderKeyFile != "" && e.FunderKeyEnv != "":
		c.fail("testnet.evm.funder_key_env", "give the funder's key once: funder_key_file or funder_key_env, not both")
	case !external && e.Funded():
		c.fail("testnet.evm.funder_key_file", "a funder is for provider \"external\": a testnet chainperf makes funds its wallets in genesis")
	case !external && e.SweepBack:
		c.fail("testnet.evm.sweep_back", "for provider \"external\" only: a testnet chainperf makes is removed after the run")
	}
	if e.FunderKeyEnv != "" && !envRE.MatchString(e.FunderKeyEnv) {
		c.fail("testnet.evm.funder_key_env", "%q: the name of an environment variable (letters, digits, '_')", e.FunderKeyEnv)
	}
	if external {
		served := 0
		for i, n := range t.Nodes {
			if n.JSONRPC != "" {
				served++
			} else if e.SendVia == "json-rpc" {
				c.fail(fmt.Sprintf("testnet.node[%d].json_rpc", i), "testnet.evm.send_via = \"json-rpc\" sends to the nodes' JSON-RPC: give each node's URL")
			}
		}
		if served == 0 {
			c.fail("testnet.node", "an EVM network's checks read its JSON-RPC: give json_rpc (e.g. \"http://10.0.0.5:8545\") for at least one node")
		}
	}
	if len(e.StartArgs) == 0 {
		c.fail("testnet.evm.start_args", "the chain needs its start arguments, e.g. [\"start\", \"--home\", \"{home}\"]")
	}
	// EIP-155 puts chain_id*2+36 in a uint64 v; wallets' keys sign for it.
	if e.ChainID < 1 || e.ChainID > 1<<53 {
		c.fail("testnet.evm.chain_id", "%d: must be from 1 to 2^53", e.ChainID)
	}
	if !denomRE.MatchString(e.Denom) {
		c.fail("testnet.evm.denom", "%q: 3 to 128 characters, a letter first, then letters, digits, '/', ':', '.', '_' or '-'", e.Denom)
	}
	if !denomRE.MatchString(e.Display) || e.Display == e.Denom {
		c.fail("testnet.evm.display", "%q: a denom other than testnet.evm.denom (its whole unit, 10^18 of it)", e.Display)
	}
	if e.Stake < 1 || e.Stake > 1e9 {
		c.fail("testnet.evm.stake", "%d: must be from 1 to 1e9 whole tokens", e.Stake)
	}
	if e.Wallets < 2 || e.Wallets > MaxWallets {
		c.fail("testnet.evm.wallets", "%d: must be from 2 (a sender and a receiver) to %d", e.Wallets, MaxWallets)
	}
	if e.WalletBalance < 1 || e.WalletBalance > 1e12 {
		c.fail("testnet.evm.wallet_balance", "%d: must be from 1 to 1e12 whole tokens", e.WalletBalance)
	}
	if e.Seed == "" {
		c.fail("testnet.evm.seed", "give a seed: the wallets are derived from it")
	}
	if e.MaxFee < 1 || e.MaxFee > 1e15 {
		c.fail("testnet.evm.max_fee", "%d: must be from 1 to 1e15 wei per gas", e.MaxFee)
	}
	if e.Tip > e.MaxFee {
		c.fail("testnet.evm.tip", "%d: above max_fee (%d), which no tx can pay", e.Tip, e.MaxFee)
	}
	if e.TokenBalance < 0 || e.TokenBalance > 1e12 {
		c.fail("testnet.evm.token_balance", "%d: must be from 0 to 1e12 whole tokens", e.TokenBalance)
	}
	c.oneOf("testnet.evm.send_via", e.SendVia, []string{"cometbft", "json-rpc"})
	c.oneOf("testnet.evm.mempool", e.Mempool, EVMMempools)
	switch r := e.PoolReads.D(); {
	case r == 0:
	case r < 100*time.Millisecond || r > time.Minute:
		c.fail("testnet.evm.pool_reads", "%s: from 100ms to 1m, or 0 for none (each read costs every load node the whole pool's listing)", r)
	case e.Mempool != "app":
		c.fail("testnet.evm.pool_reads", "%s: the pool read is the application-side mempool's (txpool_inspect); set mempool = \"app\" or pool_reads = \"0s\"", r)
	case e.Funded():
		c.fail("testnet.evm.pool_reads", "%s: for testnets chainperf starts (an external network's nodes may not serve txpool_inspect)", r)
	}
	if e.SendVia == "json-rpc" && s.Load.Method != "sync" {
		c.fail("load.method", "%q: eth_sendRawTransaction answers after CheckTx, as broadcast_tx_sync does; with testnet.evm.send_via = \"json-rpc\" the method is \"sync\"", s.Load.Method)
	}
}

func (s *Scenario) validateEVMWorkload(c *checker) {
	w, e := &s.Workload, &s.Testnet.EVM
	if s.Testnet.Chain != "evm" {
		c.fail("workload.kind", "%q needs a Cosmos EVM chain: set testnet.chain = \"evm\"", w.Kind)
		return
	}
	c.oneOf("workload.mode", w.Mode, EVMModes)
	if w.Amount < 0 {
		c.fail("workload.amount", "%d: an amount of wei, 0 or more", w.Amount)
	}
	if w.Accounts != 0 && (w.Accounts < 2 || w.Accounts > e.Wallets) {
		c.fail("workload.accounts", "%d: 0 (all %d wallets) or from 2 to testnet.evm.wallets", w.Accounts, e.Wallets)
	}
	if id, err := strconv.ParseUint(w.ChainID, 10, 64); w.ChainID != "" && (err != nil || id < 1 || id > 1<<53) {
		c.fail("workload.chain_id", "%q: an EVM chain ID to sign for, from 1 to 2^53 (\"\" is testnet.evm.chain_id)", w.ChainID)
	}
	if s.Load.Batch > 1 {
		c.fail("load.batch", "%d: EVM workloads send one tx per request, so that each account's txs reach its one node in order", s.Load.Batch)
	}
	if n := w.InFlightPerAccount; n < 1 || n > MaxInFlightPerAccount {
		c.fail("workload.in_flight_per_account", "%d: from 1 (one tx of an account at a time) to %d", n, MaxInFlightPerAccount)
	}
	if w.Mode == "persistent" && w.InFlightPerAccount > 1 {
		c.fail("workload.in_flight_per_account", "%d: persistent execution sends one tx per account at a time, read from the chain after the last is in a block (leave it 1)", w.InFlightPerAccount)
	}
	if !(w.ReadRate >= 0 && w.ReadRate <= 10000) {
		c.fail("workload.read_rate", "%g: from 0 (no reads) to 10000 reads a second", w.ReadRate)
	}
	s.validateMix(c)
}

// validateEVMMix checks an evm-mix's kinds: each once, a weight, no
// Cosmos message settings.
func (s *Scenario) validateEVMMix(c *checker) {
	w := &s.Workload
	if len(w.Mix) == 0 {
		c.fail("workload.mix", "an evm-mix lists its tx kinds: [[workload.mix]] msg = \"native\", weight = 70 ...")
	}
	c.mixEntries(w.Mix, EVMMixMsgs, "tx kind", func(p string, m MixEntry) {
		if m.Outputs != 0 || m.Validator != nil {
			c.fail(p+".msg", "outputs and validator are for cosmos-mix messages, not EVM txs")
		}
		switch {
		case (m.Msg == "store" || m.Msg == "deploy") && m.Amount != 0:
			c.fail(p+".amount", "%d: %s txs move no value: leave amount out", m.Amount, m.Msg)
		case m.Msg == "burn" && m.Amount > maxBurnTurns:
			c.fail(p+".amount", "%d: a burn's turns of its loop (40 gas each), at most %d", m.Amount, maxBurnTurns)
		case m.Msg == "burn" && m.Amount == 0 && (w.Amount < 1 || w.Amount > maxBurnTurns):
			c.fail(p+".amount", "a burn's turns of its loop (40 gas each), from 1 to %d (workload.amount is %d)", maxBurnTurns, w.Amount)
		}
	})
}

// mixEntries checks what every mix entry needs (a kind of kinds, given
// once, a weight, an amount of 0 or more), then each entry's own with
// each, and returns the kinds given.
func (c *checker) mixEntries(mix []MixEntry, kinds []string, noun string, each func(p string, m MixEntry)) map[string]bool {
	seen := map[string]bool{}
	for i, m := range mix {
		p := fmt.Sprintf("workload.mix[%d]", i)
		c.oneOf(p+".msg", m.Msg, kinds)
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

func (s *Scenario) validateCosmosWorkload(c *checker) {
	w, cs := &s.Workload, &s.Testnet.Cosmos
	if s.Testnet.Chain != "cosmos" {
		c.fail("workload.kind", "%q needs a Cosmos SDK chain: set testnet.chain = \"cosmos\"", w.Kind)
		return
	}
	c.oneOf("workload.mode", w.Mode, CosmosModes)
	if w.Amount < 1 {
		c.fail("workload.amount", "%d: must be at least 1", w.Amount)
	}
	if w.Kind == "cosmos-multisend" && (w.Outputs < 1 || w.Outputs > 1000) {
		c.fail("workload.outputs", "%d: must be from 1 to 1000", w.Outputs)
	}
	if w.GasLimit < 0 {
		c.fail("workload.gas_limit", "%d: 0 (simulate one tx) or a gas limit", w.GasLimit)
	}
	if w.Fee < -1 {
		c.fail("workload.fee", "%d: -1 (gas_limit x gas_price) or an amount of %s", w.Fee, cs.Denom)
	}
	if w.Accounts == 1 || w.Accounts > cs.Wallets {
		c.fail("workload.accounts", "%d: 0 (all %d wallets) or from 2 to testnet.cosmos.wallets", w.Accounts, cs.Wallets)
	}
	if len(w.ChainID) > 50 {
		c.fail("workload.chain_id", "%q: at most 50 characters", w.ChainID)
	}
	if s.Load.Batch > 1 {
		c.fail("load.batch", "%d: Cosmos workloads send one tx per request, so that each wallet's txs reach its one node in order", s.Load.Batch)
	}
	if w.MsgsPerTx < 0 || w.MsgsPerTx > 1000 {
		c.fail("workload.msgs_per_tx", "%d: 0 or 1 (one message a tx) up to 1000", w.MsgsPerTx)
	}
	if w.Unordered && (w.UnorderedTimeout.D() < time.Second || w.UnorderedTimeout.D() > MaxUnorderedTimeout) {
		c.fail("workload.unordered_timeout", "%s: from 1s to %s (the SDK refuses an unordered tx whose timeout lies more than 10m ahead)", w.UnorderedTimeout.D(), MaxUnorderedTimeout)
	}
	s.validateMix(c)
}

// validateMix checks a cosmos-mix's or an evm-mix's message kinds.
func (s *Scenario) validateMix(c *checker) {
	w := &s.Workload
	if w.Kind == "evm-mix" {
		s.validateEVMMix(c)
		return
	}
	if w.Kind != "cosmos-mix" {
		if len(w.Mix) > 0 {
			c.fail("workload.mix[0]", "for kinds \"cosmos-mix\" and \"evm-mix\" only (kind is %q)", w.Kind)
		}
		return
	}
	if len(w.Mix) == 0 {
		c.fail("workload.mix", "a cosmos-mix lists its message kinds: [[workload.mix]] msg = \"send\", weight = 70 ...")
	}
	seen := c.mixEntries(w.Mix, MixMsgs, "message kind", func(p string, m MixEntry) {
		if m.Outputs < 0 || m.Outputs > 1000 {
			c.fail(p+".outputs", "%d: 0 (workload.outputs) up to 1000", m.Outputs)
		}
		staking := m.Msg == "delegate" || m.Msg == "undelegate" || m.Msg == "redelegate"
		if m.Validator != nil && (!staking || *m.Validator < 0 || *m.Validator >= max(s.Testnet.Validators, 1)) {
			c.fail(p+".validator", "%d: for staking messages, a validator index from 0 to %d", *m.Validator, s.Testnet.Validators-1)
		}
		if m.Msg == "redelegate" && s.Testnet.Provider != ProviderExternal && s.Testnet.Validators < 2 {
			c.fail(p+".msg", "redelegate needs 2 validators or more (testnet.validators = %d)", s.Testnet.Validators)
		}
	})
	if (seen["undelegate"] || seen["redelegate"]) && !seen["delegate"] {
		c.fail("workload.mix", "undelegate and redelegate need delegate in the mix: a wallet has stake to move only once it delegated")
	}
}

// validateApp checks where a chain application comes from: a path, a
// release ("module:PKG@VERSION"), or a git tree at a ref; and the
// dependencies its build replaces.
func validateApp(c *checker, key, binary string, b AppBuild, replace map[string]string) {
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
func (s *Scenario) validateSettings(c *checker) {
	t := &s.Testnet
	sdk := t.Chain == "cosmos" || t.Chain == "evm"
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
