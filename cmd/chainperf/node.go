package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/node"
)

func nodeCmd() *cobra.Command {
	var home string
	cmd := &cobra.Command{
		Use:    "node --home DIR",
		Short:  "Run one embedded node (CometBFT + kvstore); testnets start these",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return node.Run(cmd.Context(), home, os.Stdout)
		},
	}
	cmd.Flags().StringVar(&home, "home", "", "node home directory (config/, data/)")
	_ = cmd.MarkFlagRequired("home")
	return cmd
}
