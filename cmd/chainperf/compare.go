package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/compare"
)

func compareCmd() *cobra.Command {
	var format, out string
	var threshold float64
	var per []string
	var force bool
	cmd := &cobra.Command{
		Use:   "compare BASELINE CANDIDATE",
		Short: "Compare two runs or sets of runs; exit 1 when a gated figure regressed",
		Long: `compare puts the figures of two sides next to each other: committed tx/s,
max sustainable tx/s, saturation point, latency p50/p99, rejected share,
block interval, CPU and RSS per node, top allocators. Each side is a run
ID, IDs joined by commas (repeats), or a query in quotes:
  "label:branch=main latest"    the newest complete run labelled branch=main
  "scenario:default latest:5"   the five newest complete runs of a scenario
  "commit:3f9a1c"               every complete run of a chain commit
With two or more runs a side, a Mann-Whitney U test (alpha 0.05) decides
whether a change past the threshold is real (improved / regressed) or
noise; with one run a side the threshold alone decides, and the output
says so. Exit code 1 when a gated figure (throughput, latency, rejected
share) regressed: usable as a CI step.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			thresholds, err := parseThresholds(per)
			if err != nil {
				return err
			}
			if threshold <= 0 {
				return fmt.Errorf("--threshold %g: must be positive (percent)", threshold)
			}
			st, err := openStore(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			var sides [2][]compare.Values
			for i, arg := range args {
				ids, err := compare.Resolve(cmd.Context(), st, arg)
				if err != nil {
					return fmt.Errorf("%s: %w", []string{"baseline", "candidate"}[i], err)
				}
				for _, id := range ids {
					r, err := st.Run(cmd.Context(), id)
					if err != nil {
						return err
					}
					series, err := st.Series(cmd.Context(), id)
					if err != nil {
						return err
					}
					sides[i] = append(sides[i], compare.FromRun(r, series))
				}
			}
			if diff := compare.Differences(sides[0], sides[1]); len(diff) > 0 && !force {
				return fmt.Errorf("the sides ran different things, so their figures do not compare (--force compares anyway):\n  %s", strings.Join(diff, "\n  "))
			}
			res := compare.Compare(sides[0], sides[1], threshold, thresholds)
			if err := res.Named(thresholds); err != nil {
				return fmt.Errorf("--threshold-for: %w", err)
			}
			w := cmd.OutOrStdout()
			if out != "" {
				f, err := os.Create(out)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			switch format {
			case "text":
				res.Text(w)
			case "md", "markdown":
				res.Markdown(w)
			case "json":
				if err := res.JSON(w); err != nil {
					return err
				}
			default:
				return fmt.Errorf("--format %q: use text, md or json", format)
			}
			if len(res.Regressed) > 0 {
				return errFailed
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text, md (for a pull-request comment) or json")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to this file instead of standard output")
	cmd.Flags().Float64Var(&threshold, "threshold", compare.DefaultThreshold, "change (percent; percentage points for shares) below which a figure is unchanged")
	cmd.Flags().StringSliceVar(&per, "threshold-for", nil, `per-figure threshold, FIGURE=PERCENT, e.g. "latency p99=20" (repeatable)`)
	cmd.Flags().BoolVar(&force, "force", false, "compare runs of different scenarios, experiments, loads or workloads")
	return cmd
}

func parseThresholds(in []string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, s := range in {
		k, v, ok := strings.Cut(s, "=")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || k == "" || err != nil || x <= 0 {
			return nil, fmt.Errorf("--threshold-for %q: write FIGURE=PERCENT with a positive percent, e.g. \"latency p99=20\"", s)
		}
		out[k] = x
	}
	return out, nil
}
