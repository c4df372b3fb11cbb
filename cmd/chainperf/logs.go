package main

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/nodelog"
	"github.com/chainperf/chainperf/internal/printable"
)

func logsCmd() *cobra.Command {
	var node, grep string
	cmd := &cobra.Command{
		Use:   "logs RUN [--node N] [--grep RE]",
		Short: "Print the node logs kept with a stored run",
		Long: `Print the node logs kept with a stored run, each line after its node's
name. A run keeps each node's output up to 8 MiB (its start and its end,
with a line where the middle was cut). RUN is its ID, a unique start of it,
latest or latest~N. Runs stored before chainperf kept logs, and runs on an
external network, have none.`,
		Example: `  chainperf runs logs latest --node validator0 --grep commit
  chainperf runs logs 20261125-114355-823b --grep '(?i)error|panic'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			re, err := regexp.Compile(grep)
			if err != nil {
				return fmt.Errorf("--grep %q: %w", grep, err)
			}
			st, id, err := openRun(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			logs, err := st.Logs(cmd.Context(), id)
			if err != nil {
				return err
			}
			if len(logs) == 0 {
				return fmt.Errorf("run %s: no logs kept (runs stored before chainperf kept node logs, and runs on an external network, have none)", id)
			}
			var names []string
			for _, l := range logs {
				names = append(names, l.Node)
			}
			if node != "" && !slices.Contains(names, node) {
				return fmt.Errorf("--node %q: run %s kept the logs of %v", node, id, names)
			}
			out := bufio.NewWriter(cmd.OutOrStdout())
			for _, l := range logs {
				if node != "" && l.Node != node {
					continue
				}
				for _, line := range bytes.Split(bytes.TrimRight(l.Text, "\n"), []byte("\n")) {
					line = nodelog.Plain(line)
					if re.Match(line) {
						fmt.Fprintf(out, "%s | %s\n", l.Node, printable.Clean(string(line)))
					}
				}
			}
			return out.Flush()
		},
	}
	cmd.Flags().StringVar(&node, "node", "", "only this node's log (validator0, full0, ...)")
	cmd.Flags().StringVar(&grep, "grep", "", "only the lines this regular expression matches (Go syntax; (?i) for any case)")
	return cmd
}
