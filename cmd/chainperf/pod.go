package main

import (
	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/kube/entry"
)

func podCmd() *cobra.Command {
	var from []string
	var home string
	cmd := &cobra.Command{
		Use:    "pod --from DIR... --home DIR -- NODE COMMAND",
		Short:  "Start a node in a Kubernetes pod: copy its files into its home, then run it",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return entry.Run(from, home, args)
		},
	}
	cmd.Flags().StringArrayVar(&from, "from", nil, "read-only dir of the node's files (repeatable)")
	cmd.Flags().StringVar(&home, "home", "", "the node's writable home")
	_ = cmd.MarkFlagRequired("home")
	return cmd
}
