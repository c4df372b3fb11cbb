package chain

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/evm"
	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/readload"
	"github.com/chainperf/chainperf/internal/results"
)

// The sources of the chains' findings in a run.
const (
	SourceCosmos = "chain/cosmos"
	SourceEVM    = "chain/evm"
)

// Runs stored before findings were data kept these records under "cosmos"
// and "evm": they read as the findings a run makes today, and a run's
// record (summary.json) still has them there.
func init() {
	results.RegisterLegacy("cosmos", SourceCosmos, func(raw json.RawMessage) (finding.Finding, error) {
		var c CosmosRecord
		if err := json.Unmarshal(raw, &c); err != nil {
			return finding.Finding{}, err
		}
		return c.Finding(), nil
	})
	results.RegisterLegacy("evm", SourceEVM, func(raw json.RawMessage) (finding.Finding, error) {
		var e EVMRecord
		if err := json.Unmarshal(raw, &e); err != nil {
			return finding.Finding{}, err
		}
		return e.Finding(), nil
	})
}

// CosmosRecord is what a run on a Cosmos SDK chain adds: the chain, its
// genesis funding, what the workload did and the balance check after the
// run. It is the Detail of the chain's finding.
type CosmosRecord struct {
	Binary       string           `json:"binary"`
	Wallets      int              `json:"wallets"`
	GenesisBytes int64            `json:"genesis_bytes"`
	GenesisSecs  float64          `json:"genesis_s"` // deriving and funding the wallets
	Workload     string           `json:"workload"`
	Stats        cosmos.Stats     `json:"stats"`
	Balances     *cosmos.Balances `json:"balances,omitempty"`
	// Funding is set when a given account funded the wallets on a running
	// chain (an external network) instead of genesis.
	Funding *Funding `json:"funding,omitempty"`
	// Setup is the set-up txs sent before the load, as the chain ran them.
	Setup []cosmos.SetupTx `json:"setup,omitempty"`
	// Reads: the read load beside the txs (workload.read_rate), by kind.
	Reads []readload.Stats `json:"reads,omitempty"`
	// CLI: where set-up followed the chain's own CLI, unlike the SDK's
	// template app's (read from its help before use).
	CLI []string `json:"cli,omitempty"`
	// State is the size of the chain's state and the saved start state it
	// came from or made.
	State *StateRecord `json:"state,omitempty"`
}

// Funding is how the wallets of a run on an external network were funded
// and, if asked, swept back. Only the funder's address is kept.
type Funding struct {
	Funder   string  `json:"funder"`
	ChainID  string  `json:"chain_id"`
	Denom    string  `json:"denom"`
	Txs      int     `json:"txs"`
	Paid     uint64  `json:"paid"`
	Fees     uint64  `json:"fees"`
	GasPrice float64 `json:"gas_price"`
	Swept    uint64  `json:"swept,omitempty"`
	Secs     float64 `json:"s"`
}

// EVMRecord is what a run on a Cosmos EVM chain set up and sent: the
// Detail of the chain's finding.
type EVMRecord struct {
	Binary       string  `json:"binary"`
	ChainID      uint64  `json:"chain_id"`
	Wallets      int     `json:"wallets"`
	GenesisBytes int64   `json:"genesis_bytes"`
	GenesisSecs  float64 `json:"genesis_s"` // deriving and funding the wallets
	Workload     string  `json:"workload"`
	Token        string  `json:"token,omitempty"` // the evm-erc20 token's address
	// NoncesReused counts refused txs whose nonce the sender's next tx
	// used again; NoncesReread nonces read back from the chain (after a
	// send error).
	NoncesReused int64 `json:"nonces_reused"`
	NoncesReread int64 `json:"nonces_reread"`
	// Signing: how many txs were signed before their phase (workload.mode
	// "pregenerate") and how many when due.
	Signing evm.Signing `json:"signing"`
	// Persistence: workload.mode "persistent"'s reads of the senders'
	// nonces and balances.
	Persistence *evm.Persistence `json:"persistence,omitempty"`
	// Pool: the load nodes' EVM mempools read while the load ran
	// (testnet.evm.pool_reads).
	Pool     *evm.PoolStats `json:"pool,omitempty"`
	Balances *evm.Balances  `json:"balances,omitempty"`
	// Kinds are the results by kind of tx (native, erc20), rates over
	// LoadSecs of load.
	Kinds    []cosmos.KindStats `json:"kinds,omitempty"`
	LoadSecs float64            `json:"load_s,omitempty"`
	// Funding: on an external network, what the funder paid (no genesis).
	Funding *EVMFunding `json:"funding,omitempty"`
	// Reads: the read load beside the txs (workload.read_rate), by kind.
	Reads []readload.Stats `json:"reads,omitempty"`
	// CLI: where set-up followed the chain's own CLI, unlike the SDK's
	// template app's (read from its help before use).
	CLI []string `json:"cli,omitempty"`
}

// EVMFunding is what funding an external EVM network's wallets took, in
// wei as decimal strings.
type EVMFunding struct {
	Funder string `json:"funder"` // its address
	// Txs: transfers, or the disperser's deployment and calls; ToppedUp:
	// the wallets (and the deployer) that were below wallet_balance.
	Txs      int     `json:"txs"`
	ToppedUp int     `json:"topped_up"`
	Paid     string  `json:"paid"`
	Fees     string  `json:"fees"`
	Start    string  `json:"start"` // the wallets' and the deployer's balances once set up
	Swept    string  `json:"swept,omitempty"`
	Secs     float64 `json:"s"`
	// ReadSecs: reading every wallet's balance and nonce before; TxSecs:
	// the funding's txs, sent until their receipts were in.
	ReadSecs float64 `json:"read_s"`
	TxSecs   float64 `json:"tx_s"`
}

// CosmosOf returns the Cosmos record a run holds (nil: none, or one this
// build cannot read).
func CosmosOf(r *results.Run) *CosmosRecord {
	var c CosmosRecord
	if !detailOf(r, SourceCosmos, &c) {
		return nil
	}
	return &c
}

// EVMOf returns the EVM record a run holds (nil: none).
func EVMOf(r *results.Run) *EVMRecord {
	var e EVMRecord
	if !detailOf(r, SourceEVM, &e) {
		return nil
	}
	return &e
}

func detailOf(r *results.Run, source string, into any) bool {
	f, ok := r.Finding(source)
	return ok && json.Unmarshal(f.Detail, into) == nil
}

// Finding is the record as every reader shows it: the chain's table, the
// workload's results by message kind (its figures: msg/s, latency p99 and
// gas a message, informative), the balance check as figures the criteria
// hold to 0, and the run summary's lines.
func (c *CosmosRecord) Finding() finding.Finding {
	f := finding.Finding{Source: SourceCosmos, Title: "Cosmos SDK chain", Note: c.Workload + ".", Detail: mustJSON(c)}
	f.Tables = append(f.Tables, finding.Table{Columns: []string{"what", "value"}, Rows: c.rows()})
	if s := c.Stats; len(s.Kinds) > 0 {
		f.Tables = append(f.Tables, kindTable("By message kind", fmt.Sprintf("Counted by message (%d a tx): a tx's latency is each of its messages', its gas shared out equally; committed msg/s over the %.0f s of load, latency over every phase.", max(s.MsgsPerTx, 1), s.LoadSecs), s.Kinds))
		f.Figures = kindFigures(s.Kinds)
	}
	if len(c.Setup) > 0 {
		t := finding.Table{Title: "Set-up txs", Note: "Sent before the load from a wallet of their own, one after another, each in a block before the next.",
			Columns: []string{"step", "message", "height", "gas used", "bound", "tx"}}
		for _, s := range c.Setup {
			t.Rows = append(t.Rows, []string{fmt.Sprint(s.Step), s.Msg, fmt.Sprint(s.Height), fmt.Sprint(s.GasUsed), s.Bound, s.Hash})
		}
		f.Tables = append(f.Tables, t)
	}
	if len(c.Reads) > 0 {
		t, figs := readsFinding(c.Reads)
		f.Tables, f.Figures = append(f.Tables, t), append(f.Figures, figs...)
	}
	if s := c.Stats; s.Expired > 0 {
		f.Summary = append(f.Summary, finding.Line{Label: "expired", Text: fmt.Sprintf("%d accepted unordered txs were in no block by their timeout (nodes drop them at recheck): unresolved for that reason", s.Expired)})
	}
	if len(c.CLI) > 0 {
		f.Summary = append(f.Summary, finding.Line{Label: "set-up", Text: "followed the chain's own CLI: " + strings.Join(c.CLI, "; ")})
	}
	if c.State != nil {
		f.Summary = append(f.Summary, finding.Line{Label: "state", Text: c.State.String()})
	}
	if b := c.Balances; b != nil {
		f.Figures = append(f.Figures, checkFigures(b.Conserved, b.Mismatched,
			"wallet funds not conserved (held + fees != funded)", "wallets whose balance disagrees with the committed txs")...)
		f.Summary = append(f.Summary, finding.Line{Label: "balances", Text: BalanceSummary(b)})
	}
	return f
}

// readsFinding is the table and figures of a read load beside the txs.
func readsFinding(reads []readload.Stats) (finding.Table, []finding.Figure) {
	t := finding.Table{Title: "Reads beside the txs", Note: "Open loop at workload.read_rate, the kinds in turn, from the end of the set-up to the check; skipped: due while 64 reads were unanswered; latency of the answered ones.",
		Columns: []string{"read", "sent", "answered", "failed", "skipped", "latency p50 ms", "p99 ms", "max ms", "first failure"}}
	var figs []finding.Figure
	for _, k := range reads {
		t.Rows = append(t.Rows, []string{k.Kind, fmt.Sprint(k.Sent), fmt.Sprint(k.Answered), fmt.Sprint(k.Failed), fmt.Sprint(k.Skipped),
			fmt.Sprintf("%.1f", k.P50), fmt.Sprintf("%.1f", k.P99), fmt.Sprintf("%.1f", k.Max), k.Example})
		if k.Answered > 0 {
			figs = append(figs, finding.Figure{Name: "read latency p99 " + k.Kind, Unit: "ms", Value: k.P99, Better: finding.Lower})
		}
		figs = append(figs, finding.Figure{Name: "reads failed " + k.Kind, Value: float64(k.Failed + k.Skipped), Better: finding.Lower})
	}
	return t, figs
}

// Finding is the record as every reader shows it (see CosmosRecord's).
func (e *EVMRecord) Finding() finding.Finding {
	f := finding.Finding{Source: SourceEVM, Title: "Cosmos EVM chain", Note: e.Workload + ".", Detail: mustJSON(e)}
	f.Tables = append(f.Tables, finding.Table{Columns: []string{"what", "value"}, Rows: e.rows()})
	if len(e.Kinds) > 0 {
		f.Tables = append(f.Tables, kindTable("By kind of tx", fmt.Sprintf("Committed tx/s over the %.0f s of load, latency over every phase; failed in block: a code, or reverted (receipt status 0).", e.LoadSecs), e.Kinds))
		f.Figures = kindFigures(e.Kinds)
	}
	if len(e.Reads) > 0 {
		t, figs := readsFinding(e.Reads)
		f.Tables, f.Figures = append(f.Tables, t), append(f.Figures, figs...)
	}
	if p := e.Pool; p != nil {
		f.Tables = append(f.Tables, poolTable(p))
		f.Figures = append(f.Figures, finding.Figure{Name: "txs queued in the EVM mempool", Value: float64(p.SeenQueued), Better: finding.Lower})
		if p.Promoted > 0 {
			f.Figures = append(f.Figures, finding.Figure{Name: "queued tx to pending p99", Unit: "ms", Value: p.ToPendingP99, Better: finding.Lower})
		}
		f.Summary = append(f.Summary, finding.Line{Label: "EVM mempool", Text: fmt.Sprintf("%d of the load's txs named queued by a read every %.0f ms (%d of %d answered with a nonce gap), %d then named pending: to pending p50 %.0f ms, p99 %.0f ms",
			p.SeenQueued, p.EveryMs, p.GapQueued, p.AnsweredGap, p.Promoted, p.ToPendingP50, p.ToPendingP99)})
	}
	if b := e.Balances; b != nil {
		f.Figures = append(f.Figures, checkFigures(b.Conserved, b.Mismatched,
			"EVM funds not conserved (held + fee collector != funded)", "EVM accounts whose nonce disagrees with their committed txs")...)
		f.Summary = append(f.Summary, finding.Line{Label: "balances", Text: b.String()})
	}
	return f
}

// poolTable is what the reads of the load nodes' EVM mempools saw.
func poolTable(p *evm.PoolStats) finding.Table {
	t := finding.Table{Title: "The EVM mempool's word",
		Note:    fmt.Sprintf("Each load node's application-side mempool read every %.0f ms (testnet.evm.pool_reads, txpool_inspect); a tx is the pool's where its node's read names it. Time to pending: from the node's answer to the read naming it pending, the time queued up to a read's interval over.", p.EveryMs),
		Columns: []string{"what", "value"}}
	t.Rows = [][]string{
		{"reads, failed", fmt.Sprintf("%d, %d; %.1f ms each", p.Reads, p.ReadFailed, p.ReadMeanMs)},
		{"most of the load's txs in one pool: queued, pending", fmt.Sprintf("%d, %d", p.MostQueued, p.MostPending)},
		{"txs answered with a nonce gap (the answer's word)", fmt.Sprint(p.AnsweredGap)},
		{"txs a read named queued (of them answered with a gap)", fmt.Sprintf("%d (%d)", p.SeenQueued, p.GapQueued)},
		{"of those, named pending by a later read / in a block", fmt.Sprintf("%d / %d", p.Promoted, p.Committed)},
		{"time to pending p50 / p99 / max", fmt.Sprintf("%.0f / %.0f / %.0f ms", p.ToPendingP50, p.ToPendingP99, p.ToPendingMax)},
		{"then pending to the block p50 / p99", fmt.Sprintf("%.0f / %.0f ms", p.PendingP50, p.PendingP99)},
	}
	if p.FirstFailure != "" {
		t.Rows = append(t.Rows, []string{"first failed read", p.FirstFailure})
	}
	return t
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil { // plain structs of numbers and strings
		panic(err)
	}
	return b
}

// checkFigures are a chain's check after the run as figures the criteria
// hold to 0: funds not conserved (1 or 0), and accounts the committed txs
// do not explain.
func checkFigures(conserved bool, mismatched int, lostName, offName string) []finding.Figure {
	lost := 0.0
	if !conserved {
		lost = 1
	}
	zero := &finding.Limit{Op: "<=", Value: 0}
	return []finding.Figure{
		{Name: lostName, Value: lost, Better: finding.Lower, Must: zero},
		{Name: offName, Value: float64(mismatched), Better: finding.Lower, Must: zero},
	}
}

// kindFigures are a workload's figures by message (or tx) kind, which
// inform a comparison but do not gate it.
func kindFigures(kinds []cosmos.KindStats) []finding.Figure {
	var out []finding.Figure
	for _, k := range kinds {
		out = append(out, finding.Figure{Name: "msg/s " + k.Msg, Unit: "msg/s", Value: k.CommittedPerSec, Better: finding.Higher})
		if k.Committed > 0 {
			out = append(out, finding.Figure{Name: "msg latency p99 " + k.Msg, Unit: "ms", Value: k.LatencyP99, Better: finding.Lower})
		}
		if k.Committed+k.Failed > 0 {
			out = append(out, finding.Figure{Name: "gas/msg " + k.Msg, Unit: "gas", Value: k.GasPerMsg, Better: finding.Lower})
		}
	}
	return out
}

// kindTable is a workload's results by message (or tx) kind.
func kindTable(title, note string, kinds []cosmos.KindStats) finding.Table {
	t := finding.Table{Title: title, Note: note, Columns: []string{"message kind", "weight", "sent", "accepted", "committed", "failed in block", "committed msg/s", "latency p50 ms", "p99 ms", "max ms", "gas / msg"}}
	for _, k := range kinds {
		t.Rows = append(t.Rows, []string{k.Msg, fmt.Sprintf("%g", k.Weight), fmt.Sprint(k.Sent), fmt.Sprint(k.Accepted), fmt.Sprint(k.Committed), fmt.Sprint(k.Failed),
			fmt.Sprintf("%.1f", k.CommittedPerSec), fmt.Sprintf("%.0f", k.LatencyP50), fmt.Sprintf("%.0f", k.LatencyP99), fmt.Sprintf("%.0f", k.LatencyMax), fmt.Sprintf("%.0f", k.GasPerMsg)})
	}
	return t
}

// BalanceSummary says in one line whether the wallets' funds add up.
func BalanceSummary(b *cosmos.Balances) string {
	verdict := "conserved"
	if !b.Conserved {
		verdict = "NOT conserved"
	}
	parts := fmt.Sprintf("%d", b.Held)
	if b.Staking > 0 {
		parts += fmt.Sprintf(" + %d delegated + %d unbonding (%d staking wallets)", b.Delegated, b.Unbonding, b.Staking)
	}
	parts += fmt.Sprintf(" + %d paid in fees", b.FeesPaid)
	if b.FailedFees > 0 {
		parts += fmt.Sprintf(" + %d fees of failed txs", b.FailedFees)
	}
	total := int64(b.Held + b.Delegated + b.Unbonding + b.FeesPaid + b.FailedFees)
	if b.ByEvents > 0 {
		// Templated txs moved coins out of the wallets (to contracts, a
		// pool), as their coin events say.
		parts += fmt.Sprintf(" + %d moved out by %d templated txs (their coin events)", b.Outside, b.ByEvents)
		total += b.Outside
	}
	funded := fmt.Sprintf("funded %d", b.Funded)
	if b.Rewards > 0 {
		// A chain with distribution paid the staking wallets rewards.
		funded += fmt.Sprintf(" + %d staking rewards withdrawn (the chain's withdraw_rewards events)", b.Rewards)
	}
	if b.Refunded > 0 {
		// A relayer's txs gave back transfers the other chain refused or never took.
		funded += fmt.Sprintf(" + %d refunded by the relayer's txs (transfers refused or timed out)", b.Refunded)
	}
	return fmt.Sprintf("%s: %d wallets hold %s = %d %s, %s; %d of %d checked wallets match the committed txs",
		verdict, b.Wallets, parts, total, b.Denom, funded, b.Checked-b.Mismatched, b.Checked)
}

// rows describe an EVM run's chain, workload and check.
func (e *EVMRecord) rows() [][]string {
	rows := [][]string{
		{"chain binary", e.Binary},
		{"EVM chain ID", fmt.Sprint(e.ChainID)},
		{"accounts funded in genesis", fmt.Sprintf("%d (%d bytes of genesis, %.2f s)", e.Wallets, e.GenesisBytes, e.GenesisSecs)},
		{"nonces used again after a refusal / read back from the chain", fmt.Sprintf("%d / %d", e.NoncesReused, e.NoncesReread)},
	}
	if p := e.Persistence; p != nil {
		rows = append(rows, []string{"senders' nonce and balance read from the chain, at the start and after each tx's block (failed / nonce ahead of the local count / passed over: cannot pay / a tx given up on: in no block 30 s after its node took it, its sender on at the chain's nonce)",
			fmt.Sprintf("%d (%d / %d / %d / %d), %.1f ms each, %.0f ms at most", p.Reads, p.ReadFailed, p.ChainAhead, p.Poor, p.GaveUp, p.ReadMeanMs, p.ReadMaxMs)})
	}
	if g := e.Signing; g.Pregenerated > 0 {
		rows = append(rows, []string{"txs signed before their phase", fmt.Sprintf("%d (%.2f s; %d signed live past them)", g.Pregenerated, g.PregenSecs, g.Live)})
	}
	if f := e.Funding; f != nil {
		rows[0] = []string{"chain", "an external network (its chain ID read from its JSON-RPC)"}
		rows[2] = []string{"wallets funded by " + f.Funder, fmt.Sprintf("%d (%d topped up): %s wei paid in %d txs (fees %s), %s wei held once set up, %.2f s (reading the accounts %.2f s, the txs to their receipts %.2f s)", e.Wallets, f.ToppedUp, f.Paid, f.Txs, f.Fees, f.Start, f.Secs, f.ReadSecs, f.TxSecs)}
		if f.Swept != "" {
			rows = append(rows, []string{"swept back to the funder", f.Swept + " wei"})
		}
	}
	if e.Token != "" {
		rows = append(rows, []string{"ERC20 token (contracts/Token.sol)", e.Token})
	}
	if b := e.Balances; b != nil {
		rows = append(rows, []string{"balance check", b.String()})
		for _, x := range b.Examples {
			rows = append(rows, []string{"mismatch", x})
		}
	}
	return rows
}

// rows describe a Cosmos run's chain, funding, signing and check.
func (c *CosmosRecord) rows() [][]string {
	var rows [][]string
	if f := c.Funding; f != nil {
		rows = append(rows,
			[]string{"chain (read from it)", fmt.Sprintf("%s, denom %s, gas price %g", f.ChainID, f.Denom, f.GasPrice)},
			[]string{"wallets funded by " + f.Funder, fmt.Sprintf("%d: %d %s paid in %d multisend txs (fees %d), %.2f s", c.Wallets, f.Paid, f.Denom, f.Txs, f.Fees, f.Secs)})
		if f.Swept > 0 {
			rows = append(rows, []string{"swept back to the funder", fmt.Sprintf("%d %s", f.Swept, f.Denom)})
		}
	} else {
		genesis := "genesis: derive and fund wallets"
		if c.State != nil && c.State.Saved != nil && c.State.Saved.Restored {
			genesis = "genesis: restore the saved state, read its wallets"
		}
		rows = append(rows,
			[]string{"chain binary", c.Binary},
			[]string{"wallets funded in genesis", fmt.Sprint(c.Wallets)},
			[]string{genesis, fmt.Sprintf("%.2f s, genesis file %.1f MB", c.GenesisSecs, float64(c.GenesisBytes)/1e6)})
		if c.State != nil {
			rows = append(rows, []string{"state", c.State.String()})
		}
	}
	s := c.Stats
	rows = append(rows,
		[]string{"txs signed", fmt.Sprintf("%d (pregeneration %.2f s; %d read from the cache; %d signed live past the pregenerated)", s.Signed, s.PregenSecs, s.Cached, s.SignedLive)},
		[]string{"sequence repairs", fmt.Sprint(s.Repairs)},
		[]string{"senders passed over for want of funds", fmt.Sprint(s.SkippedPoor)})
	if s.Unordered {
		rows = append(rows, []string{"unordered txs accepted, in no block by their timeout (unresolved: expired)", fmt.Sprint(s.Expired)})
	}
	if b := c.Balances; b != nil {
		rows = append(rows,
			[]string{"balances", BalanceSummary(b)},
			[]string{"fee collector holds", fmt.Sprintf("%d %s", b.FeeCollector, b.Denom)},
			[]string{"txs committed / failed in a block", fmt.Sprintf("%d / %d", b.Committed, b.Failed)})
		for _, e := range b.Examples {
			rows = append(rows, []string{"mismatch", e})
		}
	}
	return rows
}
