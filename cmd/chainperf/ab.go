package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/compare/interleave"
	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/report"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/store"
)

// verdictOut is where a verdict goes besides the terminal.
type verdictOut struct {
	format, out, junit string
	all                bool
}

func (o *verdictOut) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.format, "format", "text", "text, md (for a pull-request comment) or json")
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "write the verdict to this file instead of standard output")
	cmd.Flags().StringVar(&o.junit, "junit", "", "also write the verdict as a JUnit XML report (a test case a figure) to this file")
	cmd.Flags().BoolVar(&o.all, "all", false, "show every figure's row (by default the figures not gated that did not move are folded, a line a group)")
}

func (o *verdictOut) check() error {
	switch o.format {
	case "text", "md", "markdown", "json":
		return nil
	}
	return fmt.Errorf("--format %q: use text, md or json", o.format)
}

// write renders res in memory first, so that a failure leaves no half
// file, then writes it where asked.
func (o *verdictOut) write(stdout io.Writer, res *compare.Result) error {
	var buf bytes.Buffer
	switch o.format {
	case "text":
		res.TextAll(&buf, o.all)
	case "md", "markdown":
		res.Markdown(&buf)
	case "json":
		if err := res.JSON(&buf); err != nil {
			return err
		}
	}
	if o.junit != "" {
		var j bytes.Buffer
		if err := res.JUnit(&j); err != nil {
			return err
		}
		if err := os.WriteFile(o.junit, j.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if o.out != "" {
		return os.WriteFile(o.out, buf.Bytes(), 0o644)
	}
	_, err := stdout.Write(buf.Bytes())
	return err
}

// verdictErr is the exit a comparison's result asks for: by the figures
// named (a session's --decide-on), else by the gated ones.
func verdictErr(res *compare.Result, figures ...string) error {
	regressed, inconclusive := len(res.Regressed) > 0, len(res.Inconclusive) > 0
	if len(figures) > 0 {
		regressed, inconclusive = false, false
		for _, r := range res.Rows {
			if slices.Contains(figures, r.Figure) {
				regressed = regressed || r.Verdict == compare.Regressed
				inconclusive = inconclusive || r.Verdict == compare.Inconclusive
			}
		}
	}
	switch {
	case regressed:
		return errFailed
	case inconclusive:
		return errInconclusive
	}
	return nil
}

// focus makes the figures a session decides on (--decide-on) its gated
// ones and the others informative, so that the verdict it writes (shown
// always, not folded; the regressed and inconclusive it lists) says what
// its exit code says.
func focus(res *compare.Result, figures []string) {
	if len(figures) == 0 {
		return
	}
	res.Regressed, res.Inconclusive = nil, nil
	for i := range res.Rows {
		r := &res.Rows[i]
		r.Gated = slices.Contains(figures, r.Figure)
		switch {
		case !r.Gated:
		case r.Verdict == compare.Regressed:
			res.Regressed = append(res.Regressed, r.Figure)
		case r.Verdict == compare.Inconclusive:
			res.Inconclusive = append(res.Inconclusive, r.Figure)
		}
	}
}

func abCmd() *cobra.Command {
	var vo verdictOut
	var labels, per, decideOn []string
	var minRounds, maxRounds int
	var threshold float64
	var seed uint64
	var reportDir, baseBin, candBin string
	cmd := &cobra.Command{
		Use:   "ab BASELINE.toml [CANDIDATE.toml]",
		Short: "Run two sides interleaved until every gated figure is decided; exit 1 when one regressed",
		Example: `  chainperf ab base.toml cand.toml
  chainperf ab s.toml --baseline-binary ./cometbft-main --candidate-binary ./cometbft-pr
  chainperf ab s.toml --max-rounds 10            # A/A: the gate's false alarms here
  chainperf ab base.toml cand.toml --format md -o verdict.md --junit verdict.xml`,
		Long: `ab runs the baseline and the candidate on this machine in rounds: one run of
each a round, which goes first chosen at random, until every gated figure
is regressed, improved or unchanged at the threshold, or --max-rounds.
Each round's candidate is judged against its own round's baseline, so the
machine's drift between runs cancels instead of reading as a change (all
of A before all of B cannot tell the two apart). The sides are two
scenario files, or one scenario on two node binaries (--baseline-binary,
--candidate-binary); one scenario on one binary is an A/A run, which
calibrates the gate. Every run is stored, labelled ab=SESSION and
side=baseline|candidate, with its round and place in the order.
Ctrl-C ends the run under way and gives the verdict on the rounds that
completed. Exit codes as compare: 0 no gated figure regressed, 1 one did,
3 one was still inconclusive after --max-rounds, 2 bad input.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := vo.check(); err != nil {
				return err
			}
			thresholds, err := parseThresholds(per)
			if err != nil {
				return err
			}
			if err := checkThreshold(threshold); err != nil {
				return err
			}
			files := [2]string{args[0], args[0]}
			if len(args) == 2 {
				files[1] = args[1]
			}
			var sides [2]*scenario.Scenario
			for i, bin := range [2]string{baseBin, candBin} {
				if sides[i], err = abScenario(files[i], bin); err != nil {
					return err
				}
			}
			lbl, err := parseLabels(labels)
			if err != nil {
				return err
			}
			if reportDir == "" {
				reportDir = sides[0].Report.Dir
			}
			if err := checkWritable(reportDir); err != nil {
				return err
			}
			if !cmd.Flags().Changed("seed") {
				seed = rand.Uint64()
			}
			plan := interleave.Plan{Session: experiment.NewRunID(), MinRounds: minRounds, MaxRounds: maxRounds,
				Threshold: threshold, Per: thresholds, Figures: decideOn, Seed: seed}
			if err := plan.Check(); err != nil {
				return fmt.Errorf("--min-rounds, --max-rounds: %w", err)
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			st, err := openStore(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "ab %s: baseline %s, candidate %s; %d to %d rounds, order by seed %d\n",
				plan.Session, describeSide(files[0], baseBin), describeSide(files[1], candBin), minRounds, maxRounds, seed)
			if plan.Calibration, err = calibration(cmd.Context(), out, st, sides[0].Name, plan); err != nil {
				return err
			}
			run := func(ctx context.Context, t results.Trial) (compare.Values, error) {
				s := sides[0]
				if t.Side == interleave.Candidate {
					s = sides[1]
				}
				l := map[string]string{}
				for k, v := range lbl {
					l[k] = v
				}
				l["ab"], l["side"] = plan.Session, t.Side // over a user's: they are how the runs pair
				r, err := experiment.Run(ctx, s, experiment.RunOptions{Exe: exe, Labels: l, Trial: &t, Store: st, ReportDir: reportDir})
				if err != nil {
					return compare.Values{}, err
				}
				v, err := storedValues(ctx, st, r)
				if err == nil {
					fmt.Fprintf(out, "  round %d %-9s run %s %s: %s\n", t.Round, t.Side, r.ID, strings.ToUpper(string(r.Status)), headlineOf(v))
				}
				return v, err
			}
			o, runErr := interleave.Run(cmd.Context(), plan, run, func(round int, res *compare.Result) {
				fmt.Fprintf(out, "  after round %d: %s\n", round, standing(res, decideOn))
			})
			if o == nil || o.Result == nil || o.Rounds == 0 {
				if runErr == nil {
					runErr = fmt.Errorf("interrupted before a round completed: no verdict")
				}
				return runErr
			}
			fmt.Fprintf(out, "\n%s\n\n", abSummary(o, decideOn))
			focus(o.Result, decideOn)
			if err := vo.write(out, o.Result); err != nil {
				return err
			}
			if runErr != nil {
				return runErr
			}
			return verdictErr(o.Result, decideOn...)
		},
	}
	vo.flags(cmd)
	cmd.Flags().IntVar(&minRounds, "min-rounds", 3, "rounds before a verdict counts (at least 2)")
	cmd.Flags().IntVar(&maxRounds, "max-rounds", 10, "rounds at most; still undecided then: exit 3")
	cmd.Flags().StringSliceVar(&decideOn, "decide-on", nil, `the figures the session is about, e.g. "latency p50" (repeatable): it stops when they are decided and they alone set the exit code; the others are informative (default: every gated figure)`)
	cmd.Flags().Float64Var(&threshold, "threshold", compare.DefaultThreshold, "smallest change that counts (percent; percentage points for shares)")
	cmd.Flags().StringSliceVar(&per, "threshold-for", nil, `per-figure threshold, FIGURE=PERCENT, e.g. "latency p99=20" (repeatable)`)
	cmd.Flags().Uint64Var(&seed, "seed", 0, "seed of the order within rounds (default: random, printed)")
	cmd.Flags().Var(newLabelsFlag(&labels), "label", "label every run, KEY=VALUE (repeatable)")
	cmd.Flags().StringVar(&reportDir, "report-dir", "", "where reports go (default: the baseline scenario's report.dir)")
	cmd.Flags().StringVar(&baseBin, "baseline-binary", "", "run the baseline's testnet on this node (a path or module:...@version)")
	cmd.Flags().StringVar(&candBin, "candidate-binary", "", "run the candidate's testnet on this node (a path or module:...@version)")
	return cmd
}

// calibration reads the A/A sessions of the scenario stored here and
// says, before the first run, what they showed: the rounds a change of
// each figure the session is about needs.
func calibration(ctx context.Context, out io.Writer, st *store.Store, name string, plan interleave.Plan) (*compare.Calibration, error) {
	cal, err := compare.StoredCalibration(ctx, st, name)
	if err != nil {
		return nil, fmt.Errorf("reading the A/A sessions of %q: %w", name, err)
	}
	for _, l := range cal.Lines(compare.Wanted(plan.Figures), plan.Threshold, plan.Per, plan.MinRounds, plan.MaxRounds) {
		fmt.Fprintln(out, l)
	}
	return &cal, nil
}

// abScenario opens one side's scenario, on another node binary if asked.
func abScenario(file, bin string) (*scenario.Scenario, error) {
	return resolveScenario(file, binaryEdit(fmt.Sprintf("%s on %s", file, bin), bin))
}

func describeSide(file, bin string) string {
	if bin != "" {
		return file + " on " + bin
	}
	return file
}

// storedValues writes a finished run's report and reads its figures as
// compare does.
func storedValues(ctx context.Context, st *store.Store, r *results.Run) (compare.Values, error) {
	series, err := st.Series(ctx, r.ID)
	if err != nil {
		return compare.Values{}, err
	}
	if err := writeLogs(ctx, st, r.ReportDir, r.ID); err != nil {
		return compare.Values{}, err
	}
	if _, err := report.Write(r.ReportDir, r, series); err != nil {
		return compare.Values{}, err
	}
	return compare.FromRun(r, series), nil
}

// headlineOf is a run's headline figures in one line.
func headlineOf(v compare.Values) string {
	var parts []string
	for _, name := range compare.Headline() {
		if xs := v.Figures[name]; len(xs) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", name, compare.Num(xs[0].Value)))
		}
	}
	return strings.Join(parts, ", ")
}

// standing is the verdict so far of each figure the session is about
// (every gated one, unless named).
func standing(res *compare.Result, decideOn []string) string {
	var parts []string
	for _, r := range res.Rows {
		if len(decideOn) == 0 && r.Gated || slices.Contains(decideOn, r.Figure) {
			parts = append(parts, fmt.Sprintf("%s %s (%+.1f %s)", r.Figure, r.Verdict, r.Change, r.ChangeIn))
		}
	}
	return strings.Join(parts, "; ")
}

// abSummary says how the session ended: rounds, why it stopped, and the
// smallest change each gated figure could have shown.
func abSummary(o *interleave.Outcome, decideOn []string) string {
	why := "every gated figure decided"
	if len(decideOn) > 0 {
		why = fmt.Sprintf("decided on %s (the other figures are informative: they do not set the exit code)", strings.Join(decideOn, ", "))
	}
	switch {
	case o.Interrupted:
		why = "interrupted: the verdict is on the rounds that completed"
	case !o.Decided:
		why = "still undecided at --max-rounds"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d round(s), %d runs: %s", o.Rounds, len(o.Order), why)
	for _, r := range o.Result.Rows {
		if (r.Gated || slices.Contains(decideOn, r.Figure)) && r.Tested {
			fmt.Fprintf(&b, "\n  %s: smallest change it could have seen %.1f %s", r.Figure, r.Detectable(), r.ChangeIn)
		}
	}
	return b.String()
}
