package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/report"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes"
)

func runCmd() *cobra.Command {
	var labels []string
	var reportDir, backend, metricsAddr, nodeBinary string
	var remote bool
	var ov overrides
	cmd := &cobra.Command{
		Use:   "run [scenario.toml]",
		Short: "Run a scenario from nothing to a report (the built-in default without a file)",
		Example: `  chainperf run                                   # the built-in default scenario
  chainperf run examples/find-max.toml --label branch=main
  chainperf run --rate 300 --duration 60s --validators 7   # the default, changed on the command line
  chainperf run s.toml --binary "module:github.com/cometbft/cometbft/cmd/cometbft@v0.38.19"`,
		Long: `run brings up the scenario's testnet, drives its load while following every
block, drains, takes the testnet down, applies the criteria and writes the
report. Exit code 0: the run passed its criteria; 1: it failed them; 2: bad
input or an error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			lbl, err := parseLabels(labels)
			if err != nil {
				return err
			}
			s, err := resolveScenario(file, backendEdit(backend), binaryEdit("--binary", nodeBinary), ov.edit(cmd.Flags(), lbl))
			if err != nil {
				return err
			}
			if reportDir == "" {
				reportDir = s.Report.Dir
			}
			if err := checkWritable(reportDir); err != nil {
				return err
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
			if s.Testnet.Provider == scenario.ProviderKubernetes && s.Testnet.Kubernetes.Harness == scenario.HarnessPod && !kubernetes.InHarnessPod() {
				return runInPod(cmd, s, st, reportDir, exe)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "scenario %s: %s\n", s.Name, describePlan(s))
			live := newLiveView(out)
			progress, stopMetrics, err := serveLiveMetrics(cmd, metricsAddr, remote, live)
			if err != nil {
				return err
			}
			defer stopMetrics()
			r, runErr := experiment.Run(cmd.Context(), s, experiment.RunOptions{
				Exe: exe, Labels: lbl, Progress: progress, Store: st, ReportDir: reportDir,
				Phase: func(p string) { live.End(); fmt.Fprintf(out, "== %s\n", p) },
			})
			live.End()
			return reportRun(cmd.Context(), out, st, r, runErr)
		},
	}
	cmd.Flags().Var(newLabelsFlag(&labels), "label", "label the run, KEY=VALUE (repeatable), e.g. --label branch=main")
	cmd.Flags().Float64Var(&ov.rate, "rate", 0, "override the scenario's [load] rate, tx/s")
	cmd.Flags().DurationVar(&ov.duration, "duration", 0, "override the scenario's [load] duration, e.g. 60s")
	cmd.Flags().IntVar(&ov.validators, "validators", 0, "override the scenario's [testnet] validators")
	cmd.Flags().StringVar(&nodeBinary, "binary", "", `run the scenario's testnet on this binary instead: for a Cosmos SDK or EVM chain its application (a path, or "module:github.com/CosmWasm/wasmd/cmd/wasmd@v0.61.14"), else the CometBFT node ("module:github.com/cometbft/cometbft/cmd/cometbft@v1.0.1": a release built from its Go module)`)
	cmd.Flags().StringVar(&reportDir, "report-dir", "", "where reports go (default: the scenario's report.dir)")
	cmd.Flags().StringVar(&metricsAddr, "metrics-addr", "", "serve the run's live figures for Prometheus on this address, e.g. 127.0.0.1:9464 (off by default)")
	cmd.Flags().BoolVar(&remote, "allow-remote", false, "allow a --metrics-addr other machines can reach")
	cmd.Flags().StringVar(&backend, "netem-backend", "", `force the emulated WAN's delay backend: "tc" or "nfqueue" (default: the scenario's, "auto")`)
	return cmd
}

// writeLogs writes the run's kept node logs into its report folder, where
// report.html links them.
func writeLogs(ctx context.Context, st *store.Store, dir, id string) error {
	logs, err := st.Logs(ctx, id)
	if err != nil {
		return fmt.Errorf("node logs: %w", err)
	}
	kept := make([]report.Log, 0, len(logs))
	for _, l := range logs {
		kept = append(kept, report.Log{Node: l.Node, Text: l.Text})
	}
	if _, err := report.WriteLogs(dir, kept); err != nil {
		return fmt.Errorf("node logs: %w", err)
	}
	return nil
}

// reportRun writes the report of a stored run, prints its summary and
// returns the error that decides the exit code: runErr, or errFailed when
// the criteria failed.
func reportRun(ctx context.Context, out io.Writer, st *store.Store, r *results.Run, runErr error) error {
	// After Ctrl-C ctx is done, and the report is still due: what was
	// stored is read without it.
	ctx = context.WithoutCancel(ctx)
	if _, err := st.Run(ctx, r.ID); err != nil && runErr != nil {
		return runErr // it stopped before it began (a failed build): nothing to report
	}
	series, err := st.Series(ctx, r.ID)
	if err != nil {
		return err
	}
	werr := writeLogs(ctx, st, r.ReportDir, r.ID)
	paths, err := report.Write(r.ReportDir, r, series)
	werr = errors.Join(werr, err)
	if werr != nil {
		werr = fmt.Errorf("report not written: %w", werr)
	}
	var notStored *experiment.NotStored
	if errors.As(runErr, &notStored) {
		report.Summary(printable.NewWriter(out), r, paths)
		return errors.Join(runErr, werr) // said in place of "stored in"
	}
	endOfRun(out, st, r, paths)
	if werr != nil {
		return errors.Join(runErr, werr)
	}
	switch {
	case errors.Is(runErr, context.Canceled):
		return fmt.Errorf("interrupted: what was measured until then is stored and reported above")
	case runErr != nil:
		return runErr
	case !r.Passed:
		return errFailed
	}
	return nil
}

// endOfRun is the block `chainperf run` ends with, and `runs show
// --summary` prints again: the summary, where the report is and where the
// run is stored.
func endOfRun(out io.Writer, st *store.Store, r *results.Run, paths []string) {
	report.Summary(printable.NewWriter(out), r, paths)
	fmt.Fprintf(out, "stored in %s: `chainperf runs show %s`\n", st.Where(), r.ID)
}

// describePlan says what a scenario will run: its nodes, then its phases
// with their loads and the workload.
func describePlan(s *scenario.Scenario) string {
	nodes := count(s.Testnet.Validators, "validator", "validators") + " + " + count(s.Testnet.FullNodes, "full node", "full nodes")
	if s.Testnet.Provider == scenario.ProviderExternal {
		nodes = count(len(s.Testnet.Nodes), "node", "nodes") + " of an external network"
	}
	out := nodes + ", " + describeLoad(s)
	if v := len(s.Testnet.Versions); v > 0 {
		out += fmt.Sprintf("; %d versions of the node", v)
	}
	for _, p := range s.Perturbations {
		switch {
		case p.Coordinated():
			out += fmt.Sprintf("; every node halts at height %d and starts on %s", p.Height, p.To)
		case p.Kind == "upgrade":
			out += fmt.Sprintf("; a rolling upgrade of %d nodes to %s from %s", len(s.UpgradeNodes(p)), p.To, p.At.D())
		}
	}
	if s.Experiment.RotateSync == "state" {
		out += fmt.Sprintf("; rotating nodes join by state sync (snapshots every %d heights)", s.Testnet.SnapshotInterval)
	}
	if b := s.IBC; b.Peer != nil {
		out += fmt.Sprintf("; beside it %s's testnet (%s) and a relayer", b.Peer.Testnet.ChainID, b.Counterparty)
		if b.Back > 0 {
			out += fmt.Sprintf(", which sends %s back at %g times this rate", b.Peer.Workload.Kind, b.Back)
		}
	}
	return out
}

func parseLabels(in []string) (map[string]string, error) {
	out := map[string]string{}
	for _, l := range in {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("label %q: write KEY=VALUE", l)
		}
		out[k] = v
	}
	return out, nil
}

func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir %s cannot be created: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("report dir %s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// overrides are the common changes to a scenario made on the command
// line. A run with any is filed under the scenario's name with them
// ("default [rate=300]") and labelled "overrides": it is another experiment,
// and must not mix with the scenario's own runs in compare and trend.
type overrides struct {
	rate       float64
	duration   time.Duration
	validators int
}

// edit makes the overrides given: the changes, the scenario's name with
// them and the run's label.
func (o *overrides) edit(fs *pflag.FlagSet, labels map[string]string) edit {
	var said []string
	if fs.Changed("rate") {
		said = append(said, fmt.Sprintf("rate=%g", o.rate))
	}
	if fs.Changed("duration") {
		said = append(said, "duration="+o.duration.String())
	}
	if fs.Changed("validators") {
		said = append(said, fmt.Sprintf("validators=%d", o.validators))
	}
	if len(said) == 0 {
		return edit{}
	}
	return edit{"with " + strings.Join(said, " "), func(s *scenario.Scenario) error {
		if fs.Changed("rate") {
			s.Load.Rate = o.rate
		}
		if fs.Changed("duration") {
			s.Load.Duration = scenario.Duration(o.duration)
		}
		if fs.Changed("validators") {
			s.Testnet.Validators = o.validators
		}
		if s.Experiment.Warmup.D()+s.Experiment.Cooldown.D() >= s.Load.Length() {
			s.Experiment.Warmup, s.Experiment.Cooldown = 0, 0 // a short load is measured whole
		}
		// Spaces, not commas: --label filters split at commas.
		s.Name += " [" + strings.Join(said, " ") + "]"
		labels["overrides"] = strings.Join(said, " ")
		return nil
	}}
}
