package main

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/nodelog"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/results"
)

func logsCmd() *cobra.Command {
	var node, grep, level, since, until string
	cmd := &cobra.Command{
		Use:   "logs RUN [--node N] [--grep RE] [--level L] [--since T] [--until T]",
		Short: "Print the node logs kept with a stored run",
		Long: `Print the node logs kept with a stored run, each line after its node's
name. A run keeps each node's output up to 8 MiB (its start and its end,
with a line where the middle was cut). RUN is its ID, a unique start of it,
latest or latest~N. Runs stored before chainperf kept logs, and runs on an
external network, have none.

--level keeps the lines at that level or above (CometBFT's plain lines,
the SDK's console lines and JSON lines each say theirs); --since and
--until keep the lines written in that window: a time from the run's start
(90s, 2m), a time as chainperf prints them (2026-11-29 14:05:30 UTC), a
clock time in UTC on the run's day (14:05:30) or an RFC 3339 time. The SDK's console lines give the minute only: a line
is kept when its minute overlaps the window. A line that says neither (a
stack trace's) goes with the line before it.`,
		Example: `  chainperf runs logs latest --node validator0 --grep commit
  chainperf runs logs 20261125-114355-823b --grep '(?i)error|panic'
  chainperf runs logs latest --level warn --since 20s --until 40s`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			re, err := regexp.Compile(grep)
			if err != nil {
				return fmt.Errorf("--grep %q: %w", grep, err)
			}
			min := nodelog.None
			if level != "" {
				if min, err = nodelog.ParseLevel(level); err != nil {
					return fmt.Errorf("--level %w", err)
				}
			}
			st, id, err := openRun(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			run, err := st.Run(cmd.Context(), id)
			if err != nil {
				return err
			}
			f := nodelog.Filter{Min: min, Near: run.Start, Loc: time.Local}
			if f.Since, err = when("--since", since, run.Start); err != nil {
				return err
			}
			if f.Until, err = when("--until", until, run.Start); err != nil {
				return err
			}
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
				f.Reset()
				for _, line := range bytes.Split(bytes.TrimRight(l.Text, "\n"), []byte("\n")) {
					line = nodelog.Plain(line)
					if f.Keep(line) && re.Match(line) {
						fmt.Fprintf(out, "%s | %s\n", l.Node, printable.Clean(string(line)))
					}
				}
			}
			return out.Flush()
		},
	}
	cmd.Flags().StringVar(&node, "node", "", "only this node's log (validator0, full0, ...)")
	cmd.Flags().StringVar(&grep, "grep", "", "only the lines this regular expression matches (Go syntax; (?i) for any case)")
	cmd.Flags().StringVar(&level, "level", "", "only the lines at this level or above: debug, info, warn, error, fatal")
	cmd.Flags().StringVar(&since, "since", "", "only the lines written from this time: 90s after the run's start, 2026-11-29 14:05:30 UTC, 14:05:30 (UTC) on its day, or RFC 3339")
	cmd.Flags().StringVar(&until, "until", "", "only the lines written up to this time (as --since)")
	return cmd
}

// when reads a --since or --until time: a duration after the run's
// start, a time as chainperf prints them (2026-11-29 14:05:30 UTC), a
// clock time in UTC on the run's day (14:05:30) or RFC 3339; "" is none
// (the zero time).
func when(flag, s string, start time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return start.Add(d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, results.Layout} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"15:04:05", "15:04", "15:04:05 UTC"} {
		if c, err := time.Parse(layout, s); err == nil {
			day := start.UTC()
			return time.Date(day.Year(), day.Month(), day.Day(), c.Hour(), c.Minute(), c.Second(), 0, time.UTC), nil
		}
	}
	return time.Time{}, fmt.Errorf("%s %q: give a time after the run's start (90s), a time as chainperf prints them (2026-11-29 14:05:30 UTC), a clock time in UTC (14:05:30) or an RFC 3339 time", flag, s)
}
