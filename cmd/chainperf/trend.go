package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/compare"
)

// maxTrendRuns bounds the runs one trend reads.
const maxTrendRuns = 500

func trendCmd() *cobra.Command {
	var figure, format string
	var threshold float64
	var recent int
	cmd := &cobra.Command{
		Use:     `trend QUERY --figure F`,
		Short:   "Find where a figure took a new level over a series of runs; exit 1 when the newest runs regressed",
		Example: `  chainperf trend "scenario:nightly label:branch=main latest:60" --figure "committed tx/s"`,
		Long: `trend reads the runs a query names (as compare's sides: "scenario:nightly
label:branch=main latest:60"), oldest first, and finds the change points of
a figure over them: the split where the runs before and after differ most
(Welch's t), kept when its p, corrected for the splits tried, is under 1 %
and the change is at least the threshold, then again within each part.
A level needs 3 runs to be told. Each change point says the commits it
came between (the runs' commit labels). For nightly CI: exit 1 when a
regressed level begins within the newest --recent runs, 0 otherwise.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkThreshold(threshold); err != nil {
				return err
			}
			if recent < 1 {
				return fmt.Errorf("--recent %d: at least 1", recent)
			}
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: use text or json", format)
			}
			st, err := openExisting(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			ids, err := compare.Resolve(cmd.Context(), st, args[0])
			if err != nil {
				return err
			}
			if len(ids) > maxTrendRuns {
				ids = ids[:maxTrendRuns] // the newest
			}
			slices.Reverse(ids) // a query gives the newest first
			var vs []compare.Values
			for _, id := range ids {
				r, err := st.Run(cmd.Context(), id)
				if err != nil {
					return err
				}
				if v := compare.FromRun(r, nil); len(v.Figures[figure]) > 0 {
					vs = append(vs, v)
				}
			}
			if len(vs) == 0 {
				return fmt.Errorf("no run of %q has the figure %q", args[0], figure)
			}
			shifts := compare.Shifts(vs, figure, threshold)
			out := cmd.OutOrStdout()
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(map[string]any{"figure": figure, "runs": len(vs), "shifts": shifts}); err != nil {
					return err
				}
			} else {
				writeTrend(out, vs, figure, shifts)
			}
			for _, s := range shifts {
				if s.Verdict == compare.Regressed && s.At >= len(vs)-recent {
					return errFailed
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&figure, "figure", "committed tx/s", "the figure, as 'chainperf compare' names it")
	cmd.Flags().Float64Var(&threshold, "threshold", compare.DefaultThreshold, "smallest change of level (percent) that counts")
	cmd.Flags().IntVar(&recent, "recent", 5, "exit 1 when a regressed level begins within this many newest runs")
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}

func writeTrend(w io.Writer, vs []compare.Values, figure string, shifts []compare.Shift) {
	at := map[int]compare.Shift{}
	for _, s := range shifts {
		at[s.At] = s
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "run\tcommit\t%s\t\n", figure)
	for i, v := range vs {
		mark := ""
		if s, ok := at[i]; ok {
			mark = fmt.Sprintf("<- new level: %s %+.1f %% (%s -> %s, p %.2g)", s.Verdict, s.Change, compare.Num(s.Before), compare.Num(s.After), s.P)
		}
		commit := v.Commit
		if commit == "" {
			commit = "-"
		}
		x, _ := v.Center(figure)
		fmt.Fprintf(tw, "%s\t%.12s\t%s\t%s\n", v.Run, commit, compare.Num(x), mark)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d runs, %d change point(s)\n", len(vs), len(shifts))
}
