package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/testnet"
	bip39 "github.com/cosmos/go-bip39"
)

// TestExternalCosmos: a Cosmos SDK chain chainperf did not make for this
// run (a detached testnet, addressed only by URLs) is loaded from wallets
// that one given account funds at the start: chain ID, prefix, denom,
// account numbers and the node's minimum fee read from the chain; every
// balance checked after; what is left swept back to the funder; the
// mnemonic nowhere in the output, the database or the report. On the same
// network, a workload learned from its blocks (learnedMix).
func TestExternalCosmos(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real Cosmos SDK nodes")
	}
	t.Parallel()
	reg, tmp := t.TempDir(), t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if strings.HasSuffix(name, ".toml") {
			text = besideOthers(text)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The network: its minimum gas price is one the external scenario does
	// not know (it says 0); its chain ID is one the scenario does not name.
	dir := filepath.Join(tmp, "net")
	local := write("local.toml", `[testnet]
validators = 2
full_nodes = 1
chain = "cosmos"
chain_id = "their-chain-7"
[testnet.cosmos]
wallets = 2
gas_price = 0.01
[testnet.config]
"consensus.timeout_commit" = "300ms"
[workload]
kind = "cosmos-send"
`)
	if out, code := cli(t, reg, "testnet", "up", "-f", local, "--detach", "--dir", dir); code != 0 {
		t.Fatalf("testnet up: exit %d\n%s", code, out)
	}
	t.Cleanup(func() { cli(t, reg, "testnet", "down", "--dir", dir) })
	st, err := testnet.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	var nodes strings.Builder
	var rpc string
	for _, n := range st.Nodes {
		e := n.Endpoint()
		fmt.Fprintf(&nodes, "[[testnet.node]]\nname = %q\nrole = %q\nrpc = %q\n", n.Name, n.Role, e.RPC)
		if n.Role == testnet.RoleFull {
			rpc = e.RPC
		}
	}

	// The team's account: a fresh mnemonic, paid from a genesis wallet.
	entropy, _ := bip39.NewEntropy(256)
	mnemonic, _ := bip39.NewMnemonic(entropy)
	funder, err := cosmos.FromMnemonic(mnemonic, cosmos.DefaultHDPath, "cosmos")
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	const gift = 5_000_000_000
	// `testnet up` returns with the nodes answering, not with a block: an
	// account query before the first one is refused ("wait for first
	// block"), as a CI run beside other testnets saw.
	waitHeight(t, "full0", rpc, 2)
	pay(t, hc, rpc, "their-chain-7", funder.Address, gift)
	before := balanceOf(t, hc, rpc, funder.Address)

	db, reports := filepath.Join(tmp, "runs.db"), filepath.Join(tmp, "reports")
	ext := write("ext.toml", `name = "ext-cosmos"
[testnet]
provider = "external"
chain = "cosmos"
[testnet.cosmos]
funder_mnemonic_env = "CHAINPERF_TEST_FUNDER"
wallets = 40
wallet_balance = 10000000
gas_price = 0
sweep_back = true
[workload]
kind = "cosmos-send"
[load]
rate = 40
duration = "6s"
[experiment]
kind = "steady"
warmup = "1s"
cooldown = "1s"
`+nodes.String())
	out, code := cliWith(t, reg, []string{"CHAINPERF_TEST_FUNDER=" + mnemonic}, "run", ext, "--db", db, "--report-dir", reports)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	id := regexp.MustCompile(`run (\d{8}-\d{6}-[0-9a-f]{4}): PASS`).FindStringSubmatch(out)
	if id == nil || !strings.Contains(out, "conserved") {
		t.Fatalf("no passed run with conserved balances:\n%s", out)
	}
	r := storedRun(t, db, id[1])
	c := chain.CosmosOf(r)
	if c == nil || c.Funding == nil || c.Balances == nil {
		t.Fatalf("the stored run has no funding or balance check: %+v", c)
	}
	f, b := c.Funding, c.Balances
	if f.ChainID != "their-chain-7" || f.Denom != "stake" || f.Funder != funder.Address || f.Txs != 1 || f.Paid != 40*10_000_000 {
		t.Errorf("funding %+v: want chain their-chain-7, stake, 1 tx paying 40 wallets 10000000 each", f)
	}
	if f.GasPrice < 0.01 || f.GasPrice > 0.0101 {
		t.Errorf("gas price %g: want the node's 0.01, read from its answer", f.GasPrice)
	}
	if !b.OK() || b.Committed == 0 || b.Funded != f.Paid {
		t.Errorf("balance check %+v: want conserved over what the funder paid", b)
	}
	// Swept back: what the funder holds now is what it held less what it
	// paid, the funding fee and what the wallets spent on fees.
	after := balanceOf(t, hc, rpc, funder.Address)
	if f.Swept == 0 || after != before-f.Paid-f.Fees+f.Swept {
		t.Errorf("funder held %d, paid %d + fee %d, got back %d: holds %d", before, f.Paid, f.Fees, f.Swept, after)
	}
	if spent := f.Paid - f.Swept; spent < b.FeesPaid {
		t.Errorf("the wallets kept %d after the sweep; their fees were %d", spent, b.FeesPaid)
	}
	// The mnemonic is nowhere: output, database, report files.
	word := strings.Join(strings.Fields(mnemonic)[:4], " ")
	if strings.Contains(out, word) {
		t.Errorf("the run's output holds the mnemonic")
	}
	filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(p, dir) {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), word) {
				t.Errorf("%s holds the mnemonic", p)
			}
		}
		return nil
	})

	learnedMix(t, reg, ext, mnemonic, rpc, db, reports)

	// Refused with the reason, nothing sent: the variable unset, a file
	// that is not a mnemonic (its words never quoted).
	if out, code := cliWith(t, reg, []string{"CHAINPERF_TEST_FUNDER="}, "run", ext, "--db", db, "--report-dir", reports); code == 0 || !strings.Contains(out, "$CHAINPERF_TEST_FUNDER is unset or empty") {
		t.Errorf("no mnemonic: exit %d\n%s", code, out)
	}
	bad := write("bad.txt", "correct horse battery staple\n")
	text := strings.Replace(string(mustRead(t, ext)), `funder_mnemonic_env = "CHAINPERF_TEST_FUNDER"`, fmt.Sprintf("funder_mnemonic_file = %q", bad), 1)
	if out, code := cli(t, reg, "run", write("bad.toml", text), "--db", db, "--report-dir", reports); code == 0 || !strings.Contains(out, "not a valid BIP-39 mnemonic") || strings.Contains(out, "horse") {
		t.Errorf("a bad mnemonic file: exit %d\n%s", code, out)
	}
}

// pay sends amount of stake to address from genesis wallet 0 of the
// default seed and waits until the address holds it.
func pay(t *testing.T, hc *http.Client, rpc, chainID, address string, amount uint64) {
	t.Helper()
	ctx := context.Background()
	w, err := cosmos.Derive("chainperf", 0, "cosmos")
	if err != nil {
		t.Fatal(err)
	}
	a, err := cosmos.QueryAccount(ctx, hc, rpc, w.Address)
	if err != nil {
		t.Fatal(err)
	}
	w.Number = a.Number
	spec := cosmos.TxSpec{ChainID: chainID, Msgs: cosmos.One(cosmos.URLMsgSend, cosmos.MsgSend(nil, w.Address, address, cosmos.Coin{Denom: "stake", Amount: amount})),
		GasLimit: 200_000, Fee: cosmos.Coin{Denom: "stake", Amount: 2000}}
	var b cosmos.Builder
	tx, err := b.Append(nil, &spec, &w, a.Sequence)
	if err != nil {
		t.Fatal(err)
	}
	if code, log, err := cosmos.BroadcastSync(ctx, hc, rpc, tx); err != nil || code != 0 {
		t.Fatalf("pay: code %d %s %v", code, log, err)
	}
	for deadline := time.Now().Add(30 * time.Second); balanceOf(t, hc, rpc, address) < amount; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s was not paid in 30 s", address)
		}
	}
}

func balanceOf(t *testing.T, hc *http.Client, rpc, address string) uint64 {
	t.Helper()
	v, err := cosmos.QueryBalance(context.Background(), hc, rpc, address, "stake", 0)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// learnedMix: a run of a known mix (sends, multisends, delegations) on the
// network, then ` + "`workload learn`" + ` over that run's blocks: one entry a
// message type, its share of the messages within 2 points of what the run
// committed; then the learned workload runs to PASS on the same network,
// every templated tx accounted by its coin events.
func learnedMix(t *testing.T, reg, ext, mnemonic, rpc, db, reports string) {
	t.Helper()
	text := strings.Replace(string(mustRead(t, ext)), "sweep_back = true\n", "", 1)
	known := strings.Replace(text, "[workload]\nkind = \"cosmos-send\"\n", `[workload]
kind = "cosmos-mix"
[[workload.mix]]
msg = "send"
weight = 70
[[workload.mix]]
msg = "multisend"
weight = 20
outputs = 2
[[workload.mix]]
msg = "delegate"
weight = 10
amount = 1000
`, 1)
	scn := filepath.Join(t.TempDir(), "known.toml")
	os.WriteFile(scn, []byte(known), 0o600)
	env := []string{"CHAINPERF_TEST_FUNDER=" + mnemonic}
	out, code := cliWith(t, reg, env, "run", scn, "--db", db, "--report-dir", reports)
	id := regexp.MustCompile(`run (\d{8}-\d{6}-[0-9a-f]{4}): PASS`).FindStringSubmatch(out)
	if code != 0 || id == nil {
		t.Fatalf("the known mix: exit %d\n%s", code, out)
	}
	r := storedRun(t, db, id[1])
	// Every tx the run sent committed (its balance check says so): the
	// shares it sent are the shares its blocks hold.
	committed, total := map[string]float64{}, 0.0
	for _, k := range chain.CosmosOf(r).Stats.Kinds {
		committed[k.Msg] = float64(k.Sent)
		total += float64(k.Sent)
	}
	if b := chain.CosmosOf(r).Balances; b == nil || !b.OK() || float64(b.Committed) != total {
		t.Fatalf("the known mix: balances %+v for %v sent (wallets an earlier run used: their sequences read)", b, committed)
	}
	blocks := r.Main().Blocks
	if len(blocks) == 0 || total == 0 {
		t.Fatalf("the known mix: %d blocks, %v committed", len(blocks), committed)
	}
	from, to := blocks[0].Height, blocks[len(blocks)-1].Height
	path := filepath.Join(t.TempDir(), "learned.toml")
	if out, code := cli(t, reg, "workload", "learn", "--rpc", rpc, "--from", fmt.Sprint(from), "--to", fmt.Sprint(to), "-o", path); code != 0 {
		t.Fatalf("workload learn: exit %d\n%s", code, out)
	}
	learned := string(mustRead(t, path))
	t.Logf("learned from blocks %d-%d:\n%s", from, to, learned)
	shares := map[string]string{"send": "/cosmos.bank.v1beta1.MsgSend", "multisend": "/cosmos.bank.v1beta1.MsgMultiSend", "delegate": "/cosmos.staking.v1beta1.MsgDelegate"}
	for kind, url := range shares {
		m := regexp.MustCompile(`# ` + regexp.QuoteMeta(url) + `: \d+ of \d+ messages \(([0-9.]+) %\)`).FindStringSubmatch(learned)
		if m == nil {
			t.Errorf("no learned entry for %s (%s)", kind, url)
			continue
		}
		var got float64
		fmt.Sscan(m[1], &got)
		if want := 100 * committed[kind] / total; got < want-2 || got > want+2 {
			t.Errorf("%s: learned %.1f %% of the messages; the run committed %.1f %%", kind, got, want)
		}
	}
	// The learned workload, run on the same network.
	i := strings.Index(learned, "[workload]")
	if i < 0 {
		t.Fatalf("no [workload] in what learn wrote")
	}
	again := regexp.MustCompile(`(?s)\[workload\]\nkind = "cosmos-send"\n`).ReplaceAllLiteralString(text, "")
	again = strings.Replace(again, "[load]", learned[i:]+"\n[load]", 1)
	scn = filepath.Join(t.TempDir(), "learned.toml")
	os.WriteFile(scn, []byte(again), 0o600)
	out, code = cliWith(t, reg, env, "run", scn, "--db", db, "--report-dir", reports)
	if code != 0 || !strings.Contains(out, "PASS") || !strings.Contains(out, "templated txs") {
		t.Fatalf("the learned workload: exit %d\n%s\n%s", code, again, out)
	}
}
