package main

import (
	"math"
	"os"
	"runtime/debug"

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
			if os.Getenv("GOMEMLIMIT") == "" {
				debug.SetMemoryLimit(math.MaxInt64) // the harness's soft limit is not a node's
			}
			return node.Run(cmd.Context(), home, os.Stdout)
		},
	}
	cmd.Flags().StringVar(&home, "home", "", "node home directory (config/, data/)")
	_ = cmd.MarkFlagRequired("home")
	return cmd
}
