// Package report renders a run: summary.json (the headline) and
// record.json (everything) for machines, report.md and report.html for
// people and pull requests. It only reads records; it never touches a
// testnet or the network.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/chainperf/chainperf/internal/files"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/secret"
)

// Write renders r, with its node samples (may be nil), into dir (created
// if missing) and returns the paths. Each file is written whole or not at
// all (a full disk leaves the previous one).
func Write(dir string, r *results.Run, series []observe.Sample) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report dir: %w", err)
	}
	paths := Paths(dir)
	// Whatever reached the record (a node's error, a URL) is masked.
	for i, v := range []any{HeadlineOf(r), r} {
		js, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := files.WriteAtomic(paths[i], []byte(secret.Redact(string(js))), 0o644); err != nil {
			return nil, err
		}
	}
	var md strings.Builder
	Markdown(&md, r)
	if err := files.WriteAtomic(paths[2], []byte(printable.Clean(secret.Redact(md.String()))), 0o644); err != nil {
		return nil, err
	}
	var html strings.Builder
	if err := htmlPage(&html, r, series, keptLogs(dir)); err != nil {
		return nil, fmt.Errorf("report.html: %w", err)
	}
	if err := files.WriteAtomic(paths[3], []byte(secret.Redact(html.String())), 0o644); err != nil {
		return nil, err
	}
	return paths, nil
}

// Verdict is a run's one-word result: PASS or FAIL for a complete run,
// else its status in capitals.
func Verdict(r *results.Run) string {
	switch {
	case r.Status != results.StatusComplete:
		return strings.ToUpper(string(r.Status))
	case r.Passed:
		return "PASS"
	}
	return "FAIL"
}

func phaseTitle(i int, p *results.Phase) string {
	if p.Name == "" { // runs stored before phases had names
		return fmt.Sprintf("Phase %d: %s", i+1, p.Model)
	}
	return fmt.Sprintf("Phase %d: %s (%s)", i+1, p.Name, p.Model)
}

// figureRows are a phase's headline figures as (name, value) rows, the
// same in every report format.
func figureRows(p *results.Phase) [][2]string {
	f, s := p.Figures, p.Ledger
	var rows [][2]string
	row := func(k, format string, v ...any) { rows = append(rows, [2]string{k, fmt.Sprintf(format, v...)}) }
	row("offered tx/s", "%.1f", f.OfferedTPS)
	row("sent tx/s (window)", "%.1f", f.SentTPS)
	row("committed tx/s (window, code 0)", "%.1f", f.CommittedTPS)
	if f.FailedTPS > 0 {
		row("failed in their block tx/s (window)", "%.1f", f.FailedTPS)
	}
	w := s.WindowLatency
	row("latency p50 / p90 / p99 / p99.9 / max (window)", "%.0f / %.0f / %.0f / %.0f / %.0f ms", w.P50, w.P90, w.P99, w.P999, w.Max)
	row("latency p50 / p90 / p99 / p99.9 / max (whole phase)", "%.0f / %.0f / %.0f / %.0f / %.0f ms", s.Latency.P50, s.Latency.P90, s.Latency.P99, s.Latency.P999, s.Latency.Max)
	row("QA inclusion latency p50 / p99", "%.0f / %.0f ms", s.Inclusion.P50, s.Inclusion.P99)
	row("blocks, mean interval", "%d, %.2f s", f.Blocks, f.BlockInterval)
	row("txs per block (mean)", "%.0f", f.TxsPerBlock)
	row("max round", "%d", f.MaxRound)
	row("generator lag p50 / p99", "%.2f / %.2f ms", s.Lag.P50, s.Lag.P99)
	row("load delivered", "%s", p.Generator.Delivery())
	if p.Generator.Pacer != "" {
		row("pacer", "%s", p.Generator.Pacer)
	}
	if p.Harness != nil {
		row("chainperf's own CPU (load and drain)", "%s", p.Harness)
	}
	if p.Drained > 0 {
		atEnd := ""
		if p.MempoolAtEnd > 0 {
			atEnd = fmt.Sprintf("; at its end a node's mempool held %d txs at most (%d of this phase's waiting txs among the first 100 each node lists)", p.MempoolAtEnd, p.InMempool)
		}
		row("drain", "%.1f s%s", p.Drained, atEnd)
	}
	if u := p.Unresolved; u != nil && u.Unresolved > 0 {
		row("unresolved txs", "%s", u)
	}
	return rows
}

// fateRows are sent and every fate's count as (name, count) rows.
// HeadlineHeader names the columns of the headline table: what the
// end-of-run summary says of each phase, before any detail.
var HeadlineHeader = []string{"phase", "sent tx/s", "committed tx/s", "latency p50 ms", "latency p99 ms", "sent", "committed", "failed in a block", "rejected", "send errors", "unresolved"}

// headlineRows is a row a phase of the headline table.
func headlineRows(r *results.Run) [][]string {
	var rows [][]string
	for i, p := range r.Phases {
		f, s := p.Figures, p.Ledger
		rows = append(rows, []string{phaseTitle(i, p), fmt.Sprintf("%.1f", f.SentTPS), fmt.Sprintf("%.1f", f.CommittedTPS),
			fmt.Sprintf("%.0f", f.LatencyP50), fmt.Sprintf("%.0f", f.LatencyP99), fmt.Sprint(s.Sent),
			fmt.Sprint(s.Fates[load.FateCommitted]), fmt.Sprint(s.Fates[load.FateCommittedFailed]), fmt.Sprint(s.Fates[load.FateRejected]),
			fmt.Sprint(s.Fates[load.FateSendError]), fmt.Sprint(s.Fates[load.FateUnresolved])})
	}
	return rows
}

func fateRows(s load.Summary) [][2]string {
	rows := [][2]string{{"sent", fmt.Sprint(s.Sent)}}
	for _, fate := range load.Fates {
		rows = append(rows, [2]string{string(fate), fmt.Sprint(s.Fates[fate])})
	}
	return rows
}

// markdownPhase writes phase i's figures, fates and top reasons.
func markdownPhase(w io.Writer, i int, p *results.Phase) {
	s := p.Ledger
	fmt.Fprintf(w, "## %s\n\n| figure | value |\n|---|---|\n", phaseTitle(i, p))
	for _, row := range figureRows(p) {
		fmt.Fprintf(w, "| %s | %s |\n", row[0], row[1])
	}
	fmt.Fprintf(w, "\n| fate | txs |\n|---|---|\n")
	for _, row := range fateRows(s) {
		fmt.Fprintf(w, "| %s | %s |\n", row[0], row[1])
	}
	fmt.Fprintln(w)
	if reasons := s.TopReasons(); len(reasons) > 0 {
		fmt.Fprintf(w, "Reasons for rejections, send errors and txs failed in a block:\n\n")
		for i, k := range reasons {
			if i == 5 {
				break
			}
			fmt.Fprintf(w, "- %d x %s\n", s.Reasons[k], k)
		}
		fmt.Fprintln(w)
	}
}

// mdTable writes rows as a Markdown table, the first its header.
func mdTable(w io.Writer, rows [][]string) {
	for i, row := range rows {
		cells := make([]string, len(row))
		for j, c := range row { // a cell's own | (a log line's) is no column
			cells[j] = strings.ReplaceAll(c, "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		if i == 0 {
			fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(row)))
		}
	}
	fmt.Fprintln(w)
}

// markdownHeadline writes what a reader reads first: each phase's rates,
// latency and fates, then the criteria; the detail follows.
func markdownHeadline(w io.Writer, r *results.Run) {
	if rows := headlineRows(r); len(rows) > 0 {
		mdTable(w, append([][]string{HeadlineHeader}, rows...))
	}
	if len(r.Checks) > 0 {
		fmt.Fprintf(w, "## Criteria\n\n| criterion | limit | value | result |\n|---|---|---|---|\n")
		for _, c := range r.Checks {
			res := "pass"
			if !c.Pass {
				res = "**FAIL**"
			}
			fmt.Fprintf(w, "| %s | %s %g | %.4g | %s |\n", c.Name, c.Op, c.Limit, c.Value, res)
		}
		fmt.Fprintln(w)
	}
}

// Markdown writes the run's summary tables: the headline first, the
// findings' tables collapsed.
func Markdown(w io.Writer, r *results.Run) {
	fmt.Fprintf(w, "# chainperf run %s: %s\n\n", r.ID, Verdict(r))
	if lasted, ok := r.Lasted(); ok {
		fmt.Fprintf(w, "Scenario **%s**, %s to %s (%s).\n\n", r.Scenario, results.Stamp(r.Start), results.Stamp(r.End), lasted)
	} else {
		fmt.Fprintf(w, "Scenario **%s**, from %s (%s).\n\n", r.Scenario, results.Stamp(r.Start), lasted)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "Error: `%s`\n\n", r.Error)
	}
	markdownHeadline(w, r)
	for i, p := range r.Phases {
		markdownPhase(w, i, p)
	}
	if tables := experimentTables(r); len(tables) > 0 {
		noun := "tables"
		if len(tables) == 1 {
			noun = "table"
		}
		fmt.Fprintf(w, "<details><summary>Findings: %d %s</summary>\n\n", len(tables), noun)
		for _, t := range tables {
			fmt.Fprintf(w, "## %s\n\n", t.Title)
			if t.Note != "" {
				fmt.Fprintf(w, "%s\n\n", t.Note)
			}
			mdTable(w, t.Rows)
		}
		fmt.Fprintf(w, "</details>\n\n")
	}
	if sw := r.Sweep; sw != nil {
		fmt.Fprintf(w, "## Sweep\n\nSaturation point: **%.0f tx/s**. %s.\n\n", sw.Saturation, sw.Evidence)
		fmt.Fprintf(w, "| connections | tx/s each | offered tx/s | expected | committed | share | p99 ms | rejected |\n|---|---|---|---|---|---|---|---|\n")
		for _, c := range sw.Cells {
			mark := ""
			if c.Saturated {
				mark = " (saturated)"
			}
			fmt.Fprintf(w, "| %d | %g | %.0f | %d | %d | %.1f %%%s | %.0f | %d |\n", c.Connections, c.Rate, c.Offered, c.Expected, c.Committed, 100*c.Share, mark, c.P99, c.Rejected)
		}
		fmt.Fprintln(w)
	}
	if len(r.Events) > 0 {
		// What happened to the nodes and to chainperf's view of them
		// (faults, answers over a cap, bad heights, a stalled follower).
		fmt.Fprintf(w, "## Events\n\n| at | event | detail |\n|---|---|---|\n")
		for _, e := range r.Events {
			fmt.Fprintf(w, "| %s | %s | %s |\n", results.StampMilli(e.At), Printable(e.Kind), strings.ReplaceAll(Printable(e.Detail), "|", `\|`))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "## Environment\n\n- host: %s, %d cores, %d MiB, kernel %s\n- chainperf %s %s (%s)\n- node: %s\n",
		r.Host.CPU, r.Host.Cores, r.Host.MemoryMB, r.Host.Kernel, r.Versions.Chainperf, r.Versions.Commit, r.Versions.Go, r.Versions.Node)
	fmt.Fprintf(w, "- testnet:")
	for _, n := range r.Nodes {
		fmt.Fprintf(w, " %s (%s)", n.Name, n.Role)
	}
	fmt.Fprintln(w)
	for _, v := range r.NodeVersions() {
		fmt.Fprintf(w, "- nodes by version: %s\n", Printable(v))
	}
	if len(r.Scale) > 0 {
		fmt.Fprintf(w, "- scale profile: %s (peers, node settings: see testnet.scale_profile)\n", strings.Join(r.Scale, ", "))
	}
	if len(r.Config) > 0 {
		fmt.Fprintf(w, "- CometBFT config overrides: %v\n", r.Config)
		if r.Config["rpc.unsafe"] == true {
			fmt.Fprintf(w, "- **rpc.unsafe is on**: the nodes' RPC took unsafe commands (dial_seeds, unsafe_flush_mempool) during this run\n")
		}
	}
	if wan := r.WAN; wan != nil {
		fmt.Fprintf(w, "- emulated WAN: %s delays, %s backend, jitter %.0f %%, loss %g %%, zones %v\n", wan.Table, wan.Backend, 100*wan.Jitter, wan.Loss, wan.Zones)
	}
}

// Paths are the files Write writes into dir, in the order it says them.
func Paths(dir string) []string {
	return []string{filepath.Join(dir, "summary.json"), filepath.Join(dir, RecordFile), filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html")}
}
