package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/bisect"
	"github.com/chainperf/chainperf/internal/build"
	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/report"
	"github.com/chainperf/chainperf/internal/scenario"
)

func bisectCmd() *cobra.Command {
	var good, bad, file, figure, reportDir string
	var repeats int
	var threshold float64
	cmd := &cobra.Command{
		Use:   "bisect --good REF --bad REF --scenario S --figure F",
		Short: "Find the first commit at which a figure regressed",
		Long: `bisect runs a scenario whose node is built from source ([testnet.build]) at
commits chosen as git bisect chooses them, between a good and a bad ref, and
names the first commit whose figure regressed beyond the threshold against
the good commit. Every run is stored, labelled bisect=ID and commit=HASH.
Figures are those of 'chainperf compare', e.g. "committed tx/s",
"latency p99", "max sustainable tx/s".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := scenario.Open(file)
			if err != nil {
				return err
			}
			if err := experiment.Check(s); err != nil {
				return err
			}
			dir := s.Testnet.Build.Dir
			if dir == "" {
				return fmt.Errorf("scenario %s builds no node from source: bisect needs [testnet.build] dir", file)
			}
			if err := checkThreshold(threshold); err != nil {
				return err
			}
			if repeats < 1 {
				return fmt.Errorf("--repeats %d: at least 1", repeats)
			}
			ctx := cmd.Context()
			goodC, err := build.Resolve(ctx, dir, good)
			if err != nil {
				return fmt.Errorf("--good: %w", err)
			}
			badC, err := build.Resolve(ctx, dir, bad)
			if err != nil {
				return fmt.Errorf("--bad: %w", err)
			}
			commits, err := build.Between(ctx, dir, goodC, badC)
			if err != nil {
				return err
			}
			fig := compare.Describe(figure)
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			st, err := openStore(ctx)
			if err != nil {
				return err
			}
			defer st.Close()
			if reportDir == "" {
				reportDir = s.Report.Dir
			}
			id := experiment.NewRunID()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "bisect %s: %s over %d commits after %.12s up to %.12s, %d run(s) a commit\n", id, figure, len(commits), goodC, badC, repeats)
			measure := func(ctx context.Context, commit string) ([]compare.Sample, error) {
				var vals []compare.Sample
				for i := 0; i < repeats; i++ {
					sc := *s
					sc.Testnet.Build.Ref = commit
					r, err := experiment.Run(ctx, &sc, experiment.RunOptions{
						Exe: exe, Store: st, ReportDir: reportDir, Labels: map[string]string{"bisect": id},
					})
					if err != nil {
						return nil, err
					}
					series, err := st.Series(ctx, r.ID)
					if err != nil {
						return nil, err
					}
					if _, err := report.Write(r.ReportDir, r, series); err != nil {
						return nil, err
					}
					v := compare.FromRun(r, series)
					xs, ok := v.Figures[figure]
					if !ok {
						return nil, fmt.Errorf("run %s has no figure %q; it has %s", r.ID, figure, figureNames(v))
					}
					vals = append(vals, xs...)
				}
				return vals, nil
			}
			res, err := bisect.Find(ctx, goodC, commits, fig, threshold, measure, func(step bisect.Step) {
				verdict := "baseline"
				if step.Verdict != "" {
					verdict = fmt.Sprintf("%s (%+.1f %%)", step.Verdict, step.Change)
				}
				fmt.Fprintf(out, "  %.12s  %-40.40s  %s %v  %s\n", step.Commit, build.Subject(ctx, dir, step.Commit), figure, step.Values, verdict)
			})
			if errors.Is(err, bisect.ErrUndecided) {
				fmt.Fprintf(out, "bisect stopped: %v\n", err)
				return errInconclusive
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "first bad commit: %s %s\n", res.First, build.Subject(ctx, dir, res.First))
			return nil
		},
	}
	cmd.Flags().StringVar(&good, "good", "", "a ref whose figure is fine (required)")
	cmd.Flags().StringVar(&bad, "bad", "", "a later ref whose figure regressed (required)")
	cmd.Flags().StringVar(&file, "scenario", "", "scenario file with [testnet.build] (required)")
	cmd.Flags().StringVar(&figure, "figure", "committed tx/s", "the figure that regressed, as 'chainperf compare' names it")
	cmd.Flags().IntVar(&repeats, "repeats", 1, "runs a commit (more narrow the change's interval)")
	cmd.Flags().Float64Var(&threshold, "threshold", compare.DefaultThreshold, "smallest change (percent) that counts as a regression")
	cmd.Flags().StringVar(&reportDir, "report-dir", "", "where reports go (default: the scenario's report.dir)")
	for _, f := range []string{"good", "bad", "scenario"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

func figureNames(v compare.Values) string {
	var names []string
	for k := range v.Figures {
		names = append(names, fmt.Sprintf("%q", k))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
