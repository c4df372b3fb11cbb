package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/sdkchain"
	"github.com/chainperf/chainperf/internal/traces"
)

// TestEVMTransfer sends signed EVM transfers on a real Cosmos EVM chain
// (chainperf-evmd) through CometBFT's broadcast_tx_sync in two phases
// (nonces carry over) and through the nodes' eth_sendRawTransaction, and
// checks that every tx committed and the funds and nonces add up; then
// txs signed for another EVM chain ID are refused over JSON-RPC, each with
// the reason, and counted.
func TestEVMTransfer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts a Cosmos EVM chain")
	}
	t.Parallel()
	run := func(via, extra string, repeats int) (int, string, results.Run, map[load.Fate]int64) {
		code, out, r := runScenario(t, besideOthers(fmt.Sprintf(`name = "evm"
[testnet]
validators = 2
full_nodes = 1
chain = "evm"
[testnet.evm]
wallets = 300
send_via = %q
[workload]
kind = "evm-transfer"
amount = 7
%s
[load]
rate = 60
duration = "5s"
[experiment]
kind = "steady"
repeats = %d
warmup = "1s"
cooldown = "1s"
pause = "1s"
drain_timeout = "20s"
[criteria]
max_unresolved = 0
load_delivered = false
max_rejected_share = 0.01
[observe]
traces = %t
`, via, extra, repeats, via == "cometbft")))
		if evmOf(r) == nil || evmOf(r).Wallets != 300 || !strings.Contains(evmOf(r).Workload, "native transfers of 7 wei") {
			t.Fatalf("no EVM record: %+v\n%s", evmOf(r), out)
		}
		fates := map[load.Fate]int64{}
		sent := 0
		for _, p := range r.Phases {
			sent += int(p.Ledger.Sent)
			for f, n := range p.Ledger.Fates {
				fates[f] += n
			}
		}
		if len(r.Phases) != repeats || int64(sent) != evmOf(r).Balances.Committed+fates[load.FateRejected] {
			t.Fatalf("%d phases (want %d), %d sent, fates %v, balances %s\n%s", len(r.Phases), repeats, sent, fates, evmOf(r).Balances, out)
		}
		return code, out, r, fates
	}
	for via, repeats := range map[string]int{"cometbft": 2, "json-rpc": 1} {
		code, out, r, fates := run(via, "", repeats)
		b := evmOf(r).Balances
		if code != 0 || b.Committed < 200*int64(repeats) || fates[load.FateCommitted] != b.Committed || !b.OK() || b.Nonces != b.Committed ||
			b.FeeCollector == "0" || !strings.Contains(out, "balances:   conserved") {
			t.Fatalf("%s: exit %d, fates %v, balances %s\n%s", via, code, fates, b, out)
		}
		if over := strings.Contains(evmOf(r).Workload, "over JSON-RPC"); over != (via == "json-rpc") {
			t.Fatalf("%s: workload %q", via, evmOf(r).Workload)
		}
		if via == "cometbft" { // an EVM chain's nodes say where the time went
			explained(t, &r, true)
			traced(t, &r, out, "/cosmos.evm.vm.v1.MsgEthereumTx")
		}
	}
	// Signed for chain 1: the chain refuses every tx with the reason, each
	// sender's next tx uses the refused nonce again, nothing is spent, and
	// the run fails on the rejected share.
	code, out, r, fates := run("json-rpc", `chain_id = "1"`, 1)
	b := evmOf(r).Balances
	if code != 1 || fates[load.FateRejected] < 200 || fates[load.FateCommitted] != 0 || evmOf(r).NoncesReused != fates[load.FateRejected] ||
		!b.OK() || b.FeeCollector != "0" || !strings.Contains(out, "wrong EVM chain ID") {
		t.Fatalf("exit %d, fates %v, reused %d, balances %s\n%s", code, fates, evmOf(r).NoncesReused, b, out)
	}
}

// traced checks that an SDK v0.54 chain's own spans came from every node
// and say where a block's execution went: the ante handlers and each of
// the message types' handlers are parts of it, and the summary says so.
func traced(t *testing.T, r *results.Run, out string, types ...string) {
	t.Helper()
	f, ok := r.Finding(traces.Source)
	if !ok {
		t.Fatalf("no traces finding\n%s", out)
	}
	exec, _ := f.Figure(traces.Execution)
	ante, _ := f.Figure(traces.Execution + ": ante handlers")
	parts := ante.Value
	for _, ty := range types {
		part, _ := f.Figure(traces.Execution + ": " + ty)
		perMsg, _ := f.Figure(ty + " handler per message")
		if part.Value <= 0 || part.PartOf != traces.Execution || perMsg.Value <= 0 {
			t.Errorf("%s: part of the execution %+v, per message %+v", ty, part, perMsg)
		}
		parts += part.Value
	}
	if exec.Value <= 0 || ante.Value <= 0 || parts > exec.Value || len(f.Tables) < 2 || len(f.Tables[1].Rows) != len(r.Nodes) ||
		!strings.Contains(out, "app:") {
		t.Fatalf("traces finding: %+v\n%s", f, out)
	}
}

// TestEVMERC20 deploys the token, hands it out and sends ERC20 transfers
// on a real Cosmos EVM chain: every transfer committed and every token
// balance what the transfers say. With no tokens handed out every
// transfer reverts in its block (code 0, receipt status 0): each is
// committed_failed with the VM's reason, pays its fee, uses its nonce,
// and the run fails on committed tx/s.
func TestEVMERC20(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts a Cosmos EVM chain")
	}
	// Alone (no t.Parallel): its reads are open loop and all must be
	// answered; beside two other testnets a CI run skipped 5 of 79.
	run := func(tokens int, workload string) (int, string, results.Run, map[load.Fate]int64) {
		code, out, r := runScenario(t, besideOthers(fmt.Sprintf(`name = "erc20"
[testnet]
validators = 2
full_nodes = 1
chain = "evm"
[testnet.evm]
wallets = 250
token_balance = %d
[workload]
%s
[load]
rate = 50
duration = "5s"
[experiment]
kind = "steady"
warmup = "1s"
cooldown = "1s"
drain_timeout = "20s"
[criteria]
max_unresolved = 0
load_delivered = false
min_committed_tps = 10
`, tokens, workload)))
		if evmOf(r) == nil || evmOf(r).Balances == nil || evmOf(r).Token == "" {
			t.Fatalf("no EVM record or token: %+v\n%s", evmOf(r), out)
		}
		fates := map[load.Fate]int64{}
		for _, p := range r.Phases {
			for f, n := range p.Ledger.Fates {
				fates[f] += n
			}
		}
		return code, out, r, fates
	}
	const erc20 = "kind = \"evm-erc20\"\namount = 1000"
	code, out, r, fates := run(1000, erc20)
	b := evmOf(r).Balances
	if code != 0 || fates[load.FateCommitted] < 200 || fates[load.FateCommitted] != b.Committed || b.Reverted != 0 || !b.OK() ||
		b.Tokens != "250000000000000000000000" || !strings.Contains(evmOf(r).Workload, "ERC20 transfers of 1000 token units") {
		t.Fatalf("exit %d, fates %v, balances %s\n%s", code, fates, b, out)
	}
	code, out, r, fates = run(0, erc20)
	b = evmOf(r).Balances
	if code != 1 || fates[load.FateCommittedFailed] < 200 || fates[load.FateCommitted] != 0 || b.Reverted != fates[load.FateCommittedFailed] ||
		b.Nonces != b.Reverted || !b.OK() || b.Tokens != "0" || b.FeeCollector == "0" || !strings.Contains(out, "reverted") {
		t.Fatalf("exit %d, fates %v, balances %s\n%s", code, fates, b, out)
	}
	// A mix of every kind: native and token transfers, storage writes,
	// gas burns and contract deployments, each kind's results apart (by
	// its gas), every balance right and what each contract tx left on the
	// chain read back.
	code, out, r, fates = run(1000, `kind = "evm-mix"
amount = 1000
read_rate = 30
[[workload.mix]]
msg = "native"
weight = 40
[[workload.mix]]
msg = "erc20"
weight = 15
amount = 7
[[workload.mix]]
msg = "store"
weight = 15
[[workload.mix]]
msg = "burn"
weight = 15
amount = 500
[[workload.mix]]
msg = "deploy"
weight = 15`)
	b = evmOf(r).Balances
	if code != 0 || fates[load.FateCommitted] < 200 || !b.OK() || b.Tokens != "250000000000000000000000" || len(evmOf(r).Kinds) != 5 {
		t.Fatalf("exit %d, fates %v, balances %s, kinds %+v\n%s", code, fates, b, evmOf(r).Kinds, out)
	}
	// Reads beside the txs: every kind answered by the nodes' JSON-RPC.
	if reads := evmOf(r).Reads; len(reads) != 3 {
		t.Errorf("reads %+v: want the three kinds", reads)
	} else {
		for _, x := range reads {
			if x.Sent < 20 || x.Answered != x.Sent || x.Failed+x.Skipped != 0 || !(x.P99 > 0) {
				t.Errorf("read %+v: want at least 20 sent over the run, all answered", x)
			}
		}
	}
	k := evmOf(r).Kinds
	var sum int64
	for _, x := range k {
		sum += x.Committed
		if x.Committed < 15 || x.LatencyP99 <= 0 || x.Failed != 0 {
			t.Errorf("kind %+v: want at least 15 committed, none failed", x)
		}
	}
	c := b.Contracts
	if sum != fates[load.FateCommitted] || k[0].GasPerMsg != 21000 || k[1].GasPerMsg < 30000 || k[2].GasPerMsg < 40000 ||
		k[3].GasPerMsg < 21000+500*40 || k[4].GasPerMsg < 53000 || c == nil ||
		c.Stores != k[2].Committed || c.Counted != c.Stores || c.Burns != k[3].Committed || c.Deploys != k[4].Committed || c.Deployed != c.Deploys {
		t.Fatalf("kinds %+v, contracts %+v\n%s", k, c, out)
	}
}

const badEVM = `name = "bad"
[testnet]
validators = 1
full_nodes = 0
chain = "evm"
[testnet.evm]
wallets = 20
%s
[workload]
kind = "evm-transfer"
[load]
rate = 20
duration = "3s"
[experiment]
kind = "steady"
warmup = "0s"
cooldown = "0s"
drain_timeout = "10s"
`

// TestEVMBadInput: an SDK chain without Cosmos EVM (no [evm] and
// [json-rpc] in its app.toml) and a genesis too big for the machine are
// refused before any node starts, with the reason; a fee cap below the
// chain's base fee gets every tx refused with that reason.
func TestEVMBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts a Cosmos EVM chain")
	}
	t.Parallel()
	runBad := func(extra string) (string, int) {
		tmp := t.TempDir()
		scn := filepath.Join(tmp, "s.toml")
		text := fmt.Sprintf(badEVM, extra)
		if strings.HasPrefix(extra, "wallets") {
			text = strings.Replace(fmt.Sprintf(badEVM, ""), "wallets = 20", extra, 1)
		}
		if err := os.WriteFile(scn, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return cli(t, t.TempDir(), "run", scn, "--db", filepath.Join(tmp, "runs.db"), "--report-dir", filepath.Join(tmp, "r"))
	}
	t.Run("an SDK chain without Cosmos EVM", func(t *testing.T) {
		sdkd, err := sdkchain.SDKD.Find(context.Background(), "", t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		out, code := runBad(fmt.Sprintf("binary = %q", sdkd))
		if code != 2 || !strings.Contains(out, "has no evm.evm-chain-id, json-rpc.address") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
	t.Run("genesis too big", func(t *testing.T) {
		out, code := runBad("wallets = 9000000")
		if code != 2 || !strings.Contains(out, "testnet.evm.wallets = 9000000") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
	t.Run("a node on another EVM chain ID", func(t *testing.T) {
		// The flag overrides app.toml's evm.evm-chain-id: the nodes sign
		// for chain 1, which the check of every node's eth_chainId finds
		// before any load is sent.
		out, code := runBad(`start_args = ["start", "--home", "{home}", "--evm.evm-chain-id", "1"]`)
		if code == 0 || !strings.Contains(out, "JSON-RPC says EVM chain ID 1, not testnet.evm.chain_id = 262144") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
	t.Run("fee cap below the base fee", func(t *testing.T) {
		_, out, r := runScenario(t, besideOthers(fmt.Sprintf(badEVM, "max_fee = 1\ntip = 0")))
		l := r.Phases[0].Ledger
		// A refused tx's nonce is used again; bytes the node refused
		// before, CometBFT v0.39's application mempool refuses as seen.
		below := l.Reasons["CheckTx code 13: fee cap below the base fee"]
		if l.Fates[load.FateRejected] == 0 || l.Fates[load.FateRejected] != l.Sent || below == 0 || below+l.Reasons["tx already seen"] != l.Sent ||
			evmOf(r).Balances == nil || !evmOf(r).Balances.OK() {
			t.Fatalf("fates %v, reasons %v\n%s", l.Fates, l.Reasons, out)
		}
	})
}
