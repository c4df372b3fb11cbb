package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/store"
)

// TestIBCTransfers runs examples/ibc-transfer.toml, its two wasmd
// testnets and Hermes between them (transfers back from the counterparty
// at a fifth of the rate), for 15 s, with one transfer in ten
// sent to a receiver the other chain cannot take, and the relayer killed
// 13 s into the 15 s load. The run follows every packet from both chains'
// blocks: B refused some (error acknowledgements), the relayer left
// others in flight when it went down, none is lost (every packet sent by
// a committed tx has a fate), and A's escrow is what B minted plus what
// the unsettled packets carry. The verdict is FAIL for exactly those
// three: packets refused, packets in flight, the relayer down.
func TestIBCTransfers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Hermes and wasmd; two testnets and a relayer")
	}
	// It times nothing: .ci/run runs it in the cluster's lane.
	t.Parallel()
	dir := t.TempDir()
	text := strings.Replace(example(t, "ibc-transfer"), `duration = "2m"`, `duration = "15s"`, 1)
	// Time enough for every packet on a loaded machine: none in flight.
	text = strings.Replace(text, `drain = "30s"`, `drain = "2m"`, 1)
	text = strings.Replace(text, "weight = 1\n", "weight = 9\n", 1) + `
[[workload.mix]]
msg = "transfer-refused"
weight = 1
template = """{"@type": "/ibc.applications.transfer.v1.MsgTransfer", "source_port": "transfer",
  "source_channel": "channel-0", "token": {"denom": "{denom}", "amount": "{int:1:100}"},
  "sender": "{wallet}", "receiver": "not-an-address-{counter}",
  "timeout_height": {"revision_number": "1", "revision_height": "1000000000"}}"""
`
	text = strings.Replace(text, "\n[ibc]\n", "\n[[perturbation]]\nkind = \"kill\"\nnodes = [\"relayer\"]\nat = \"13s\"\n\n[ibc]\n", 1)
	// Settings of Hermes's own, which it would refuse to start on if they were misnamed.
	text = strings.Replace(text, "\n[workload]\n", "\n[ibc.hermes]\nmax_msg_num = 10\nbatch_delay = \"300ms\"\n\n[workload]\n", 1)
	scn := filepath.Join(dir, "ibc-transfer.toml")
	os.WriteFile(scn, []byte(besideOthers(text)), 0o644)
	os.WriteFile(filepath.Join(dir, "ibc-counterparty.toml"), []byte(example(t, "ibc-counterparty")), 0o644)
	reports := filepath.Join(dir, "reports")
	out, code := cli(t, t.TempDir(), "run", scn, "--db", filepath.Join(dir, "runs.db"), "--report-dir", reports)
	if code != 1 || !strings.Contains(out, "FAIL") {
		t.Fatalf("exit %d, want 1 (FAIL: refused packets, packets in flight, the relayer down)\n%s", code, out)
	}
	r := readSummary(t, reports)
	failing := map[string]bool{"packets acknowledged with an error": true, "packets in flight at the end": true, "node crashes": true,
		"back packets in flight at the end": true} // the counterparty's, sent after the relayer went down
	for _, c := range r.Checks {
		if c.Pass == failing[c.Name] {
			t.Errorf("check %q: pass %v (value %v)", c.Name, c.Pass, c.Value)
		}
	}
	if !slices.Equal(r.Crashed, []string{"relayer"}) || len(r.Faults) != 1 || r.Faults[0].What != "kill" || r.Faults[0].Nodes != "relayer" {
		t.Errorf("crashed %v, faults %+v: want the relayer killed on the timeline", r.Crashed, r.Faults)
	}
	f, ok := r.Finding("ibc/transfer")
	if !ok {
		t.Fatalf("no IBC finding\n%s", out)
	}
	figure := func(name string) float64 {
		x, ok := f.Figure(name)
		if !ok {
			t.Fatalf("no figure %q in %+v", name, f.Figures)
		}
		return x.Value
	}
	committed := int64(0)
	for _, p := range r.Phases {
		committed += p.Ledger.Fates[load.FateCommitted]
	}
	sent, acked, refused, left := figure("packets sent"), figure("packets acknowledged"), figure("packets acknowledged with an error"), figure("packets in flight at the end")
	if int64(sent) != committed || acked < 1 || refused < 1 || left < 1 || acked+refused+left+figure("packets timed out") != sent || figure("escrow not matched by vouchers") != 0 {
		t.Errorf("%v packets sent by %d committed txs: %v acknowledged, %v refused, %v in flight\n%s", sent, committed, acked, refused, left, out)
	}
	if figure("relayer RSS") < 10 || figure("relayer CPU") <= 0 { // scraped beside the nodes: its /proc and its telemetry
		t.Errorf("the relayer's use: %+v", f.Figures)
	}
	// The counterparty's nodes are scraped as the run's are, by chain.
	sdb, err := store.Open(context.Background(), filepath.Join(dir, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	series, err := sdb.Series(context.Background(), r.ID)
	sdb.Close()
	scraped := map[string]bool{}
	for _, x := range series {
		if x.Series == observe.SeriesRSS && x.Value > 0 {
			scraped[x.Node] = true
		}
	}
	if !scraped["validator0"] || !scraped["ibcb-1/validator0"] || !scraped["relayer"] {
		t.Errorf("RSS of %v (%v); want validator0, ibcb-1/validator0 and relayer", scraped, err)
	}
	if figure("relay to B p50") <= 0 || figure("relay and acknowledgement p99") < figure("relay to B p50") {
		t.Errorf("latencies: %+v", f.Figures)
	}
	for _, want := range []string{"conserved: ", "stake escrowed on A = ", "vouchers minted on B", "acknowledged with an error by B: ",
		"hermes 1.10.5 (max_msg_num 10, batch_delay 300ms), channel channel-0 on A to channel-0 on B", "it went down during the run: signal: killed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run does not say %q\n%s", want, out)
		}
	}
	if rec := chain.CosmosOf(&r); rec == nil || rec.Balances == nil || !rec.Balances.OK() {
		t.Errorf("every wallet as its txs say (the refused transfers refunded): %+v", rec)
	}
	// The counterparty's load back (ibc.back = 0.2 of 5 tx/s): its packets
	// followed from B to A, B's escrow matched by A's vouchers and the
	// unsettled packets, its wallets as their txs say.
	back, ok := r.Finding("ibc/transfer-back")
	if !ok {
		t.Fatalf("no finding of the transfers back\n%s", out)
	}
	if x, _ := back.Figure("back packets sent"); x.Value < 3 {
		t.Errorf("back packets sent %v; want about 15\n%s", x.Value, out)
	}
	for _, name := range []string{"back escrow not matched by vouchers", "back wallets not as their txs say"} {
		if x, ok := back.Figure(name); !ok || x.Value != 0 {
			t.Errorf("%s: %+v, %v", name, x, ok)
		}
	}
	// The counterparty's node logs and the relayer's are kept with the run.
	for node, want := range map[string]string{"ibcb-1/validator0": "(?i)commit", "relayer": "(?i)hermes|relay|packet"} {
		logs, code := cli(t, t.TempDir(), "runs", "logs", r.ID, "--node", node, "--grep", want, "--db", filepath.Join(dir, "runs.db"))
		if code != 0 || strings.Count(logs, "\n") < 3 || !strings.HasPrefix(logs, node+" | ") {
			t.Errorf("runs logs --node %s --grep %s: exit %d\n%.2000s", node, want, code, logs)
		}
	}
}
