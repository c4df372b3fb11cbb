package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/bisect"
	"github.com/chainperf/chainperf/internal/build"
	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/compare/interleave"
	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
)

func bisectCmd() *cobra.Command {
	var good, bad, file, figure, reportDir string
	var minRounds, maxRounds int
	var threshold float64
	cmd := &cobra.Command{
		Use:     "bisect --good REF --bad REF --scenario S --figure F",
		Short:   "Find the first commit at which a figure regressed",
		Example: `  chainperf bisect --good v0.38.18 --bad main --scenario slow.toml --figure "latency p99"`,
		Long: `bisect runs a scenario whose node is built from source ([testnet.build], or
an application's [testnet.cosmos.build] or [testnet.evm.build]) at
commits chosen as git bisect chooses them, between a good and a bad ref, and
names the first commit whose figure regressed beyond the threshold against
the good commit. Each step runs the good commit and the step's commit
interleaved (as 'chainperf ab' does) until the figure is decided; a step
still undecided at --max-rounds stops the bisection (exit 3) rather than
guessing. Every run is stored, labelled bisect=ID and commit=HASH.
Figures are those of 'chainperf compare', e.g. "committed tx/s",
"latency p99", "max sustainable tx/s".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := resolveScenario(file)
			if err != nil {
				return err
			}
			dir, setRef := bisectSource(s)
			if dir == "" {
				return fmt.Errorf("scenario %s builds no node from source: bisect needs [testnet.build] (a CometBFT node) or [testnet.cosmos.build] / [testnet.evm.build] (an application) with a dir", file)
			}
			if err := checkThreshold(threshold); err != nil {
				return err
			}
			plan := interleave.Plan{MinRounds: minRounds, MaxRounds: maxRounds, Threshold: threshold, Figures: []string{figure}, Seed: rand.Uint64()}
			if err := plan.Check(); err != nil {
				return fmt.Errorf("--min-rounds, --max-rounds: %w", err)
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
			fmt.Fprintf(out, "bisect %s: %s over %d commits after %.12s up to %.12s, each against the good commit in %d to %d interleaved rounds\n", id, figure, len(commits), goodC, badC, minRounds, maxRounds)
			judge := func(ctx context.Context, commit string) (compare.Row, error) {
				p := plan
				p.Session = id + "-" + commit[:min(12, len(commit))]
				o, err := interleave.Run(ctx, p, func(ctx context.Context, t results.Trial) (compare.Values, error) {
					sc := *s
					if t.Side == interleave.Baseline {
						setRef(&sc, goodC)
					} else {
						setRef(&sc, commit)
					}
					r, err := experiment.Run(ctx, &sc, experiment.RunOptions{
						Exe: exe, Store: st, ReportDir: reportDir, Trial: &t, Labels: map[string]string{"bisect": id},
					})
					if err != nil {
						return compare.Values{}, err
					}
					return storedValues(ctx, st, r)
				}, nil)
				if err != nil {
					return compare.Row{}, err
				}
				if o.Interrupted {
					return compare.Row{}, context.Canceled
				}
				for _, r := range o.Result.Rows {
					if r.Figure == figure {
						return r, nil
					}
				}
				return compare.Row{}, fmt.Errorf("no figure %q", figure)
			}
			res, err := bisect.Find(ctx, goodC, commits, judge, func(step bisect.Step) {
				r := step.Row
				fmt.Fprintf(out, "  %.12s  %-40.40s  %s %s -> %s over %d rounds: %s (%+.1f %s)\n", step.Commit, build.Subject(ctx, dir, step.Commit), figure,
					compare.Num(r.BaseMean), compare.Num(r.CandMean), r.Rounds, r.Verdict, r.Change, r.ChangeIn)
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
	cmd.Flags().IntVar(&minRounds, "min-rounds", 2, "interleaved rounds a step runs before its verdict counts (at least 2)")
	cmd.Flags().IntVar(&maxRounds, "max-rounds", 6, "rounds a step runs at most; still undecided then, bisect stops")
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

// bisectSource is the git tree a scenario builds its node or application
// from, and how to point the scenario at another commit of it.
func bisectSource(s *scenario.Scenario) (string, func(*scenario.Scenario, string)) {
	if app, ok := s.Testnet.Application(); ok {
		return app.Build.Dir, func(s *scenario.Scenario, ref string) {
			app, _ := s.Testnet.Application()
			app.Build.Ref = ref
		}
	}
	return s.Testnet.Build.Dir, func(s *scenario.Scenario, ref string) { s.Testnet.Build.Ref = ref }
}
