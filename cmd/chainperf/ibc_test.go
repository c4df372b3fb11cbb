package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/load"
)

// TestIBCTransfers runs examples/ibc-transfer.toml, its two wasmd
// testnets and Hermes between them, for 15 s, with one transfer in ten
// sent to a receiver the other chain cannot take: B acknowledges those
// with an error and A refunds them. The run follows every packet from
// both chains' blocks: the others acknowledged, the refused ones named,
// every packet sent by a committed tx, and A's escrow what B minted. The
// verdict is FAIL for the refused packets and nothing else (the escrow
// conserved, no crash, every wallet as its txs say).
func TestIBCTransfers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Hermes and wasmd; two testnets and a relayer")
	}
	t.Parallel() // times nothing: .ci/run runs it in the cluster's lane
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
	scn := filepath.Join(dir, "ibc-transfer.toml")
	os.WriteFile(scn, []byte(besideOthers(text)), 0o644)
	os.WriteFile(filepath.Join(dir, "ibc-counterparty.toml"), []byte(example(t, "ibc-counterparty")), 0o644)
	reports := filepath.Join(dir, "reports")
	out, code := cli(t, t.TempDir(), "run", scn, "--db", filepath.Join(dir, "runs.db"), "--report-dir", reports)
	if code != 1 || !strings.Contains(out, "FAIL") {
		t.Fatalf("exit %d, want 1 (FAIL: refused packets)\n%s", code, out)
	}
	r := readSummary(t, reports)
	for _, c := range r.Checks {
		if c.Pass == (c.Name == "packets acknowledged with an error") {
			t.Errorf("check %q: pass %v (value %v)", c.Name, c.Pass, c.Value)
		}
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
	sent, acked, refused := figure("packets sent"), figure("packets acknowledged"), figure("packets acknowledged with an error")
	if int64(sent) != committed || acked < sent/2 || refused < 1 || acked+refused != sent || figure("escrow not matched by vouchers") != 0 {
		t.Errorf("%v packets sent by %d committed txs: %v acknowledged, %v refused\n%s", sent, committed, acked, refused, out)
	}
	if figure("relay to B p50") <= 0 || figure("relay and acknowledgement p99") < figure("relay to B p50") {
		t.Errorf("latencies: %+v", f.Figures)
	}
	for _, want := range []string{"conserved: ", "stake escrowed on A = ", "vouchers minted on B", "acknowledged with an error by B: ",
		"more packets like these", "hermes 1.10.5, channel channel-0 on A to channel-0 on B", "refunded by the relayer's txs"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run does not say %q\n%s", want, out)
		}
	}
	if rec := chain.CosmosOf(&r); rec == nil || rec.Balances == nil || !rec.Balances.OK() {
		t.Errorf("every wallet as its txs say (the refused transfers refunded): %+v", rec)
	}
}
