package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/examples"
	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/scenario"
)

// TestThirdPartyChains runs a Cosmos SDK chain nobody here wrote (wasmd)
// at two releases, on SDK v0.50 and v0.54 (v0.53's, v0.61.14, runs in
// TestCoordinatedUpgradeOfAnSDKChain), each built by chainperf
// from its Go module version (CI builds them beforehand into its cache
// with `chainperf scenario build`): the shipped example, a message mix
// with staking on a chain with mint and distribution (on v0.70.3 the
// CosmWasm example: a contract from wasmd's module stored, instantiated
// and executed under load, and a community-pool message, as templates,
// with the chain's own spans by message type), and the same chain with
// plain bank sends (on the newest). Every tx's fate
// accounted, balances and stake conserved with the rewards the chain paid
// and what the templated txs moved read from its events.
func TestThirdPartyChains(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs three wasmd releases")
	}
	t.Parallel()
	for _, name := range []string{"wasmd-sdk050", "wasmd-contract", "wasmd-sdk054"} {
		t.Run(name, func(t *testing.T) {
			text := example(t, name)
			code, out, r := runScenario(t, besideOthers(text))
			if code != 0 || !strings.Contains(out, "PASS") {
				t.Fatalf("%s: exit %d\n%s", name, code, out)
			}
			rec := chain.CosmosOf(&r)
			checked := 500
			if name == "wasmd-contract" {
				checked = 499 // the set-up's wallet is not the load's
				contractChecks(t, rec, out)
				traced(t, &r, out, "/cosmwasm.wasm.v1.MsgExecuteContract", "/cosmos.bank.v1beta1.MsgSend")
			}
			if rec == nil || rec.Balances == nil || !rec.Balances.OK() || rec.Balances.Staking == 0 || rec.Balances.Checked != checked {
				t.Fatalf("%s: balance check %+v\n%s", name, rec, out)
			}
			if !strings.Contains(r.Versions.Node, "wasmd ") || !strings.Contains(r.Versions.Node, "github.com/CosmWasm/wasmd@") {
				t.Errorf("the run does not say what it ran: node %q", r.Versions.Node)
			}
			explained(t, &r, true)      // a third-party chain's nodes say where the time went
			if name == "wasmd-sdk054" { // and, on SDK v0.54, the chain's own spans, by message type
				traced(t, &r, out, "/cosmos.bank.v1beta1.MsgSend", "/cosmos.bank.v1beta1.MsgMultiSend", "/cosmos.staking.v1beta1.MsgDelegate")
			}
			for _, p := range r.Phases {
				if l := p.Ledger; l.Sent == 0 || l.Fates[load.FateCommitted] != l.Sent {
					t.Errorf("phase %s: %d sent, fates %v: every tx should commit", p.Name, l.Sent, l.Fates)
				}
			}

			// Bank sends alone on the same build (cached: no second build),
			// on the newest release only, from the scenario `scenario init`
			// writes for it: the mix above already sent bank sends on every
			// release; this run checks that init's file runs a chain nobody
			// here wrote to PASS, and that the chain paid no rewards to a
			// workload without stake (a minute each).
			if name != "wasmd-sdk054" {
				return
			}
			send := initScenario(t, "--binary", "module:github.com/CosmWasm/wasmd/cmd/wasmd@v0.70.3")
			for _, want := range []string{`chain = "cosmos"`, `binary = 'module:github.com/CosmWasm/wasmd/cmd/wasmd@v0.70.3'`, `denom = 'stake'`, `bech32_prefix = 'wasm'`, `kind = "cosmos-send"`} {
				if !strings.Contains(send, want) {
					t.Fatalf("scenario init wrote no %s:\n%s", want, send)
				}
			}
			// CI's size: the example's, not init's (4+1 nodes, 30 s at 100 tx/s).
			send = strings.NewReplacer("validators = 4\n", "validators = 3\n", "wallets = 1000\n", "wallets = 500\n",
				"rate = 100\n", "rate = 50\n", `duration = "30s"`, `duration = "15s"`).Replace(send)
			code, out, r = runScenario(t, besideOthers(send))
			if code != 0 {
				t.Fatalf("%s cosmos-send: exit %d\n%s", name, code, out)
			}
			rec = chain.CosmosOf(&r)
			if rec == nil || rec.Balances == nil || !rec.Balances.OK() || rec.Balances.Rewards != 0 {
				t.Fatalf("%s cosmos-send: balance check %+v\n%s", name, rec, out)
			}
		})
	}
}

// TestChainFamilies runs, beside wasmd, chains of other families built
// from their Go module versions (CI builds them beforehand into its cache):
// celestia-app, on forks of both the Cosmos SDK and CometBFT, whose
// network-wide minimum gas price refuses a free gentx, with its own ~6 s
// blocks; and the Interchain Security provider. Each runs its example's
// bank sends to PASS: every tx committed, every wallet's balance what its
// txs say, the run saying what it ran.
func TestChainFamilies(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two chains of other families")
	}
	t.Parallel()
	for _, c := range []struct{ name, binary, module string }{
		{"celestia-send", "celestia-appd ", "github.com/celestiaorg/celestia-app/v6@v6.4.10"},
		{"ics-provider-send", "interchain-security-pd ", "github.com/cosmos/interchain-security/v7@v7.0.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, r := runScenario(t, besideOthers(example(t, c.name)))
			if code != 0 || !strings.Contains(out, "PASS") {
				t.Fatalf("exit %d\n%s", code, out)
			}
			rec := chain.CosmosOf(&r)
			if rec == nil || rec.Balances == nil || !rec.Balances.OK() || rec.Balances.Checked != 300 {
				t.Fatalf("balance check %+v\n%s", rec, out)
			}
			if !strings.Contains(r.Versions.Node, c.binary) || !strings.Contains(r.Versions.Node, c.module) {
				t.Errorf("the run does not say what it ran: node %q", r.Versions.Node)
			}
			for _, p := range r.Phases {
				if l := p.Ledger; l.Sent == 0 || l.Fates[load.FateCommitted] != l.Sent {
					t.Errorf("phase %s: %d sent, fates %v: every tx should commit", p.Name, l.Sent, l.Fates)
				}
			}
		})
	}
}

// initScenario runs `chainperf scenario init` with args and returns the
// file it wrote, after checking that it refuses to write over it.
func initScenario(t *testing.T, args ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "mine.toml")
	out, code := cli(t, t.TempDir(), append([]string{"scenario", "init", file}, args...)...)
	if code != 0 || !strings.Contains(out, "wrote "+file) {
		t.Fatalf("scenario init: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if out, code := cli(t, t.TempDir(), append([]string{"scenario", "init", file}, args...)...); code == 0 || !strings.Contains(out, "--force") {
		t.Errorf("scenario init wrote over %s: exit %d\n%s", file, code, out)
	}
	return string(b)
}

// contractChecks: the contract's code stored, three contracts of it
// bound, the calls and the distribution message committed with their gas,
// and what they paid the contracts and the pool counted from the events.
func contractChecks(t *testing.T, rec *chain.CosmosRecord, out string) {
	t.Helper()
	if rec == nil || rec.Balances == nil {
		t.Fatalf("no Cosmos record\n%s", out)
	}
	if s := rec.Setup; len(s) != 4 || !strings.HasPrefix(s[0].Bound, "code=") || !strings.HasPrefix(s[3].Bound, "contract=") || s[0].GasUsed < 100_000 {
		t.Errorf("set-up txs %+v: want the code stored, then 3 contracts", s)
	}
	kinds := map[string]cosmos.KindStats{}
	for _, k := range rec.Stats.Kinds {
		kinds[k.Msg] = k
	}
	for _, k := range []string{"enqueue", "fund-pool"} {
		if kinds[k].Committed == 0 || kinds[k].GasPerMsg <= 0 {
			t.Errorf("%s: %+v: want committed calls with their gas", k, kinds[k])
		}
	}
	if b := rec.Balances; b.ByEvents == 0 || b.Outside <= 0 {
		t.Errorf("balances %s: the contract calls' and the pool's coins should be counted from the events", b)
	}
	// The reads beside: every kind answered, through CometBFT's RPC, the
	// app's REST gateway and its gRPC server, the contracts' query too.
	if len(rec.Reads) != 7 || rec.Reads[4].Kind != cosmos.ReadBalanceREST || rec.Reads[5].Kind != cosmos.ReadBalanceGRPC || rec.Reads[6].Kind != "queue-count" {
		t.Errorf("reads %+v: want the 4 of every chain, the REST and gRPC balances and the contracts' query", rec.Reads)
	}
	for _, r := range rec.Reads {
		if r.Answered == 0 || r.Failed != 0 || r.P99 <= 0 {
			t.Errorf("read %s: %+v; want answered, none failed, a latency", r.Kind, r)
		}
	}
}

// Settings a chain does not have are refused with the scenario's line and
// the nearest key the chain's own files have, before any node starts.
func TestChainSettingsCheckedAgainstTheChain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a chain binary's init")
	}
	t.Parallel()
	text := example(t, "wasmd-sdk053")
	tmp := t.TempDir()
	scn := filepath.Join(tmp, "settings.toml")
	bad := strings.Replace(text, "[workload]", `[testnet.genesis]
consensus.params.block.max_gass = "5000000"
app_state.mint.params.inflation_max = "lots"

[testnet.app]
mempool.max-tx = 100

[workload]`, 1)
	os.WriteFile(scn, []byte(bad), 0o644)
	out, code := cli(t, t.TempDir(), "scenario", "build", scn)
	for _, want := range []string{
		`settings.toml:22: testnet.genesis.consensus.params.block.max_gass: wasmd's genesis has no "consensus.params.block.max_gass" (did you mean "consensus.params.block.max_gas"?)`,
		`settings.toml:23: testnet.genesis.app_state.mint.params.inflation_max: want a number`,
		`settings.toml:26: testnet.app.mempool.max-tx: wasmd's app.toml has no "mempool.max-tx" (did you mean "mempool.max-txs"?)`,
	} {
		if code != 2 || !strings.Contains(out, want) {
			t.Errorf("exit %d; want 2 and %q in\n%s", code, want, out)
		}
	}
	good := strings.Replace(text, "[workload]", `[testnet.genesis]
consensus.params.block.max_gas = 50000000

[testnet.app]
mempool.max-txs = 5000

[workload]`, 1)
	os.WriteFile(scn, []byte(good), 0o644)
	out, code = cli(t, t.TempDir(), "scenario", "check", scn)
	if code != 0 || !strings.Contains(out, "genesis and app.toml settings checked against wasmd's own files") {
		t.Errorf("good settings: exit %d\n%s", code, out)
	}
}

// example is the text of the shipped example NAME.
func example(t *testing.T, name string) string {
	t.Helper()
	for _, e := range examples.All() {
		if e.Name == name {
			return string(e.Text)
		}
	}
	t.Fatalf("no example %s", name)
	return ""
}

// appRepo makes a git repository of a Cosmos SDK chain application
// (chainperf's own test chain, chains/cosmos, as a team's app repository
// would hold it) with two commits on main, the second of which makes
// every block's commit wait 1.5 s (a Precommiter), and returns its dir
// and commits.
func appRepo(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	run := gitIn(t, dir)
	if err := os.CopyFS(dir, os.DirFS("../../chains/cosmos")); err != nil {
		t.Fatal(err)
	}
	run("init", "-q", "-b", "main")
	var commits []string
	commit := func(msg string) { commits = append(commits, commitAll(run, msg)) }
	commit("appd: the chain")
	p := filepath.Join(dir, "app", "app.go")
	src, _ := os.ReadFile(p)
	slow := strings.Replace(string(src), "import (\n", "import (\n\t\"time\"\n\tsdk \"github.com/cosmos/cosmos-sdk/types\"\n", 1)
	slow = strings.Replace(slow, "\ta := builder.Build(db, traceStore, opts...)",
		"\topts = append(opts, func(b *baseapp.BaseApp) {\n\t\tb.SetPrecommiter(func(sdk.Context) { time.Sleep(1500 * time.Millisecond) })\n\t})\n\ta := builder.Build(db, traceStore, opts...)", 1)
	if slow == string(src) || !strings.Contains(slow, "SetPrecommiter") {
		t.Fatal("app.go changed: the planted slowdown no longer applies")
	}
	os.WriteFile(p, []byte(slow), 0o644)
	commit("app: flush caches before every commit")
	return dir, commits
}

// TestApplicationBuiltAtARef: a run builds an SDK application from its
// git tree at a ref ([testnet.cosmos.build]) and runs that build: the
// commit that makes every block wait 1.5 s gives blocks that far apart,
// and the run is labelled with the commit. (bisect steps through an
// application's commits this way, TestBisectSource; its loop on real runs
// is TestBisectFindsTheSlowdown's: the two together were a bisect of
// their own here, two minutes for nothing new.)
func TestApplicationBuiltAtARef(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an SDK chain at a commit and runs it")
	}
	t.Parallel()
	repo, commits := appRepo(t)
	tmp := t.TempDir()
	scn := filepath.Join(tmp, "app.toml")
	os.WriteFile(scn, []byte(besideOthers(`name = "appd"
[testnet]
validators = 1
full_nodes = 0
chain = "cosmos"
[testnet.cosmos]
wallets = 200
gas_price = 0.001
[testnet.cosmos.build]
dir = "`+repo+`"
ref = "`+commits[1]+`"
package = "./cmd/chainperf-sdkd"
[workload]
kind = "cosmos-send"
mode = "pregenerate"
gas_limit = 150000
[load]
rate = 20
duration = "6s"
[experiment]
kind = "steady"
warmup = "1s"
cooldown = "1s"
drain_timeout = "15s"
`)), 0o644)
	builds, reports := filepath.Join(tmp, "builds"), filepath.Join(tmp, "reports")
	out, code := cliWith(t, t.TempDir(), []string{"CHAINPERF_BUILD_CACHE=" + builds}, "run", scn, "--db", filepath.Join(tmp, "runs.db"), "--report-dir", reports)
	if code != 0 {
		t.Fatalf("run of the app at %s: exit %d\n%s", commits[1][:10], code, out)
	}
	r := readSummary(t, reports)
	if r.Labels["commit"] != commits[1] {
		t.Errorf("labels %v; want commit=%s", r.Labels, commits[1])
	}
	if bi := r.Main().Figures.BlockInterval; bi < 1.5 {
		t.Errorf("blocks %.2f s apart: the build at %s waits 1.5 s in every commit", bi, commits[1][:10])
	}
	if entries, _ := os.ReadDir(filepath.Join(builds, "apps")); len(entries) != 1 {
		t.Errorf("%d cached app builds; want 1", len(entries))
	}
}

// TestBisectSource: bisect points a scenario that builds its application
// ([testnet.cosmos.build]) at each commit through the application's ref,
// and one that builds its node through testnet.build's; the first
// scenario's own ref is left as it was.
func TestBisectSource(t *testing.T) {
	app, err := scenario.Parse("a.toml", []byte("[testnet]\nchain = \"cosmos\"\n[testnet.cosmos.build]\ndir = \".\"\nref = \"main\"\npackage = \"./cmd/appd\"\n[workload]\nkind = \"cosmos-send\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir, at := bisectSource(app)
	step := *app
	at(&step, "abc123")
	if dir != "." || cosmos.Of(step.Testnet).Build.Ref != "abc123" || cosmos.Of(app.Testnet).Build.Ref != "main" {
		t.Errorf("app: dir %q, step's ref %q, scenario's ref %q; want ., abc123, main", dir, cosmos.Of(step.Testnet).Build.Ref, cosmos.Of(app.Testnet).Build.Ref)
	}
	node, err := scenario.Parse("n.toml", []byte("[testnet.build]\ndir = \".\"\nref = \"main\"\npackage = \".\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir, at = bisectSource(node)
	at(node, "def456")
	if dir != "." || node.Testnet.Build.Ref != "def456" {
		t.Errorf("node: dir %q, ref %q; want ., def456", dir, node.Testnet.Build.Ref)
	}
}
