package chain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/big"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/chainperf/chainperf/internal/cometcfg"
	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/evm"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/readload"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/sdkchain"
	"github.com/chainperf/chainperf/internal/testnet"
)

// EVM is a Cosmos EVM chain: chainperf-evmd (built from chains/evm when
// needed) or the scenario's Cosmos EVM binary, set up through its own CLI
// as a Cosmos SDK chain is, with its gas token in x/vm's genesis, a
// JSON-RPC server per node and Ethereum accounts funded in genesis; the
// evm-transfer, evm-erc20 and evm-mix workloads; funds, nonces and
// tokens checked after the run.
type EVM struct {
	s        *scenario.Scenario
	log      *slog.Logger
	binary   string
	t        *testnet.Testnet
	wallets  []evm.Wallet
	deployer evm.Wallet // funded like a wallet; deploys the evm-erc20 token
	rpc      string     // the CometBFT RPC of the node whose JSON-RPC the check reads
	record   EVMRecord
	work     *evm.Workload
	ext      *evmExternal    // on an external network
	reads    *readload.Reads // the read load beside the txs, if asked
	start    *big.Int        // the loaded wallets' and the deployer's wei at the start
	traces   string          // where the nodes send their spans; "": none
}

var (
	_ Adapter = (*EVM)(nil)
	_ Checker = (*EVM)(nil)
	_ Tracer  = (*EVM)(nil)
)

// TraceTo has Prepare set each node to send its spans to url.
func (e *EVM) TraceTo(url string) { e.traces = url }

// evmPrefix is the bech32 prefix Cosmos EVM chains use for accounts.
const evmPrefix = "cosmos"

func newEVM(ctx context.Context, s *scenario.Scenario, log *slog.Logger) (Adapter, error) {
	if s.Testnet.Provider == scenario.ProviderExternal {
		return &EVM{s: s, log: log}, nil // no binary: it runs no node
	}
	logf := func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }
	bin, err := sdkchain.EVMD.Find(ctx, evm.Of(s.Testnet).Binary, logf)
	if err != nil {
		return nil, err
	}
	return &EVM{s: s, log: log, binary: bin}, nil
}

// wei is n whole tokens of 18 decimals.
func wei(n int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(n), new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))
}

// Prepare runs the binary's init, gentx and collect-gentxs over the homes
// (app.toml: the EVM chain ID and the JSON-RPC server on the node's own
// ports), makes denom x/vm's gas token and funds the wallets in genesis.
func (e *EVM) Prepare(ctx context.Context, t *testnet.Testnet) error {
	spec := evm.Of(e.s.Testnet)
	e.t = t
	// Cosmos EVM v0.7's start sets --mempool.max-txs to 0 (the EVM
	// mempool on) over app.toml's value unless the flag is given: given
	// here as app.toml has it, where start takes it.
	t.Binary, t.Args = e.binary, spec.StartArgs
	if sdkchain.HasStartFlag(ctx, e.binary, "--mempool.max-txs") {
		t.Args = append(slices.Clone(spec.StartArgs), "--mempool.max-txs="+appMempoolTxs(spec.Mempool))
	}
	if err := sdkchain.CheckMemory("testnet.evm.wallets", spec.Wallets, len(t.Nodes)); err != nil {
		return err
	}
	if err := e.nodeConfig(ctx, t); err != nil {
		return err
	}
	q := strconv.Quote
	genesis, err := sdkchain.Init(ctx, t, e.binary, &sdkchain.Params{
		Denom: spec.Denom, Stake: wei(spec.Stake),
		AppToml: func(n *testnet.Node) map[string]string {
			return map[string]string{
				".minimum-gas-prices": q("0" + spec.Denom),
				"evm.evm-chain-id":    strconv.FormatUint(spec.ChainID, 10),
				"json-rpc.enable":     "true",
				"json-rpc.address":    q(net.JoinHostPort(n.Host, strconv.Itoa(n.Ports.JSONRPC))),
				"json-rpc.ws-address": q(net.JoinHostPort(n.Host, strconv.Itoa(n.Ports.JSONRPCWS))),
				"mempool.max-txs":     appMempoolTxs(spec.Mempool),
				// txpool: testnet.evm.pool_reads reads each node's mempool.
				"json-rpc.api": q("eth,net,web3,txpool"),
			}
		},
		Settings: e.settings(),
	})
	if err != nil {
		return err
	}
	if err := evm.EditGenesis(genesis, spec.Denom, spec.Display); err != nil {
		return err
	}
	began := time.Now()
	e.wallets = evm.Wallets(spec.Seed, spec.Wallets)
	e.deployer = evm.Derive(spec.Seed+"/deployer", 0)
	funded := append(e.wallets[:len(e.wallets):len(e.wallets)], e.deployer)
	_, size, err := cosmos.FundAccounts(genesis, len(funded), func(yield func(string) error) error {
		for _, w := range funded {
			addr, err := cosmos.Bech32(evmPrefix, w.Address[:])
			if err == nil {
				err = yield(addr)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}, spec.Denom, wei(spec.WalletBalance))
	if err != nil {
		return err
	}
	e.record = EVMRecord{Binary: e.binary, ChainID: spec.ChainID, Wallets: len(e.wallets),
		GenesisBytes: size, GenesisSecs: time.Since(began).Seconds()}
	return sdkchain.Distribute(t, genesis)
}

// nodeConfig makes the nodes' config.toml from the binary's own default
// (its CometBFT need not be the v0.38 chainperf embeds: chainperf-evmd's
// is v0.39) and, for the application-side mempool, sets mempool.type =
// "app" where that version has it: CometBFT then
// hands the txs it hears to the app's mempool and gossips what it reaps
// from it (Cosmos EVM refuses to start with the two out of step).
func (e *EVM) nodeConfig(ctx context.Context, t *testnet.Testnet) error {
	path, err := sdkchain.DefaultConfig(ctx, e.binary, filepath.Join(t.Dir, "defaults"), t.ChainID)
	if err != nil {
		return err
	}
	t.UseConfigOf(path)
	tmpl, err := cometcfg.ReadTemplate(path, filepath.Base(e.binary))
	if err != nil {
		return err
	}
	if _, set := t.Config["mempool.type"]; !set && hasAppMempool(tmpl) && evm.Of(e.s.Testnet).Mempool == "app" {
		t.Config = maps.Clone(t.Config)
		if t.Config == nil {
			t.Config = map[string]any{}
		}
		t.Config["mempool.type"] = "app"
	}
	return nil
}

// hasAppMempool says whether the CometBFT a default config belongs to has
// the application mempool (v0.39: its reap settings). A Cosmos EVM v0.6
// chain runs v0.38, which refuses the type; its app's CheckTx feeds the
// app's mempool itself.
func hasAppMempool(tmpl *cometcfg.Template) bool {
	return slices.Contains(tmpl.Keys(), "mempool.reap_interval")
}

// appMempoolTxs is app.toml's mempool.max-txs for the testnet's mempool:
// Cosmos EVM's application-side mempool is on from 0 up (its Cosmos txs'
// cap; evmd's switch), off at -1 (the SDK's default).
func appMempoolTxs(mempool string) string {
	if mempool == "app" {
		return "5000"
	}
	return "-1"
}

// Workload checks that every running node serves JSON-RPC for the chain
// (on an external network: reads the chain and funds the wallets from the
// funder) and makes the run's EVM workload over the funded wallets
// (deploying the token first when the mix sends ERC20 txs): one for all
// phases, since nonces carry over.
func (e *EVM) Workload(ctx context.Context, rpcs []string, r *results.Run) (load.Workload, error) {
	w, spec := e.s.Workload, evm.Of(e.s.Testnet)
	cfg := evm.WorkloadConfig{
		ChainID: spec.ChainID, Denom: spec.Denom, MaxFee: spec.MaxFee, Tip: spec.Tip, Legacy: spec.Legacy,
		Mix: mixOfEVM(w), MixSeed: w.Seed,
		PerAccount: w.InFlightPerAccount, AppMempool: spec.Mempool == "app",
		Pregenerate: w.Mode == "pregenerate", Persistent: w.Mode == "persistent",
		Targets: len(rpcs), RPCs: rpcs, Prefix: evmPrefix,
	}
	var urls []string // each load target's JSON-RPC, for send_via = "json-rpc"
	if spec.Funded() {
		cfg.JSONRPC = anyJSONRPC(e.s, rpcs)
		if err := e.setUpExternal(ctx, rpcs[0], cfg.JSONRPC); err != nil {
			return nil, err
		}
		cfg.ChainID, cfg.Denom, cfg.Prefix, cfg.Start, cfg.External = e.ext.chainID, e.ext.denom, e.ext.prefix, e.ext.start, true
		for _, rpc := range rpcs {
			urls = append(urls, externalJSONRPC(e.s, rpc))
		}
	} else {
		if err := e.checkJSONRPC(ctx); err != nil {
			return nil, err
		}
		for _, n := range e.t.RPCNodes() {
			urls = append(urls, nodeJSONRPC(n))
		}
		cfg.JSONRPC = urls[0]
		nodeVersion(r, e.binary)
	}
	// Set-up txs are signed for the chain's own ID; the load's for
	// workload.chain_id when it names another.
	d := evm.Deploy{RPC: rpcs[0], JSONRPC: cfg.JSONRPC, ChainID: cfg.ChainID, Denom: cfg.Denom, MaxFee: spec.MaxFee, Tip: spec.Tip,
		Deployer: e.deployer, Wait: 60 * time.Second}
	if w.ChainID != "" {
		cfg.ChainID, _ = strconv.ParseUint(w.ChainID, 10, 64) // checked with the scenario
	}
	wallets := e.wallets
	if w.Accounts > 0 {
		wallets = wallets[:w.Accounts]
		if cfg.Start != nil {
			cfg.Start = cfg.Start[:w.Accounts]
		}
	}
	cfg.Senders = load.Uniform{N: len(wallets), Seed: w.Seed}
	cfg.Receivers = load.Uniform{N: len(wallets), Seed: w.Seed ^ 0x9e3779b97f4a7c15}
	cfg.Extra = []evm.Wallet{e.deployer}
	if e.ext != nil {
		d.Nonce = e.ext.nonce
	}
	if slices.ContainsFunc(cfg.Mix, func(m evm.MixEntry) bool { return m.Kind == evm.ERC20 }) {
		began := time.Now()
		each := wei(spec.TokenBalance)
		dt := d
		dt.Wallets, dt.Each = e.wallets, each
		token, err := evm.DeployToken(ctx, dt)
		if err != nil {
			return nil, err
		}
		e.log.Info("token deployed and handed out", "token", token.String(), "wallets", len(e.wallets), "took", time.Since(began).Round(time.Millisecond))
		cfg.Token, cfg.TokenEach = token, each
		e.record.Token = token.String()
		d.Nonce += evm.TokenSetupTxs(len(e.wallets))
	}
	if err := e.deployContracts(ctx, d, &cfg); err != nil {
		return nil, err
	}
	// The check's baseline: a testnet funded each wallet and the deployer
	// in genesis; an external network's is read once they are set up.
	e.start = new(big.Int).Mul(wei(spec.WalletBalance), big.NewInt(int64(len(wallets)+1)))
	if e.ext != nil {
		start, err := e.startBalance(ctx, wallets)
		if err != nil {
			return nil, err
		}
		e.start = start
		e.record.Funding.Start = start.String()
	}
	cfg.JSONRPCs = urls
	work, err := evm.NewWorkload(cfg, wallets)
	if err != nil {
		return nil, err
	}
	e.work, e.rpc = work, rpcs[0]
	if every := spec.PoolReads.D(); every > 0 {
		work.WatchPool(ctx, urls, every)
	}
	if w.ReadRate > 0 {
		if e.reads, err = evm.StartReads(ctx, evm.ReadConfig{URLs: readURLs(urls, cfg.JSONRPC), Rate: w.ReadRate, Wallets: wallets, Token: cfg.Token}); err != nil {
			return nil, err
		}
	}
	var made load.Workload = work
	if spec.SendVia == "json-rpc" {
		made = evm.OverJSONRPC(work, urls)
	}
	e.record.Workload = made.String()
	r.SetFinding(e.record.Finding())
	return made, nil
}

// readURLs are the JSON-RPC servers reads go to: the load targets' that
// have one, else the one the set-up reads.
func readURLs(targets []string, fallback string) []string {
	var out []string
	for _, u := range targets {
		if u != "" {
			out = append(out, u)
		}
	}
	if len(out) == 0 {
		out = []string{fallback}
	}
	return out
}

// nodeJSONRPC is the URL of a testnet node's JSON-RPC server.
func nodeJSONRPC(n *testnet.Node) string {
	return "http://" + net.JoinHostPort(n.Host, strconv.Itoa(n.Ports.JSONRPC))
}

// checkJSONRPC checks that every running node of the testnet serves
// JSON-RPC for the chain ID it was given.
func (e *EVM) checkJSONRPC(ctx context.Context) error {
	spec := evm.Of(e.s.Testnet)
	for _, n := range e.t.Nodes {
		if n.Role == testnet.RoleRotating {
			continue // not started yet
		}
		id, err := evm.ChainID(ctx, nodeJSONRPC(n), 30*time.Second)
		if err != nil {
			return fmt.Errorf("%s serves no EVM JSON-RPC (%v): %s must run Cosmos EVM's JSON-RPC server ([json-rpc] in app.toml)", n.Name, err, e.binary)
		}
		if id != spec.ChainID {
			return fmt.Errorf("%s's JSON-RPC says EVM chain ID %d, not testnet.evm.chain_id = %d: the binary does not take evm.evm-chain-id from app.toml", n.Name, id, spec.ChainID)
		}
	}
	return nil
}

// deployContracts deploys the store and burn contracts when the mix
// calls them, from the deployer at d.Nonce (after the token's set-up
// txs).
func (e *EVM) deployContracts(ctx context.Context, d evm.Deploy, cfg *evm.WorkloadConfig) error {
	has := func(kind string) bool {
		return slices.ContainsFunc(cfg.Mix, func(m evm.MixEntry) bool { return m.Kind == kind })
	}
	if !has(evm.Store) && !has(evm.Burn) {
		return nil
	}
	addrs, err := evm.DeployContracts(ctx, d, d.Nonce, evm.StoreCode(), evm.BurnCode())
	if err != nil {
		return err
	}
	cfg.Store, cfg.Burner = addrs[0], addrs[1]
	e.log.Info("contracts deployed", "store", cfg.Store.String(), "burner", cfg.Burner.String())
	return nil
}

// mixOfEVM is the workload's kinds of tx: an evm-mix's entries (an amount
// not given is the workload's), else its one kind.
func mixOfEVM(w scenario.Workload) []evm.MixEntry {
	switch w.Kind {
	case "evm-transfer":
		return []evm.MixEntry{{Kind: evm.Native, Weight: 1, Amount: uint64(w.Amount)}}
	case "evm-erc20":
		return []evm.MixEntry{{Kind: evm.ERC20, Weight: 1, Amount: uint64(w.Amount)}}
	}
	var out []evm.MixEntry
	for _, m := range w.Mix {
		amount := m.Amount
		if amount == 0 {
			amount = w.Amount
		}
		out = append(out, evm.MixEntry{Kind: m.Msg, Weight: m.Weight, Amount: uint64(amount)})
	}
	return out
}

// Finish ends the read load and checks the chain after the run: every
// wallet's balance plus the fees (the fee collector's balance, on an
// external network the fees reckoned from the blocks) against what they
// held at the start, every nonce against the committed txs (the criteria
// fail the run on either), records the nonce repairs, and on an external
// network sweeps what is left back to the funder.
func (e *EVM) Finish(ctx context.Context, _ []string, r *results.Run) error {
	if e.work == nil {
		return nil
	}
	if e.reads != nil {
		e.record.Reads = e.reads.Stop()
	}
	e.record.NoncesReused, e.record.NoncesReread = e.work.Repairs()
	e.record.Signing = e.work.Signing()
	e.record.Pool = e.work.PoolStats()
	if e.s.Workload.Mode == "persistent" {
		p := e.work.Persistence()
		e.record.Persistence = &p
	}
	e.record.LoadSecs = 0
	for _, p := range r.Phases {
		e.record.LoadSecs += p.Length.Seconds()
	}
	e.record.Kinds = e.work.Stats(e.record.LoadSecs)
	r.SetFinding(e.record.Finding())
	// One node answers every query (CometBFT's and JSON-RPC's), so all
	// read the same height.
	b, err := e.work.Verify(ctx, e.rpc, e.start, e.s.Experiment.DrainTimeout.D())
	if err != nil {
		err = fmt.Errorf("balance check: %w", err)
	} else {
		e.record.Balances = b
		e.log.Info("balance check", "result", b.String())
	}
	// Swept back whether or not the check could be made.
	err = errors.Join(err, e.sweepExternal(ctx, e.rpc))
	r.SetFinding(e.record.Finding())
	return err
}

func (e *EVM) settings() sdkchain.Settings {
	st := settingsOf(e.s)
	st.Traces = e.traces
	return st
}
