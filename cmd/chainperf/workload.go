package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/nodehttp"
)

func workloadCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workload",
		Short: "Make a workload from a network's own traffic",
	}
	cmd.AddCommand(workloadLearnCmd())
	return cmd
}

func workloadLearnCmd() *cobra.Command {
	var rpc, out string
	var from, to int64
	var blocks int
	cmd := &cobra.Command{
		Use:   "learn --rpc URL [--blocks N | --from H --to H] [-o FILE]",
		Short: "Write a Cosmos workload whose message mix is a network's, learned from its blocks",
		Example: `  chainperf workload learn --rpc http://127.0.0.1:26657 --blocks 200 -o learned.toml
  chainperf workload learn --rpc http://127.0.0.1:26657 --from 120 --to 180`,
		Long: `learn reads a Cosmos SDK network's blocks through a node's RPC (only
reads: no tx is sent), decodes every tx's messages with the descriptors the
chain serves (its cosmos.reflection.v1 service), and writes a scenario's
[workload]: a cosmos-mix with one templated entry a message type, weighed
by its count, its template one real message of the type with its signer as
{wallet}, other account addresses as {other} and denoms as {denom}. Put it
in a scenario for a testnet of the same chain (or the network itself, with
a funder) and its load has the network's mix.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, _, err := nodehttp.Canonical(rpc)
			if err != nil {
				return fmt.Errorf("--rpc: %w", err)
			}
			if blocks < 1 || blocks > chain.MaxLearnBlocks {
				return fmt.Errorf("--blocks %d: from 1 to %d", blocks, chain.MaxLearnBlocks)
			}
			if from < 0 || to < 0 || (to > 0 && from > to) {
				return fmt.Errorf("--from %d --to %d: heights, from no later than to", from, to)
			}
			var learned bytes.Buffer // whole before a file is made: a failure leaves none
			said, err := chain.LearnWorkload(cmd.Context(), u, from, to, blocks, &learned)
			if err != nil {
				return err
			}
			var w io.Writer = cmd.OutOrStdout()
			if out != "" {
				f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
				if err != nil {
					return fmt.Errorf("-o: %w (learn does not overwrite a file)", err)
				}
				defer f.Close()
				w = f
			}
			if _, err := learned.WriteTo(w); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), said)
			return nil
		},
	}
	cmd.Flags().StringVar(&rpc, "rpc", "", "RPC URL of a node of the network")
	cmd.Flags().IntVar(&blocks, "blocks", 100, "how many blocks up to --to (or the latest) to read")
	cmd.Flags().Int64Var(&from, "from", 0, "first block to read (0: --blocks before --to)")
	cmd.Flags().Int64Var(&to, "to", 0, "last block to read (0: the node's latest)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the workload to this file (new), not standard output")
	_ = cmd.MarkFlagRequired("rpc")
	return cmd
}
