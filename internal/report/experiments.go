package report

import (
	"fmt"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/results"
)

// The experiment summaries (steady repeats, find-max, rotations) as rows,
// the same in every report format.

// RotationSummary says in one line how the rotating nodes fared.
func RotationSummary(rots []results.Rotation) string {
	ok, catch, rate := 0, 0.0, 0.0
	for _, r := range rots {
		if r.CaughtUp {
			ok++
			catch += r.CatchUp
			rate += r.BlocksPer
		}
	}
	s := fmt.Sprintf("%d of %d rotating nodes caught up", ok, len(rots))
	if ok > 0 {
		s += fmt.Sprintf(", mean catch-up %.1f s at %.0f blocks/s", catch/float64(ok), rate/float64(ok))
	}
	return s
}

func rotationRows(rots []results.Rotation) [][]string {
	rows := [][]string{{"node", "started", "tip at start", "height reached", "catch-up s", "blocks/s", "result"}}
	for _, r := range rots {
		res := "caught up"
		if !r.CaughtUp {
			res = "FAILED: " + r.Error
		}
		rows = append(rows, []string{r.Node, r.Started.Format("15:04:05"), fmt.Sprint(r.Tip), fmt.Sprint(r.Height),
			fmt.Sprintf("%.1f", r.CatchUp), fmt.Sprintf("%.0f", r.BlocksPer), res})
	}
	return rows
}

func steadyRows(s *results.Steady) [][]string {
	rows := [][]string{{"figure", "median", "min", "max", "CV"}}
	add := func(name string, sp results.Spread) {
		rows = append(rows, []string{name, fmt.Sprintf("%.1f", sp.Median), fmt.Sprintf("%.1f", sp.Min), fmt.Sprintf("%.1f", sp.Max), fmt.Sprintf("%.1f %%", 100*sp.CV)})
	}
	add("committed tx/s", s.CommittedTPS)
	add("latency p50 ms", s.LatencyP50)
	add("latency p99 ms", s.LatencyP99)
	return rows
}

func findMaxRows(fm *results.FindMax) [][]string {
	return [][]string{
		{"figure", "value"},
		{"max sustainable tx/s", fmt.Sprintf("%.0f", fm.MaxTPS)},
		{"confidence interval", fm.Interval()},
		{"held", fmt.Sprintf("%s %.0f ms (target %.0f ms)", fm.Hold, fm.HeldMS, fm.TargetMS)},
		{"sent tx/s (stable window)", fmt.Sprintf("%.0f", fm.SentTPS)},
		{"rejected txs (phase)", fmt.Sprint(fm.Rejected)},
	}
}

// experimentTables are the titled tables of a run's experiment summaries.
func experimentTables(r *results.Run) []table {
	var out []table
	if r.Steady != nil {
		out = append(out, table{Title: fmt.Sprintf("Steady: %d repeats", r.Steady.Repeats), Rows: steadyRows(r.Steady)})
	}
	if fm := r.FindMax; fm != nil {
		out = append(out, table{Title: "Find-max", Note: fm.Evidence + ".", Rows: findMaxRows(fm)})
	}
	if sw := r.Sweep; sw != nil && len(sw.Cells) > 0 {
		out = append(out, table{Title: "Processed txs (the CometBFT QA table)", Note: sw.ProcessedNote(), Rows: sw.ProcessedTable()})
	}
	if len(r.Faults) > 0 {
		rows := [][]string{{"fault", "nodes", "lasted", "blocks while it held", "longest gap s", "first block after its end", "nodes at the tip again"}}
		for _, f := range r.Faults {
			lasted, rec := "to the end", "-"
			if !f.End.IsZero() {
				lasted = fmt.Sprintf("%.1f s", f.End.Sub(f.Begin).Seconds())
				rec = "none"
				if f.Recovery >= 0 {
					rec = fmt.Sprintf("%.1f s", f.Recovery)
				}
			}
			catch := "-"
			switch {
			case f.CatchUp > 0:
				catch = fmt.Sprintf("%.1f s after its end", f.CatchUp)
			case f.CatchUp < 0 && !f.End.IsZero():
				catch = "not seen"
			}
			rows = append(rows, []string{f.What, f.Nodes, lasted, fmt.Sprint(f.Blocks), fmt.Sprintf("%.1f", f.LongestGap), rec, catch})
		}
		out = append(out, table{Title: "Faults", Note: "What the chain did while each perturbation held, by when chainperf saw each block.", Rows: rows})
	}
	if c := r.Cosmos; c != nil {
		out = append(out, table{Title: "Cosmos SDK chain", Note: c.Workload + ".", Rows: cosmosRows(c)})
		if len(c.Stats.Kinds) > 0 {
			out = append(out, table{Title: "By message kind", Note: fmt.Sprintf("Counted by message (%d a tx): a tx's latency is each of its messages', its gas shared out equally; committed msg/s over the %.0f s of load, latency over every phase.", max(c.Stats.MsgsPerTx, 1), c.Stats.LoadSecs), Rows: kindRows(c.Stats.Kinds)})
		}
	}
	if e := r.EVM; e != nil {
		out = append(out, table{Title: "Cosmos EVM chain", Note: e.Workload + ".", Rows: evmRows(e)})
		if len(e.Kinds) > 0 {
			out = append(out, table{Title: "By kind of tx", Note: fmt.Sprintf("Committed tx/s over the %.0f s of load, latency over every phase; failed in block: a code, or reverted (receipt status 0).", e.LoadSecs), Rows: kindRows(e.Kinds)})
		}
	}
	if len(r.Rotations) > 0 {
		out = append(out, table{Title: "Rotating nodes", Note: RotationSummary(r.Rotations) + ".", Rows: rotationRows(r.Rotations)})
	}
	return out
}

// A table has a header row first.
type table struct {
	Title string
	Note  string
	Rows  [][]string
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
	total := b.Held + b.Delegated + b.Unbonding + b.FeesPaid + b.FailedFees
	return fmt.Sprintf("%s: %d wallets hold %s = %d %s, funded %d; %d of %d checked wallets match the committed txs",
		verdict, b.Wallets, parts, total, b.Denom, b.Funded, b.Checked-b.Mismatched, b.Checked)
}

// evmRows describe a Cosmos EVM run's chain, workload and check.
func evmRows(e *results.EVM) [][]string {
	rows := [][]string{{"what", "value"},
		{"chain binary", e.Binary},
		{"EVM chain ID", fmt.Sprint(e.ChainID)},
		{"accounts funded in genesis", fmt.Sprintf("%d (%d bytes of genesis, %.2f s)", e.Wallets, e.GenesisBytes, e.GenesisSecs)},
		{"nonces used again after a refusal / read back from the chain", fmt.Sprintf("%d / %d", e.NoncesReused, e.NoncesReread)},
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

// kindRows are a workload's results by message (or tx) kind.
func kindRows(kinds []cosmos.KindStats) [][]string {
	rows := [][]string{{"message kind", "weight", "sent", "accepted", "committed", "failed in block", "committed msg/s", "latency p50 ms", "p99 ms", "max ms", "gas / msg"}}
	for _, k := range kinds {
		rows = append(rows, []string{k.Msg, fmt.Sprintf("%g", k.Weight), fmt.Sprint(k.Sent), fmt.Sprint(k.Accepted), fmt.Sprint(k.Committed), fmt.Sprint(k.Failed),
			fmt.Sprintf("%.1f", k.CommittedPerSec), fmt.Sprintf("%.0f", k.LatencyP50), fmt.Sprintf("%.0f", k.LatencyP99), fmt.Sprintf("%.0f", k.LatencyMax), fmt.Sprintf("%.0f", k.GasPerMsg)})
	}
	return rows
}

func cosmosRows(c *results.Cosmos) [][]string {
	rows := [][]string{{"what", "value"}}
	if f := c.Funding; f != nil {
		rows = append(rows,
			[]string{"chain (read from it)", fmt.Sprintf("%s, denom %s, gas price %g", f.ChainID, f.Denom, f.GasPrice)},
			[]string{"wallets funded by " + f.Funder, fmt.Sprintf("%d: %d %s paid in %d multisend txs (fees %d), %.2f s", c.Wallets, f.Paid, f.Denom, f.Txs, f.Fees, f.Secs)})
		if f.Swept > 0 {
			rows = append(rows, []string{"swept back to the funder", fmt.Sprintf("%d %s", f.Swept, f.Denom)})
		}
	} else {
		rows = append(rows,
			[]string{"chain binary", c.Binary},
			[]string{"wallets funded in genesis", fmt.Sprint(c.Wallets)},
			[]string{"genesis: derive and fund wallets", fmt.Sprintf("%.2f s, genesis file %.1f MB", c.GenesisSecs, float64(c.GenesisBytes)/1e6)})
	}
	rows = append(rows,
		[]string{"txs signed", fmt.Sprintf("%d (pregeneration %.2f s; %d read from the cache; %d signed live past the pregenerated)", c.Stats.Signed, c.Stats.PregenSecs, c.Stats.Cached, c.Stats.SignedLive)},
		[]string{"sequence repairs", fmt.Sprint(c.Stats.Repairs)},
		[]string{"senders passed over for want of funds", fmt.Sprint(c.Stats.SkippedPoor)})
	if c.Stats.Unordered {
		rows = append(rows, []string{"unordered txs accepted, in no block by their timeout (unresolved: expired)", fmt.Sprint(c.Stats.Expired)})
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
