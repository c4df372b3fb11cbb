package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/report"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
)

// dbFlag is the --db flag shared by every command that uses the results
// database.
var dbFlag string

// openStore opens the results database (making it if it is not there)
// and marks the runs of dead harnesses interrupted.
func openStore(ctx context.Context) (*store.Store, error) {
	st, err := store.Open(ctx, store.Locate(dbFlag))
	return recovered(ctx, st, err)
}

// openExisting is openStore for a command that only reads (or deletes)
// what is there: a database that does not exist is not made.
func openExisting(ctx context.Context) (*store.Store, error) {
	st, err := store.OpenExisting(ctx, store.Locate(dbFlag))
	return recovered(ctx, st, err)
}

// openRun opens the results database and finds the run ref names (an
// ID, a unique start of one, latest, latest~N: store.Find).
func openRun(ctx context.Context, ref string) (*store.Store, string, error) {
	st, err := openExisting(ctx)
	if err != nil {
		return nil, "", err
	}
	id, err := st.Find(ctx, ref)
	if err != nil {
		st.Close()
		return nil, "", err
	}
	return st, id, nil
}

// recovered marks the runs of dead harnesses in st interrupted (not in
// a database this process can only read).
func recovered(ctx context.Context, st *store.Store, err error) (*store.Store, error) {
	if err != nil {
		return nil, err
	}
	if st.ReadOnly() != "" {
		return st, nil
	}
	if _, err := experiment.Recover(ctx, st); err != nil {
		st.Close()
		return nil, fmt.Errorf("results database %s: %w", st.Where(), err)
	}
	return st, nil
}

func runsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List, show, export and delete stored runs",
	}
	var f store.Filter
	var labels []string
	var since string
	list := &cobra.Command{
		Use:     "list",
		Short:   "List stored runs, newest first",
		Example: `  chainperf runs list --scenario default --label branch=main`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if f.Labels, err = parseLabels(labels); err != nil {
				return err
			}
			if since != "" {
				if d, derr := time.ParseDuration(since); derr == nil {
					f.Since = time.Now().Add(-d)
				} else if f.Since, err = time.Parse("2006-01-02", since); err != nil {
					return fmt.Errorf("--since %q: write a duration (24h) or a date (2026-11-22)", since)
				}
			}
			if f.Status != "" && !slices.Contains(results.Statuses, results.Status(f.Status)) {
				return fmt.Errorf("--status %q: use one of %v", f.Status, results.Statuses)
			}
			st, err := openExisting(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			runs, err := st.List(cmd.Context(), f)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tSCENARIO\tSTATUS\tRESULT\tSTARTED\tLABELS")
			for _, r := range runs {
				res := "-"
				if r.Passed != nil {
					res = map[bool]string{true: "pass", false: "fail"}[*r.Passed]
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", report.Printable(r.ID), report.Printable(r.Scenario), report.Printable(string(r.Status)),
					res, results.Stamp(r.Start), report.Printable(results.FormatLabels(r.Labels)))
			}
			return w.Flush()
		},
	}
	list.Flags().StringVar(&f.Scenario, "scenario", "", "only runs of this scenario")
	list.Flags().StringVar(&f.Status, "status", "", "only runs with this status (running, complete, failed, interrupted)")
	list.Flags().StringVar(&since, "since", "", "only runs started since a duration ago (24h) or a date (2026-11-22)")
	list.Flags().Var(newLabelsFlag(&labels), "label", "only runs with this label, KEY=VALUE (repeatable)")
	list.Flags().IntVar(&f.Limit, "limit", 50, "at most this many runs (0: all)")

	var showFormat string
	var summary bool
	show := &cobra.Command{
		Use:   "show RUN",
		Short: "Show a stored run's report as text (or its Markdown)",
		Long:  "Show a stored run's report as text (or its Markdown). RUN is its ID, a unique start of it, latest (the newest run) or latest~N (the run N before the newest).",
		Example: `  chainperf runs show 20261125-114355-823b
  chainperf runs show latest --summary
  chainperf runs show 20261125-1143 --format md > run.md`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, id, err := openRun(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			r, err := st.Run(cmd.Context(), id)
			if err != nil {
				return err
			}
			if showFormat != "text" && showFormat != "md" {
				return fmt.Errorf("--format %q: use text or md", showFormat)
			}
			if summary {
				endOfRun(cmd.OutOrStdout(), st, r, writtenReport(r.ReportDir))
				return nil
			}
			var md strings.Builder
			report.Markdown(&md, r)
			text := md.String()
			if showFormat == "text" {
				text = report.MarkdownToText(text)
			}
			_, err = io.WriteString(printable.NewWriter(cmd.OutOrStdout()), text)
			return err
		},
	}
	show.Flags().StringVar(&showFormat, "format", "text", "text (aligned for a terminal) or md (the report's Markdown)")
	show.Flags().BoolVar(&summary, "summary", false, "print only the block `chainperf run` ended with: verdict, figures, criteria, findings")
	var format string
	export := &cobra.Command{
		Use:   "export RUN [--format json|csv|series]",
		Short: "Export a stored run: the whole record as JSON, its per-second series or its node samples as CSV",
		Long:  "Export a stored run: the whole record as JSON, its per-second series or its node samples as CSV. RUN is its ID, a unique start of it, latest or latest~N.",
		Example: `  chainperf runs export 20261125-114355-823b > run.json
  chainperf runs export latest~1 > previous.json
  chainperf runs export 20261125-114355-823b --format csv > seconds.csv
  chainperf runs export 20261125-114355-823b --format series > nodes.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "json" && format != "csv" && format != "series" {
				return fmt.Errorf("--format %q: use json, csv or series", format)
			}
			// Both forms say so when there is no such run.
			st, id, err := openRun(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			if format == "series" {
				w := csv.NewWriter(cmd.OutOrStdout())
				if err := st.SeriesCSV(cmd.Context(), id, w.Write); err != nil {
					return err
				}
				w.Flush()
				return w.Error()
			}
			r, err := st.Run(cmd.Context(), id)
			if err != nil {
				return err
			}
			if format == "csv" {
				w := csv.NewWriter(cmd.OutOrStdout())
				w.Write(results.SecondsHeader)
				w.WriteAll(r.Seconds())
				return w.Error()
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(r)
		},
	}
	export.Flags().StringVar(&format, "format", "json", "json, csv (the run's seconds: counts, wall-clock time, latency p50/p99, blocks and the run's txs they held) or series (every node sample: at, node, series, value)")
	del := &cobra.Command{
		Use:     "delete RUN_ID",
		Short:   "Delete a stored run and everything recorded with it",
		Example: `  chainperf runs delete 20261125-114355-823b`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openExisting(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.Delete(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted run %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(list, show, export, logsCmd(), del)
	return cmd
}

func reportCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "report RUN [--report-dir D]",
		Short: "Render a stored run's report again",
		Long:  "Render a stored run's report again. RUN is its ID, a unique start of it, latest or latest~N.",
		Example: `  chainperf report 20261125-114355-823b --report-dir reports
  chainperf report latest`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, id, err := openRun(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			r, err := st.Run(cmd.Context(), id)
			if err != nil {
				return err
			}
			if err := results.CheckRunID(r.ID); err != nil {
				return err
			}
			series, err := st.Series(cmd.Context(), r.ID)
			if err != nil {
				return err
			}
			if err := writeLogs(cmd.Context(), st, filepath.Join(dir, r.ID), r.ID); err != nil {
				return err
			}
			paths, err := report.Write(filepath.Join(dir, r.ID), r, series)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", strings.Join(paths, ", "))
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "report-dir", "chainperf-reports", "where the report goes (RUN_ID/ below it)")
	return cmd
}

// writtenReport is the report files of a run that are still where the run
// wrote them (none when it recorded no report dir).
func writtenReport(dir string) []string {
	if dir == "" {
		return nil
	}
	var out []string
	for _, p := range report.Paths(dir) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}
