package main

import (
	"context"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/evm"
	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/testnet"
)

// TestExternalEVM: a Cosmos EVM chain chainperf did not make for this run
// (a detached testnet, addressed only by URLs) is loaded from wallets one
// given key funds at the start: the EVM chain ID, prefix, denom, nonces
// and base fee read from the chain; native, ERC20 and contract txs; every
// balance, nonce and token checked after, the fees reckoned from the
// blocks; what is left swept back to the funder. Run twice with the same
// key, so the second run starts from nonces that are not 0. The key is
// nowhere in the output, the database or the report.
func TestExternalEVM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts a Cosmos EVM chain")
	}
	t.Parallel()
	ctx := context.Background()
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
	// The network: an EVM chain ID and denom the external scenario does
	// not name (it keeps the defaults). One validator and no full node: a
	// full node beside a lone validator falls behind it at 300 ms blocks
	// (it enters each height a gossip later), and the check would wait.
	dir := filepath.Join(tmp, "net")
	local := write("local.toml", `[testnet]
validators = 1
full_nodes = 0
chain = "evm"
[testnet.evm]
wallets = 2
chain_id = 4242
denom = "atheirs"
display = "theirs"
[testnet.config]
"consensus.timeout_commit" = "300ms"
[workload]
kind = "evm-transfer"
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
	var jsonrpc, rpc string
	for _, n := range st.Nodes {
		j := "http://" + net.JoinHostPort(n.Host, strconv.Itoa(n.Ports.JSONRPC))
		fmt.Fprintf(&nodes, "[[testnet.node]]\nname = %q\nrole = %q\nrpc = %q\njson_rpc = %q\n", n.Name, n.Role, n.Endpoint().RPC, j)
		jsonrpc, rpc = j, n.Endpoint().RPC
	}
	// `testnet up` returns with the nodes answering, not with a block.
	waitHeight(t, "the network", rpc, 2)
	// The team's key: the testnet's genesis wallet 0, written by
	// testnet funder-key to a file of its own (outside tmp, which the
	// end of the test searches for the key).
	keyFile := filepath.Join(t.TempDir(), "funder.key")
	out, code := cli(t, reg, "testnet", "funder-key", "-f", local, "--out", keyFile)
	funder := evm.Derive("chainperf", 0)
	if code != 0 || !strings.Contains(out, funder.Address.String()) {
		t.Fatalf("testnet funder-key: exit %d, want wallet 0's address %s\n%s", code, funder.Address, out)
	}
	var d [32]byte
	funder.Key.Key.PutBytes(&d)
	key := fmt.Sprintf("%x", d)
	if data := string(mustRead(t, keyFile)); data != key+"\n" || strings.Contains(out, key[:16]) {
		t.Fatalf("testnet funder-key wrote %d bytes that are not wallet 0's key, or printed the key", len(data))
	}
	hc := nodehttp.Client(nodehttp.Query)
	balance := func(a evm.Address) *big.Int {
		b, err := evm.BalanceAt(ctx, hc, jsonrpc, a, 0)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	db, reports := filepath.Join(tmp, "runs.db"), filepath.Join(tmp, "reports")
	ext := write("ext.toml", `name = "ext-evm"
[testnet]
provider = "external"
chain = "evm"
[testnet.evm]
funder_key_file = "`+keyFile+`"
wallets = 30
wallet_balance = 10
sweep_back = true
[workload]
kind = "evm-mix"
read_rate = 20
[[workload.mix]]
msg = "native"
weight = 2
[[workload.mix]]
msg = "erc20"
weight = 1
[[workload.mix]]
msg = "store"
weight = 1
[load]
rate = 40
duration = "5s"
[experiment]
kind = "steady"
warmup = "1s"
cooldown = "1s"
drain_timeout = "20s"
`+nodes.String())
	var outs string
	// The second run signs each phase's txs before it, from the nonces the
	// first left on the chain; the third reads each sender's nonce and
	// balance from the chain before its tx.
	mode := func(name, m string) string {
		return write(name, strings.Replace(string(mustRead(t, ext)), "read_rate = 20", "read_rate = 20\nmode = \""+m+"\"", 1))
	}
	files := []string{ext, mode("pregen.toml", "pregenerate"), mode("persistent.toml", "persistent")}
	for round := 1; round <= len(files); round++ {
		before := balance(funder.Address)
		out, code := cli(t, reg, "run", files[round-1], "--db", db, "--report-dir", reports)
		outs += out
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s", round, code, out)
		}
		id := regexp.MustCompile(`run (\d{8}-\d{6}-[0-9a-f]{4}): PASS`).FindStringSubmatch(out)
		if id == nil || !strings.Contains(out, "conserved") {
			t.Fatalf("run %d: no passed run with conserved balances:\n%s", round, out)
		}
		r := storedRun(t, db, id[1])
		e := chain.EVMOf(r)
		if e == nil || e.Funding == nil || e.Balances == nil || e.Token == "" {
			t.Fatalf("run %d: the stored run has no funding, token or balance check: %+v", round, e)
		}
		if g := e.Signing; (g.Pregenerated > 0) != (round == 2) || g.Live != 0 {
			t.Errorf("run %d: signing %+v: want every tx pregenerated in the second run only", round, g)
		}
		if p := e.Persistence; (p != nil) != (round == 3) || p != nil && (p.Reads < 100 || p.ReadFailed != 0 || p.Poor != 0) {
			t.Errorf("run %d: persistence %+v: want every tx's sender read in the third run only", round, p)
		}
		if len(e.Reads) != 3 {
			t.Errorf("run %d: reads %+v: want the three kinds", round, e.Reads)
		}
		for _, x := range e.Reads {
			if x.Answered < 10 || x.Failed+x.Skipped != 0 {
				t.Errorf("run %d: read %+v: want all answered by the network's JSON-RPC", round, x)
			}
		}
		f, b := e.Funding, e.Balances
		if e.ChainID != 4242 || b.Denom != "atheirs" || f.Funder != funder.Address.String() || b.Fees == "" || b.Committed < 100 || !b.OK() {
			t.Errorf("run %d: chain %d, denom %s, funder %s, check %s: want 4242, atheirs read from the chain, fees reckoned, conserved", round, e.ChainID, b.Denom, f.Funder, b)
		}
		// The balance reader (an eth_call) reads what eth_getBalance does,
		// on the chain's own EVM.
		seed := evm.FunderSeed(funder, "chainperf")
		accounts := append(evm.Wallets(seed, 30), evm.Derive(seed+"/deployer", 0), funder)
		var addrs []evm.Address
		for _, w := range accounts {
			addrs = append(addrs, w.Address)
		}
		tip, err := evm.BlockNumber(ctx, hc, jsonrpc)
		if err != nil {
			t.Fatal(err)
		}
		byCall, err := evm.BalancesByCall(ctx, hc, jsonrpc, addrs, tip-1)
		if err != nil {
			t.Fatalf("run %d: the balance reader: %v", round, err)
		}
		for i, a := range addrs {
			if b, err := evm.BalanceAt(ctx, hc, jsonrpc, a, tip-1); err != nil || b.Cmp(byCall[i]) != 0 || i == len(addrs)-1 && b.Sign() == 0 {
				t.Errorf("run %d: %s: the balance reader says %s, eth_getBalance %s (%v)", round, a, byCall[i], b, err)
			}
		}
		// Every wallet and the deployer start empty (new, or swept): one
		// disperser deployed and one call of it fund the 31.
		if f.ToppedUp != 31 || f.Txs != 2 {
			t.Errorf("run %d: %d topped up in %d txs: want 31 in 2 (the disperser's deployment and one call)", round, f.ToppedUp, f.Txs)
		}
		// The wallets hold nothing after the sweep, and the funder what it
		// held less what it paid and the funding's fees, plus the sweep.
		for _, w := range accounts[:31] {
			if b := balance(w.Address); b.Sign() != 0 {
				t.Errorf("run %d: %s holds %s after the sweep", round, w.Address, b)
			}
		}
		paid, _ := new(big.Int).SetString(f.Paid, 10)
		fees, _ := new(big.Int).SetString(f.Fees, 10)
		swept, _ := new(big.Int).SetString(f.Swept, 10)
		want := new(big.Int).Sub(before, paid)
		want.Sub(want, fees).Add(want, swept)
		if after := balance(funder.Address); swept == nil || swept.Sign() <= 0 || after.Cmp(want) != 0 {
			t.Errorf("run %d: funder held %s, paid %s + fees %s, got back %s: holds %s, want %s", round, before, f.Paid, f.Fees, f.Swept, after, want)
		}
	}
	// The key is nowhere: output, database, report files.
	if strings.Contains(outs, key[:16]) {
		t.Errorf("the runs' output holds the key")
	}
	filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(p, dir) {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), key[:16]) {
				t.Errorf("%s holds the key", p)
			}
		}
		return nil
	})
	// A funder that cannot pay the top-ups is refused with both sums, before
	// any transfer.
	before := balance(funder.Address)
	rich := strings.Replace(string(mustRead(t, ext)), "wallet_balance = 10", "wallet_balance = 1000000", 1)
	if out, code := cli(t, reg, "run", write("rich.toml", rich), "--db", db, "--report-dir", reports); code == 0 || !strings.Contains(out, "holds "+before.String()+" wei; topping 31 wallets") {
		t.Errorf("a funder short of funds: exit %d\n%s", code, out)
	}
	if after := balance(funder.Address); after.Cmp(before) != 0 {
		t.Errorf("the refused run moved the funder's funds: %s, then %s", before, after)
	}
	// Refused with the reason: the variable unset; a file that is not a key
	// (its text never quoted).
	byEnv := strings.Replace(string(mustRead(t, ext)), `funder_key_file = "`+keyFile+`"`, `funder_key_env = "CHAINPERF_TEST_EVM_FUNDER"`, 1)
	if out, code := cliWith(t, reg, []string{"CHAINPERF_TEST_EVM_FUNDER="}, "run", write("env.toml", byEnv), "--db", db, "--report-dir", reports); code == 0 || !strings.Contains(out, "$CHAINPERF_TEST_EVM_FUNDER is unset or empty") {
		t.Errorf("no key: exit %d\n%s", code, out)
	}
	bad := write("bad.txt", "0xfeedfacecafe\n")
	text := strings.Replace(string(mustRead(t, ext)), `funder_key_file = "`+keyFile+`"`, fmt.Sprintf("funder_key_file = %q", bad), 1)
	if out, code := cli(t, reg, "run", write("bad.toml", text), "--db", db, "--report-dir", reports); code == 0 || !strings.Contains(out, "not a private key") || strings.Contains(out, "feedface") {
		t.Errorf("a bad key file: exit %d\n%s", code, out)
	}
}
