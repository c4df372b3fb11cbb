// Package report renders a run: summary.json for machines, report.md for
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

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
)

// Write renders r, with its node samples (may be nil), into dir (created
// if missing) and returns the paths.
func Write(dir string, r *results.Run, series []observe.Sample) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report dir: %w", err)
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	paths := []string{filepath.Join(dir, "summary.json"), filepath.Join(dir, "report.md")}
	if err := os.WriteFile(paths[0], js, 0o644); err != nil {
		return nil, err
	}
	var md strings.Builder
	Markdown(&md, r)
	if err := os.WriteFile(paths[1], []byte(md.String()), 0o644); err != nil {
		return nil, err
	}
	var html strings.Builder
	if err := HTML(&html, r, series); err != nil {
		return nil, fmt.Errorf("report.html: %w", err)
	}
	paths = append(paths, filepath.Join(dir, "report.html"))
	if err := os.WriteFile(paths[2], []byte(html.String()), 0o644); err != nil {
		return nil, err
	}
	return paths, nil
}

// Markdown writes the run's summary tables.
func Markdown(w io.Writer, r *results.Run) {
	verdict := "PASS"
	if !r.Passed {
		verdict = "FAIL"
	}
	if r.Status != results.StatusComplete {
		verdict = strings.ToUpper(string(r.Status))
	}
	fmt.Fprintf(w, "# chainperf run %s: %s\n\n", r.ID, verdict)
	fmt.Fprintf(w, "Scenario **%s**, %s to %s (%s).\n\n", r.Scenario, r.Start.Format("2006-01-02 15:04:05"), r.End.Format("15:04:05"), r.End.Sub(r.Start).Round(1e9))
	if r.Error != "" {
		fmt.Fprintf(w, "Error: `%s`\n\n", r.Error)
	}
	for i, p := range r.Phases {
		fmt.Fprintf(w, "## Phase %d: %s (%s)\n\n", i+1, p.Name, p.Model)
		f, s := p.Figures, p.Ledger
		fmt.Fprintf(w, "| figure | value |\n|---|---|\n")
		row := func(k, format string, v ...any) { fmt.Fprintf(w, "| %s | %s |\n", k, fmt.Sprintf(format, v...)) }
		row("offered tx/s", "%.1f", f.OfferedTPS)
		row("sent tx/s (window)", "%.1f", f.SentTPS)
		row("committed tx/s (window)", "%.1f", f.CommittedTPS)
		row("latency p50 / p90 / p99 / max", "%.0f / %.0f / %.0f / %.0f ms", s.Latency.P50, s.Latency.P90, s.Latency.P99, s.Latency.Max)
		row("QA inclusion latency p50 / p99", "%.0f / %.0f ms", s.Inclusion.P50, s.Inclusion.P99)
		row("blocks, mean interval", "%d, %.2f s", f.Blocks, f.BlockInterval)
		row("txs per block (mean)", "%.0f", f.TxsPerBlock)
		row("max round", "%d", f.MaxRound)
		row("generator lag p50 / p99", "%.2f / %.2f ms", s.Lag.P50, s.Lag.P99)
		if p.Generator.Bound {
			row("generator-bound", "%s", p.Generator.Why)
		}
		fmt.Fprintf(w, "\n| fate | txs |\n|---|---|\n| sent | %d |\n", s.Sent)
		for _, fate := range load.Fates {
			fmt.Fprintf(w, "| %s | %d |\n", fate, s.Fates[fate])
		}
		fmt.Fprintln(w)
		if reasons := s.TopReasons(); len(reasons) > 0 {
			fmt.Fprintf(w, "Reasons for rejections and send errors:\n\n")
			for i, k := range reasons {
				if i == 5 {
					break
				}
				fmt.Fprintf(w, "- %d x %s\n", s.Reasons[k], k)
			}
			fmt.Fprintln(w)
		}
	}
	if sw := r.Sweep; sw != nil {
		fmt.Fprintf(w, "## Sweep\n\nSaturation point: **%.0f tx/s**. %s.\n\n", sw.Saturation, sw.Evidence)
		fmt.Fprintf(w, "| connections | tx/s each | offered tx/s | expected c*r*(T-1) | committed | share | p99 ms | rejected |\n|---|---|---|---|---|---|---|---|\n")
		for _, c := range sw.Cells {
			mark := ""
			if c.Saturated {
				mark = " (saturated)"
			}
			fmt.Fprintf(w, "| %d | %g | %.0f | %d | %d | %.1f %%%s | %.0f | %d |\n", c.Connections, c.Rate, c.Offered, c.Expected, c.Committed, 100*c.Share, mark, c.P99, c.Rejected)
		}
		fmt.Fprintln(w)
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
	fmt.Fprintf(w, "## Environment\n\n- host: %s, %d cores, %d MiB, kernel %s\n- chainperf %s %s (%s)\n- node: %s\n",
		r.Host.CPU, r.Host.Cores, r.Host.MemoryMB, r.Host.Kernel, r.Versions.Chainperf, r.Versions.Commit, r.Versions.Go, r.Versions.Node)
	fmt.Fprintf(w, "- testnet:")
	for _, n := range r.Nodes {
		fmt.Fprintf(w, " %s (%s)", n.Name, n.Role)
	}
	fmt.Fprintln(w)
	if len(r.Config) > 0 {
		fmt.Fprintf(w, "- CometBFT config overrides: %v\n", r.Config)
	}
}
