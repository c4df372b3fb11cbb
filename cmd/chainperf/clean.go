package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/testnet/clean"
)

func cleanCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove what killed harnesses left: node processes, temp dirs, registry entries",
		Long: `clean ends the node processes of every testnet whose chainperf harness is
gone (a SIGKILL, a crash), removes the temp dirs chainperf made for them and
their registry entries. Only processes recorded in state files are
signalled, and only when their PID and start time both match the record.
Detached testnets that still run are kept unless --all is given; --all also
removes chainperf network namespaces (cpXXXXXX-N) that no state file of this
registry knows and in which no process runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			left, errs := clean.Clean(cmd.Context(), all)
			out := cmd.OutOrStdout()
			for _, l := range left {
				fmt.Fprintf(out, "removed testnet %s (%s): %d node processes ended\n", l.ID, l.Dir, l.Stopped)
			}
			for _, err := range errs {
				fmt.Fprintf(out, "skipped: %v\n", err)
			}
			if len(left) == 0 && len(errs) == 0 {
				fmt.Fprintln(out, "nothing to clean")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also take down detached testnets that still run, and unknown idle chainperf namespaces")
	return cmd
}
