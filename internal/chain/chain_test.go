package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/evm"
	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/sdkchain"
	"github.com/chainperf/chainperf/internal/testnet/live"
	"github.com/chainperf/chainperf/internal/testnet/providertest"
)

// The chains a scenario may name are the chains there are.
func TestAllIsWhatScenariosName(t *testing.T) {
	var names []string
	for _, e := range All {
		names = append(names, e.Name)
	}
	if !slices.Equal(names, scenario.Chains()) {
		t.Errorf("chain.All %v, scenario.Chains() %v: register a chain in both", names, scenario.Chains())
	}
	s := mustParse(t, "")
	s.Testnet.Chain = "nope"
	if _, err := New(context.Background(), s, nil); err == nil || !strings.Contains(err.Error(), `unknown chain "nope"`) {
		t.Errorf("an unknown chain: %v", err)
	}
}

func mustParse(t *testing.T, doc string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse("t.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A chain's check after the run fails the run through its finding's
// limits: funds not conserved, or an account its committed txs do not
// explain (a Cosmos balance, an EVM nonce); both held passes.
func TestBalancesJudged(t *testing.T) {
	s := mustParse(t, "")
	cosmosRun := func(conserved bool, mismatched int) *results.Run {
		r := &results.Run{}
		c := CosmosRecord{Balances: &cosmos.Balances{Conserved: conserved, Mismatched: mismatched}}
		r.SetFinding(c.Finding())
		return r
	}
	evmRun := func(conserved bool, mismatched int) *results.Run {
		r := &results.Run{}
		e := EVMRecord{Balances: &evm.Balances{Conserved: conserved, Mismatched: mismatched}}
		r.SetFinding(e.Finding())
		return r
	}
	for _, tc := range []struct {
		name       string
		run        func(bool, int) *results.Run
		conserved  bool
		mismatched int
		fail       string
	}{
		{"cosmos conserved", cosmosRun, true, 0, ""},
		{"cosmos not conserved", cosmosRun, false, 0, "wallet funds not conserved (held + fees != funded)"},
		{"cosmos wallet off", cosmosRun, true, 1, "wallets whose balance disagrees with the committed txs"},
		{"evm conserved", evmRun, true, 0, ""},
		{"evm not conserved", evmRun, false, 0, "EVM funds not conserved (held + fee collector != funded)"},
		{"evm nonce off", evmRun, true, 2, "EVM accounts whose nonce disagrees with their committed txs"},
	} {
		r := tc.run(tc.conserved, tc.mismatched)
		results.Evaluate(r, s.Criteria)
		if (tc.fail == "") != r.Passed {
			t.Errorf("%s: passed %v; checks %+v", tc.name, r.Passed, r.Checks)
		}
		for _, c := range r.Checks {
			if c.Name == tc.fail && c.Pass {
				t.Errorf("%s: check %q passed", tc.name, tc.fail)
			}
		}
	}
}

// The chain's record survives its finding: what CosmosOf reads back is
// what the adapter recorded; the run's JSON still has it under "cosmos";
// a record an earlier chainperf stored there reads as the same finding; a
// broken one is an error naming it.
func TestRecordRoundTrip(t *testing.T) {
	c := CosmosRecord{Binary: "/bin/sdkd", Wallets: 7, Workload: "bank sends",
		Stats:    cosmos.Stats{Expired: 3, Kinds: []cosmos.KindStats{{Msg: "send", Committed: 5, CommittedPerSec: 2.5}}},
		Balances: &cosmos.Balances{Conserved: true, Wallets: 7, Checked: 7}}
	r := &results.Run{}
	r.SetFinding(c.Finding())
	got := CosmosOf(r)
	if got == nil || got.Binary != c.Binary || got.Stats.Expired != 3 || got.Balances == nil || !got.Balances.Conserved {
		t.Fatalf("CosmosOf = %+v", got)
	}
	f, _ := r.Finding(SourceCosmos)
	if err := f.Check(); err != nil {
		t.Error(err)
	}
	var labels []string
	for _, l := range f.Summary {
		labels = append(labels, l.Label)
	}
	if !slices.Equal(labels, []string{"expired", "balances"}) {
		t.Errorf("summary lines %v", labels)
	}
	// record.json keeps the record under "cosmos", as earlier builds
	// wrote it, and reads back with one finding.
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(js, &top); err != nil || !strings.Contains(string(top["cosmos"]), `"binary":"/bin/sdkd"`) || top["findings"] == nil {
		t.Fatalf("the run's JSON: %v\n%s", err, js)
	}
	var back results.Run
	if err := json.Unmarshal(js, &back); err != nil || len(back.Found) != 1 || CosmosOf(&back).Wallets != 7 {
		t.Fatalf("read back: %v, %d findings", err, len(back.Found))
	}
	raw, _ := json.Marshal(c)
	var old results.Run
	if err := json.Unmarshal([]byte(`{"id":"old","cosmos":`+string(raw)+`}`), &old); err != nil {
		t.Fatal(err)
	}
	if o := CosmosOf(&old); o == nil || o.Wallets != 7 || EVMOf(&old) != nil {
		t.Errorf("an old run's cosmos record read as %+v", o)
	}
	if err := json.Unmarshal([]byte(`{"id":"old","evm":{"wallets":"many"}}`), &old); err == nil || !strings.Contains(err.Error(), `"evm" record`) {
		t.Errorf("a broken old evm record: %v", err)
	}
}

// A workload's message kinds: a cosmos-send is one send of the workload's
// amount; a mix entry takes the workload's amount and outputs where it
// gives none, and a send never has more than one output.
func TestMixOf(t *testing.T) {
	w := scenario.Workload{Kind: cosmos.KindSend, Amount: 9}
	if m := mixOf(w); len(m) != 1 || m[0].Msg != cosmos.MsgSendKind || m[0].Amount != 9 || m[0].Outputs != 1 {
		t.Errorf("cosmos-send: %+v", m)
	}
	w = scenario.Workload{Kind: "cosmos-mix", Amount: 4, Outputs: 3, Mix: []scenario.MixEntry{
		{Msg: cosmos.MsgSendKind, Weight: 2}, {Msg: cosmos.MsgMultiSendKind, Weight: 1, Amount: 6}}}
	m := mixOf(w)
	if len(m) != 2 || m[0].Outputs != 1 || m[0].Amount != 4 || m[1].Outputs != 3 || m[1].Amount != 6 || m[0].Validator != -1 {
		t.Errorf("cosmos-mix: %+v", m)
	}
	if e := mixOfEVM(scenario.Workload{Kind: "evm-erc20", Amount: 5}); len(e) != 1 || e[0].Kind != evm.ERC20 || e[0].Amount != 5 {
		t.Errorf("evm-erc20: %+v", e)
	}
}

// kvstore on the in-memory twin: nothing to prepare, a fresh workload
// each phase, or the replay file read once.
func TestKVStoreOnTheFake(t *testing.T) {
	s := mustParse(t, "[testnet]\nvalidators = 2\nfull_nodes = 1\n")
	a, net := adapterOnFake(t, s)
	w, err := a.Workload(context.Background(), net.RPCs(net.Testnet.RPCNodes()), &results.Run{})
	if w != nil || err != nil {
		t.Errorf("kvstore workload %v, %v; want none (each phase makes its own)", w, err)
	}
	replay := t.TempDir() + "/txs"
	os.WriteFile(replay, []byte("6b3d76\n"), 0o644)
	s.Workload.Kind, s.Workload.ReplayFile = "replay", replay
	a, _ = New(context.Background(), s, nil)
	if w, err := a.Workload(context.Background(), nil, &results.Run{}); err != nil {
		t.Errorf("replay workload: %v", err)
	} else if r, ok := w.(*load.Replay); !ok || r.File != replay {
		t.Errorf("replay workload %#v; want the file's", w)
	}
}

// A Cosmos SDK chain's Prepare on homes the testnet wrote (the in-memory
// twin runs the nodes): the nodes run the chain's binary, every node has
// one genesis with the wallets funded, and the chain's finding is handed
// over when its workload is made. Needs the SDK binary (CHAINPERF_SDKD, as
// CI builds it).
func TestCosmosPrepareOnTheFake(t *testing.T) {
	bin := os.Getenv("CHAINPERF_SDKD")
	if testing.Short() || bin == "" {
		t.Skip("needs CHAINPERF_SDKD (a built chainperf-sdkd) and no -short")
	}
	s := mustParse(t, "[testnet]\nvalidators = 2\nfull_nodes = 1\nchain = \"cosmos\"\n[testnet.cosmos]\nwallets = 25\n[workload]\nkind = \"cosmos-send\"\n")
	a, net := adapterOnFake(t, s)
	c := a.(*Cosmos)
	if net.Testnet.Binary != bin || c.chain == nil || c.chain.Funding.Wallets != 25 || len(c.chain.Wallets) != 25 {
		t.Fatalf("binary %q, chain %+v", net.Testnet.Binary, c.chain)
	}
	var first []byte
	for _, n := range net.Testnet.Nodes {
		g, err := os.ReadFile(n.Home + "/config/genesis.json")
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = g
		} else if string(g) != string(first) {
			t.Errorf("%s has another genesis", n.Name)
		}
	}
	for _, w := range c.chain.Wallets {
		if !strings.Contains(string(first), w.Address) {
			t.Fatalf("wallet %s is not in genesis", w.Address)
		}
	}
}

// adapterOnFake makes the scenario's chain adapter and brings its testnet
// up on the in-memory twin, the adapter preparing the homes; the testnet
// goes when the test ends.
func adapterOnFake(t *testing.T, s *scenario.Scenario) (Adapter, *live.Net) {
	t.Helper()
	a, err := New(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	newFake, _ := providertest.Factory(providertest.Config{})
	net, err := live.Up(context.Background(), s.Testnet, live.UpOptions{Chain: a, Provider: newFake})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { net.Down(context.Background()) })
	return a, net
}

// The pool reads' stats are a table, two figures and a summary line of
// the EVM finding when they ran, and nothing when they did not.
func TestPoolInFinding(t *testing.T) {
	off := (&EVMRecord{}).Finding()
	pool := &evm.PoolStats{EveryMs: 1000, Reads: 40, AnsweredGap: 50, SeenQueued: 7, GapQueued: 6, Promoted: 5, Committed: 7, ToPendingP50: 900, ToPendingP99: 1800}
	on := (&EVMRecord{Pool: pool}).Finding()
	figure := func(f finding.Finding, name string) (float64, bool) {
		for _, g := range f.Figures {
			if g.Name == name {
				return g.Value, true
			}
		}
		return 0, false
	}
	if _, ok := figure(off, "txs queued in the EVM mempool"); ok || len(off.Tables) != 1 || len(off.Summary) != 0 {
		t.Errorf("no pool reads: %d tables, %d summary lines, figures %+v", len(off.Tables), len(off.Summary), off.Figures)
	}
	if v, ok := figure(on, "txs queued in the EVM mempool"); !ok || v != 7 {
		t.Errorf("queued figure %v, %v; want 7", v, ok)
	}
	if v, ok := figure(on, "queued tx to pending p99"); !ok || v != 1800 {
		t.Errorf("to pending figure %v, %v; want 1800", v, ok)
	}
	if len(on.Tables) != 2 || on.Tables[1].Title != "The EVM mempool's word" || len(on.Summary) != 1 ||
		!strings.Contains(on.Summary[0].Text, "7 of the load's txs named queued by a read every 1000 ms (6 of 50 answered with a nonce gap), 5 then named pending") {
		t.Errorf("pool reads: tables %d, summary %+v", len(on.Tables), on.Summary)
	}
}

// forkedCLI writes a chain binary around the SDK test chain whose CLI is
// a fork's: the genesis commands at the top (no `genesis` command) and
// init without --default-denom; with genesis false it has no genesis
// commands at all.
func forkedCLI(t *testing.T, real string, genesis bool) string {
	t.Helper()
	top := "  add-genesis-account Add a genesis account\n  collect-gentxs Collect genesis txs\n  gentx Generate a genesis tx\n"
	if !genesis {
		top = ""
	}
	script := `#!/bin/sh
real='` + real + `'
case "$1" in
genesis) echo 'Error: unknown command "genesis" for "forkd"' >&2; exit 1;;
add-genesis-account|gentx|collect-gentxs) exec "$real" genesis "$@";;
--help) printf 'Available Commands:\n` + strings.ReplaceAll(top, "\n", `\n`) + `  init Initialize\n  keys Keys\n  start Run\n'; exit 0;;
init)
	for a in "$@"; do
		case "$a" in
		--default-denom*) echo 'Error: unknown flag: --default-denom' >&2; exit 1;;
		--help) "$real" init --help | grep -v -- --default-denom; exit 0;;
		esac
	done;;
esac
exec "$real" "$@"
`
	bin := filepath.Join(t.TempDir(), "forkd")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// A chain whose CLI is a fork's (genesis commands at the top, init
// without --default-denom) is set up by what its help offers: the
// scenario's denom patched into genesis, each decision in the run's
// finding. One with no genesis commands is refused naming what was looked
// for. Without the help read first, init fails on --default-denom.
func TestCosmosPrepareFollowsTheChainsCLI(t *testing.T) {
	bin := os.Getenv("CHAINPERF_SDKD")
	if testing.Short() || bin == "" {
		t.Skip("needs CHAINPERF_SDKD (a built chainperf-sdkd) and no -short")
	}
	text := "[testnet]\nvalidators = 2\nfull_nodes = 0\nchain = \"cosmos\"\n[testnet.cosmos]\nbinary = %q\ndenom = \"ufork\"\nwallets = 5\n[workload]\nkind = \"cosmos-send\"\n"
	// The way in for what cannot be read from the help: init's extra
	// arguments and a hook in each home (which init's files it sees).
	hooks := t.TempDir()
	hook := filepath.Join(hooks, "hook.sh")
	os.WriteFile(hook, []byte("#!/bin/sh\nset -e\ntest -f config/app.toml\necho \"$CHAINPERF_NODE $CHAINPERF_ROLE $CHAINPERF_CHAIN_ID\" > \"$CHAINPERF_HOME/hooked\"\n"), 0o755)
	way := "init_args = [\"--initial-height\", \"7\"]\nsetup_hook = \"hook.sh\"\n"
	file := filepath.Join(hooks, "scenario.toml") // the hook is relative to it
	os.WriteFile(file, []byte(strings.Replace(fmt.Sprintf(text, forkedCLI(t, bin, true)), "wallets = 5\n", "wallets = 5\n"+way, 1)), 0o644)
	s, err := scenario.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	a, net := adapterOnFake(t, s)
	c := a.(*Cosmos)
	g, err := os.ReadFile(net.Testnet.Nodes[0].Home + "/config/genesis.json")
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := sdkchain.BondDenom(net.Testnet.Nodes[0].Home + "/config/genesis.json"); d != "ufork" || strings.Contains(string(g), `"stake"`) {
		t.Errorf("bond denom %q; want ufork, and no stake left in genesis", d)
	}
	decided := strings.Join(c.chain.Decided, "; ")
	if !strings.Contains(decided, "--default-denom") || !strings.Contains(decided, "genesis commands are at the top") {
		t.Errorf("decisions %q: want the denom patch and the genesis commands' place", decided)
	}

	for _, n := range net.Testnet.Nodes {
		if b, err := os.ReadFile(filepath.Join(n.Home, "hooked")); err != nil || string(b) != n.Name+" validator "+net.Testnet.ChainID+"\n" {
			t.Errorf("%s: the hook wrote %q, %v", n.Name, b, err)
		}
	}
	var doc struct {
		InitialHeight json.RawMessage `json:"initial_height"`
	}
	if err := json.Unmarshal(g, &doc); err != nil || strings.Trim(string(doc.InitialHeight), `"`) != "7" {
		t.Errorf("init_args did not reach init: initial height %s in genesis (%v), want 7", doc.InitialHeight, err)
	}

	// A hook that fails stops the set-up with what it printed, escaped.
	os.WriteFile(hook, []byte("#!/bin/sh\nprintf 'no state for this chain\\033[31m\\n'\nexit 3\n"), 0o755)
	a, err = New(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	newFake, _ := providertest.Factory(providertest.Config{})
	_, err = live.Up(context.Background(), s.Testnet, live.UpOptions{Chain: a, Provider: newFake})
	if err == nil || !strings.Contains(err.Error(), "setup_hook") || !strings.Contains(err.Error(), "no state for this chain?[31m") {
		t.Errorf("a failing hook: %v; want its output, escaped", err)
	}

	s = mustParse(t, fmt.Sprintf(text, forkedCLI(t, bin, false)))
	a, err = New(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = live.Up(context.Background(), s.Testnet, live.UpOptions{Chain: a, Provider: newFake})
	if err == nil || !strings.Contains(err.Error(), "offers add-genesis-account, gentx, collect-gentxs") {
		t.Errorf("a CLI without genesis commands: %v; want the commands looked for named", err)
	}
}
