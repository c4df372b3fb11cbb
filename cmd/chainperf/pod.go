package main

import (
	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/kube/entry"
)

func podCmd() *cobra.Command {
	var from []string
	var home string
	var port uint16
	cmd := &cobra.Command{
		Use:    "pod --from DIR... --home DIR --agent PORT -- NODE COMMAND",
		Short:  "Run a node in a Kubernetes pod: copy its files into its home, run it under the fault agent",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return entry.Run(from, home, port, args)
		},
	}
	cmd.Flags().StringArrayVar(&from, "from", nil, "read-only dir of the node's files (repeatable)")
	cmd.Flags().StringVar(&home, "home", "", "the node's writable home")
	cmd.Flags().Uint16Var(&port, "agent", 0, "port of the fault agent (pause, cut off) the harness calls")
	_ = cmd.MarkFlagRequired("home")
	_ = cmd.MarkFlagRequired("agent")
	return cmd
}
