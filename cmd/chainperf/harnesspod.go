package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/kube/harnesspod"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes"
)

func harnessPodCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "harness-pod -- RUN-ARGS...",
		Short:  "Make a run as a harness pod: its output as the pod's, then its results served until fetched",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			switch code := harnesspod.Serve(cmd.Context(), exe, args, harnesspod.Out, 15*time.Minute); code {
			case 0:
				return nil
			case exitFail:
				return errFailed
			default:
				return fmt.Errorf("the run ended with exit %d", code)
			}
		},
	}
	return cmd
}

// podFlags are the `chainperf run` flags that go on to a harness pod's
// run as given (none names a file of this machine).
var podFlags = []string{"rate", "duration", "validators", "label", "netem-backend"}

// runInPod makes the run in a harness pod (testnet.kubernetes.harness =
// "pod") and brings it into st and reportDir as if it had run here.
func runInPod(cmd *cobra.Command, s *scenario.Scenario, st *store.Store, reportDir, exe string) error {
	ctx, out := cmd.Context(), cmd.OutOrStdout()
	var args []string
	for _, name := range podFlags {
		f := cmd.Flags().Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		if name == "label" {
			for _, l := range strings.Split(strings.Trim(f.Value.String(), "[]"), ",") {
				args = append(args, "--label="+l)
			}
			continue
		}
		args = append(args, "--"+name+"="+f.Value.String())
	}
	if f := cmd.Flags().Lookup("binary"); f != nil && f.Changed {
		return fmt.Errorf("--binary: a harness pod runs chainperf's own node (testnet.kubernetes.harness = %q)", scenario.HarnessPod)
	}
	tmp, err := os.MkdirTemp("", "chainperf-harness-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	code, err := kubernetes.RunHarness(ctx, s.Testnet, kubernetes.HarnessRun{Scenario: s.Text, Args: args, Exe: exe, Out: out, Dir: tmp})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: the harness pod was stopped and its testnet torn down; nothing was stored")
		}
		return err
	}
	ids, err := st.ImportDir(context.WithoutCancel(ctx), tmp, filepath.Join(harnesspod.Out, "reports"), reportDir)
	if err != nil {
		return fmt.Errorf("the harness pod's results: %w", err)
	}
	for _, id := range ids {
		fmt.Fprintf(out, "run %s, made in the harness pod: stored in %s: `chainperf runs show %s`; report in %s\n", id, st.Where(), id, filepath.Join(reportDir, id))
	}
	switch {
	case code == 0:
		return nil
	case code == exitFail:
		return errFailed
	case len(ids) == 0:
		return fmt.Errorf("the harness pod's run ended with exit %d and stored no run (its output is above)", code)
	default:
		return fmt.Errorf("the harness pod's run ended with exit %d (its output is above)", code)
	}
}
