package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/report"
	"github.com/chainperf/chainperf/internal/store"
)

func compareCmd() *cobra.Command {
	var vo verdictOut
	var html string
	var threshold float64
	var per []string
	var force bool
	cmd := &cobra.Command{
		Use:   "compare BASELINE CANDIDATE",
		Short: "Compare two runs or sets of runs; exit 1 when a gated figure regressed",
		Example: `  chainperf compare 20261125-114355-823b 20261125-114409-7c43
  chainperf compare "label:branch=main latest:3" "label:branch=pr-42 latest:3"
  chainperf compare "label:ab=20261125-114340-d75a label:side=baseline" "label:ab=20261125-114340-d75a label:side=candidate"`,
		Long: `compare puts the figures of two sides next to each other: committed tx/s,
max sustainable tx/s, saturation point, latency p50/p99, rejected share,
block interval, CPU and RSS per node, top allocators. Each side is a run
ID, IDs joined by commas (repeats), or a query in quotes:
  "label:branch=main latest"    the newest complete run labelled branch=main
  "scenario:default latest:5"   the five newest complete runs of a scenario
  "commit:3f9a1c"               every complete run of a chain commit
Every run gives its figure with a standard error from batches of its own
measured window; the spread between runs is measured from the runs, so
one run a side cannot decide. Runs that 'chainperf ab' made interleaved
are judged round by round (each candidate against its own round's
baseline). The change (ratio of geometric means) gets a 95 % interval: regressed or improved when the
interval is wholly on one side of zero and the change is at least the
threshold; unchanged when the interval is inside +-threshold; otherwise
inconclusive, with the smallest change the data could show.
Exit codes: 0 no gated figure (throughput, latency, rejected share)
regressed, 1 one did, 3 one was inconclusive (more runs needed), 2 bad
input. Usable as a CI step.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			thresholds, err := parseThresholds(per)
			if err != nil {
				return err
			}
			if err := checkThreshold(threshold); err != nil {
				return err
			}
			if err := vo.check(); err != nil {
				return err
			}
			st, err := openExisting(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			sides, err := compare.Sides(cmd.Context(), st, args[0], args[1], 0, force)
			if errors.Is(err, compare.ErrSameRun) {
				return fmt.Errorf("%w (--force compares anyway)", err)
			}
			if err != nil {
				return err
			}
			if diff := compare.Differences(sides[0], sides[1]); len(diff) > 0 && !force {
				return fmt.Errorf("the sides ran different things, so their figures do not compare (--force compares anyway):\n  %s", strings.Join(diff, "\n  "))
			}
			res := compare.Compare(sides[0], sides[1], threshold, thresholds)
			if err := res.Named(thresholds); err != nil {
				return fmt.Errorf("--threshold-for: %w", err)
			}
			if html != "" {
				if err := writeCompareHTML(cmd.Context(), st, html, args, res); err != nil {
					return err
				}
			}
			if err := vo.write(cmd.OutOrStdout(), res); err != nil {
				return err
			}
			return verdictErr(res)
		},
	}
	vo.flags(cmd)
	cmd.Flags().StringVar(&html, "html", "", "also write a page with the verdicts and the first run of each side's QA table and charts side by side")
	cmd.Flags().Float64Var(&threshold, "threshold", compare.DefaultThreshold, "smallest change that counts (percent; percentage points for shares)")
	cmd.Flags().StringSliceVar(&per, "threshold-for", nil, `per-figure threshold, FIGURE=PERCENT, e.g. "latency p99=20" (repeatable)`)
	cmd.Flags().BoolVar(&force, "force", false, "compare runs of different scenarios, experiments, loads, workloads or testnets, or runs that did not complete")
	return cmd
}

func parseThresholds(in []string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, s := range in {
		k, v, ok := strings.Cut(s, "=")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || k == "" || err != nil || checkThreshold(x) != nil {
			return nil, fmt.Errorf("--threshold-for %q: write FIGURE=PERCENT with a positive percent, e.g. \"latency p99=20\"", s)
		}
		out[k] = x
	}
	return out, nil
}

// checkThreshold refuses a threshold that is not a positive, finite
// percent: NaN would turn every comparison into "unchanged".
func checkThreshold(x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 || x > 1000 {
		return fmt.Errorf("--threshold %g: give a positive percent (points for shares) up to 1000, e.g. 5", x)
	}
	return nil
}

// writeCompareHTML writes the side-by-side page of the first run of each
// side (the newest, for a query).
func writeCompareHTML(ctx context.Context, st *store.Store, path string, args []string, res *compare.Result) error {
	var sides [2]report.Side
	for i, arg := range args {
		ids, err := compare.Resolve(ctx, st, arg)
		if err != nil {
			return err
		}
		if sides[i].Run, err = st.Run(ctx, ids[0]); err != nil {
			return err
		}
		if sides[i].Series, err = st.Series(ctx, ids[0]); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.CompareHTML(&buf, res, sides[0], sides[1]); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
