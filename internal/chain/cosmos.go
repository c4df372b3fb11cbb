package chain

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"slices"
	"strconv"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/readload"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/sdkchain"
	"github.com/chainperf/chainperf/internal/testnet"
)

// Cosmos is a Cosmos SDK chain: chainperf-sdkd (built from chains/cosmos
// when needed) or the scenario's SDK binary, set up through its own CLI
// with funded wallets; the cosmos-send and cosmos-multisend workloads;
// every balance checked after the run.
type Cosmos struct {
	s      *scenario.Scenario
	log    *slog.Logger
	binary string
	chain  *sdkchain.Chain
	work   *cosmos.Workload
	ext    *external // on an external network
	record *CosmosRecord
	reads  *readload.Reads  // the read load beside the txs, if asked
	traces string           // where the nodes send their spans; "": none
	t      *testnet.Testnet // the testnet Prepare set up; nil on an external network
	grpcs  []*cosmos.GRPC   // the reads' gRPC connections, closed with the reads
	state  startState       // testnet.cosmos.state_cache
	relay  string           // the relayer's mnemonic, funded in genesis; "": no relayer
}

var (
	_ Adapter = (*Cosmos)(nil)
	_ Checker = (*Cosmos)(nil)
	_ Tracer  = (*Cosmos)(nil)
	_ Keeper  = (*Cosmos)(nil)
)

// TraceTo has Prepare set each node to send its spans to url.
func (c *Cosmos) TraceTo(url string) { c.traces = url }

func newCosmos(ctx context.Context, s *scenario.Scenario, log *slog.Logger) (Adapter, error) {
	if s.Testnet.Provider == scenario.ProviderExternal {
		return &Cosmos{s: s, log: log}, nil // no binary: it runs no node
	}
	logf := func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }
	bin, err := sdkchain.SDKD.Find(ctx, cosmos.Of(s.Testnet).Binary, logf)
	if err != nil {
		return nil, err
	}
	return &Cosmos{s: s, log: log, binary: bin}, nil
}

// Relay has Prepare fund the relayer's key and turn the servers on.
func (c *Cosmos) Relay(mnemonic string) { c.relay = mnemonic }

// RelayEnd is the prepared chain's prefix, denom and gas price.
func (c *Cosmos) RelayEnd() RelayEnd {
	spec := c.chain.Spec
	return RelayEnd{Prefix: spec.Bech32Prefix, Denom: spec.Denom, GasPrice: spec.GasPrice}
}

// Refunded has the balance check count what the relayer gave back.
func (c *Cosmos) Refunded(by map[string]uint64) {
	if c.work != nil {
		c.work.Credit(by)
	}
}

// Prepare runs the SDK binary's init, gentx and collect-gentxs over the
// homes and funds the wallets in genesis; the nodes run that binary.
func (c *Cosmos) Prepare(ctx context.Context, t *testnet.Testnet) error {
	t.Binary, t.Args = c.binary, cosmos.Of(c.s.Testnet).StartArgs
	spec := cosmos.Of(c.s.Testnet)
	spec.SetupHook = cosmos.HookPath(c.s)
	settings := settingsOf(c.s)
	settings.Traces = c.traces
	settings.Servers = c.s.Workload.ReadRate > 0 || spec.Servers || c.relay != "" // the reads and a relayer ask the REST gateway and gRPC server too
	if c.relay != "" {
		spec.Mnemonics = append(spec.Mnemonics, c.relay)
	}
	c.t = t
	if spec.StateCache {
		return c.prepareState(ctx, t, spec, settings)
	}
	ch, err := sdkchain.Setup(ctx, t, c.binary, spec, settings)
	if err != nil {
		return err
	}
	c.chain = ch
	return nil
}

// Workload makes the run's Cosmos workload over the funded wallets: one
// for all phases, since sequences carry over. A gas limit of 0 is priced
// by simulating one tx on the chain.
func (c *Cosmos) Workload(ctx context.Context, rpcs []string, r *results.Run) (load.Workload, error) {
	w, cs := c.s.Workload, cosmos.Of(c.s.Testnet)
	if c.chain != nil {
		cs = c.chain.Spec // with the denom and prefix read from the chain
	}
	chainID, denom := c.s.Testnet.ChainID, cs.Denom
	if w.ChainID != "" {
		chainID = w.ChainID
	}
	var wallets []cosmos.Wallet
	var keys func(int) (cosmos.Wallet, error)
	var start, seqs []uint64
	if cs.Funded() {
		ext, err := c.fundExternal(ctx, rpcs[0])
		if err != nil {
			return nil, err
		}
		c.ext = ext
		wallets, start, seqs, chainID, denom, cs.GasPrice = ext.wallets, ext.start, ext.seqs, ext.chain.ID, ext.cfg.Denom, ext.cfg.GasPrice
	} else {
		wallets, keys = c.chain.Wallets, cosmos.KeysOf(cs.Seed, cs.Bech32Prefix)
	}
	last := len(wallets) - 1 // the set-up steps' wallet
	wallets, start, seqs, setupWallet := loadWallets(w, wallets, start, seqs)
	var err error
	if len(w.Setup) > 0 {
		if setupWallet, err = cosmos.WithKey(setupWallet, last, keys); err != nil {
			return nil, err
		}
	}
	senders, receivers, err := selectors(w, len(wallets))
	if err != nil {
		return nil, err
	}
	fee := uint64(w.Fee)
	if w.Fee < 0 {
		fee = uint64(math.Ceil(float64(w.GasLimit) * cs.GasPrice))
	}
	mix := mixOf(w)
	setup, reads, err := c.templates(ctx, rpcs[0], chainID, denom, cs.GasPrice, setupWallet, mix)
	if err != nil {
		return nil, err
	}
	var validators []string
	if slices.ContainsFunc(mix, func(m cosmos.MixEntry) bool { return m.Msg == cosmos.MsgDelegateKind }) {
		if validators, err = cosmos.QueryValidators(ctx, nodehttp.Client(nodehttp.Query), rpcs[0]); err != nil {
			return nil, fmt.Errorf("read the validators to stake with: %w", err)
		}
	}
	cw, err := cosmos.NewWorkload(cosmos.WorkloadConfig{
		Kind: w.Kind, Live: w.Mode == "live", ChainID: chainID, Denom: denom,
		Mix: mix, MsgsPerTx: w.MsgsPerTx, MixSeed: w.Seed, Validators: validators,
		Unordered: w.Unordered, Timeout: w.UnorderedTimeout.D(),
		GasLimit: uint64(w.GasLimit), Fee: fee, Funded: uint64(cs.WalletBalance), Start: start, Sequences: seqs,
		Senders: senders, Receivers: receivers, Targets: len(rpcs), RPCs: rpcs, CacheDir: w.CacheDir,
		GasPrice: cs.GasPrice, FeeFromGas: w.Fee < 0, Keys: keys,
		Logf: func(f string, a ...any) { c.log.Info(fmt.Sprintf(f, a...)) },
	}, wallets)
	if err != nil {
		return nil, err
	}
	if w.GasLimit == 0 {
		used, err := cw.SimulateGas(ctx)
		if err != nil {
			return nil, fmt.Errorf("workload.gas_limit = 0 asks for a simulation, which failed: %w", err)
		}
		c.log.Info("simulated gas", "used", used, "workload", cw.String())
	}
	c.work = cw
	if c.reads, err = c.startReads(ctx, w, rpcs, wallets, denom, reads); err != nil {
		return nil, err
	}
	if c.ext != nil {
		c.record = &CosmosRecord{Wallets: len(wallets), Workload: cw.String(), Funding: c.ext.record, Setup: setup}
		r.SetFinding(c.record.Finding())
		return cw, nil
	}
	nodeVersion(r, c.chain.Binary)
	c.record = &CosmosRecord{Binary: c.chain.Binary, Wallets: c.chain.Funding.Wallets, GenesisBytes: c.chain.Funding.Bytes,
		GenesisSecs: c.chain.GenesisTime.Seconds(), Workload: cw.String(), Setup: setup, CLI: c.chain.Decided, State: c.stateRecord()}
	r.SetFinding(c.record.Finding())
	return cw, nil
}

// selectors pick the senders and the receivers among n wallets, by the
// workload's selection, with different seeds.
func selectors(w scenario.Workload, n int) (load.Selector, load.Selector, error) {
	pick := func(seed uint64) (load.Selector, error) {
		if w.Selection == "zipf" {
			return load.NewZipf(n, w.ZipfShift, w.ZipfExponent, seed)
		}
		return load.Uniform{N: n, Seed: seed}, nil
	}
	senders, err := pick(w.Seed)
	if err != nil {
		return nil, nil, err
	}
	receivers, err := pick(w.Seed ^ 0x9e3779b97f4a7c15)
	return senders, receivers, err
}

// startReads starts the read load beside the txs, if the workload asks
// for one (nil if not): through the load nodes' RPC, and their REST
// gateways and gRPC servers where Prepare turned them on.
func (c *Cosmos) startReads(ctx context.Context, w scenario.Workload, rpcs []string, wallets []cosmos.Wallet, denom string, custom []cosmos.CustomRead) (*readload.Reads, error) {
	if !(w.ReadRate > 0) {
		return nil, nil
	}
	cfg := cosmos.ReadConfig{RPCs: rpcs, Rate: w.ReadRate, Wallets: wallets, Denom: denom, Custom: custom, Seed: w.Seed}
	for _, n := range c.servingNodes(rpcs) {
		g, err := cosmos.DialGRPC(net.JoinHostPort(n.Host, strconv.Itoa(n.Ports.GRPC)))
		if err != nil {
			return nil, err
		}
		c.grpcs = append(c.grpcs, g)
		cfg.GRPCs = append(cfg.GRPCs, g)
		cfg.APIs = append(cfg.APIs, "http://"+net.JoinHostPort(n.Host, strconv.Itoa(n.Ports.API)))
	}
	return cosmos.StartReads(ctx, cfg)
}

// servingNodes are the load nodes whose REST gateway and gRPC server
// chainperf turned on and can reach where their RPC is: none on an
// external network, or where the provider reaches the nodes another way.
func (c *Cosmos) servingNodes(rpcs []string) []*testnet.Node {
	if c.t == nil {
		return nil
	}
	var out []*testnet.Node
	for _, rpc := range rpcs {
		for _, n := range c.t.Nodes {
			if n.Endpoint().RPC == rpc {
				out = append(out, n)
			}
		}
	}
	if len(out) < len(rpcs) {
		return nil
	}
	return out
}

// loadWallets is the wallets the load sends from (and their start
// balances and sequences, if known): the first workload.accounts, less the
// last wallet when set-up steps send from it, which it returns.
func loadWallets(w scenario.Workload, wallets []cosmos.Wallet, start, seqs []uint64) ([]cosmos.Wallet, []uint64, []uint64, cosmos.Wallet) {
	var setup cosmos.Wallet
	n := len(wallets)
	if len(w.Setup) > 0 {
		setup, n = wallets[n-1], n-1
	}
	if w.Accounts > 0 && w.Accounts < n {
		n = w.Accounts
	}
	if start != nil {
		start = start[:n]
	}
	if seqs != nil {
		seqs = seqs[:n]
	}
	return wallets[:n], start, seqs, setup
}

// mixOf is the workload's message kinds: the mix of a cosmos-mix, else
// its one kind; amounts and outputs not given are the workload's.
func mixOf(w scenario.Workload) []cosmos.MixEntry {
	switch w.Kind {
	case cosmos.KindSend:
		return []cosmos.MixEntry{{Msg: cosmos.MsgSendKind, Weight: 1, Amount: uint64(w.Amount), Outputs: 1}}
	case cosmos.KindMultiSend:
		return []cosmos.MixEntry{{Msg: cosmos.MsgMultiSendKind, Weight: 1, Amount: uint64(w.Amount), Outputs: w.Outputs}}
	}
	var out []cosmos.MixEntry
	for _, m := range w.Mix {
		e := cosmos.MixEntry{Msg: m.Msg, Weight: m.Weight, Amount: uint64(m.Amount), Outputs: m.Outputs, Validator: -1}
		if e.Amount == 0 {
			e.Amount = uint64(w.Amount)
		}
		if e.Outputs == 0 {
			e.Outputs = w.Outputs
		}
		if m.Msg == cosmos.MsgSendKind {
			e.Outputs = 1
		}
		if m.Validator != nil {
			e.Validator = *m.Validator
		}
		out = append(out, e)
	}
	return out
}

// Finish checks every wallet's balance at one height that holds every
// committed tx: held + fees = funded, and each wallet as its txs say. The
// run calls it only when no node crashed.
func (c *Cosmos) Finish(ctx context.Context, follow []string, r *results.Run) error {
	if c.work == nil {
		return nil
	}
	if c.reads != nil { // the read load ran from the set-up's end to here
		c.record.Reads = c.reads.Stop()
		for _, g := range c.grpcs {
			g.Close() //nolint:errcheck // the reads are done
		}
		r.SetFinding(c.record.Finding())
	}
	prefix := cosmos.Of(c.s.Testnet).Bech32Prefix
	if c.chain != nil {
		prefix = c.chain.Spec.Bech32Prefix
	}
	if c.ext != nil {
		prefix = c.ext.chain.Prefix
	}
	b, err := c.work.Verify(ctx, follow, prefix, c.s.Experiment.DrainTimeout.D())
	if err != nil {
		return fmt.Errorf("balance check: %w", err)
	}
	var secs float64
	for _, p := range r.Phases {
		secs += p.Length.Seconds()
	}
	c.record.Balances, c.record.Stats = b, c.work.Stats(secs)
	if c.record.State != nil {
		c.record.State = c.stateRecord() // the store as the run left it
	}
	r.SetFinding(c.record.Finding())
	c.log.Info("balance check", "result", b.String())
	if c.ext != nil && cosmos.Of(c.s.Testnet).SweepBack {
		back, err := cosmos.Sweep(ctx, nodehttp.Client(nodehttp.Query), c.ext.cfg, c.ext.wallets)
		c.ext.record.Swept = back
		r.SetFinding(c.record.Finding())
		if err != nil {
			return fmt.Errorf("sweep back to the funder: %w", err)
		}
		c.log.Info("swept back", "amount", back, "to", c.ext.cfg.Funder.Address)
	}
	return nil
}

// settingsOf is the scenario's genesis and app.toml settings, with their
// places in the scenario for errors.
func settingsOf(s *scenario.Scenario) sdkchain.Settings {
	return sdkchain.Settings{Genesis: s.Testnet.Genesis, App: s.Testnet.App, Pos: s.Pos}
}
