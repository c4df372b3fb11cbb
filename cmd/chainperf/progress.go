package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/load"
)

// progressPrinter shows a run's progress: one refreshing line on a
// terminal, plain lines (every 5 s) when output goes to a file or CI log.
func progressPrinter(out io.Writer) func(experiment.Progress) {
	tty := false
	if f, ok := out.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	var last time.Time
	return func(p experiment.Progress) {
		s := p.Ledger
		line := fmt.Sprintf("%-5s %4.0fs/%.0fs  target %6.0f/s  sent %8d  accepted %8d  rejected %6d  errors %5d  committed %8d  unresolved %6d  lag p99 %6.2fms  height %d",
			p.Phase, p.Elapsed.Seconds(), p.Length.Seconds(), p.Target, s.Sent, s.Accepted,
			s.Rejected, s.SendErrors, s.Fates[load.FateCommitted], s.Accepted-s.Fates[load.FateCommitted]-s.Fates[load.FateCommittedFailed],
			s.Lag.P99, p.Height)
		if tty {
			fmt.Fprintf(out, "\r\033[K%s", line)
			return
		}
		if time.Since(last) >= 5*time.Second {
			fmt.Fprintln(out, line)
			last = time.Now()
		}
	}
}

// endProgress ends a refreshing line.
func endProgress(out io.Writer) {
	if f, ok := out.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			fmt.Fprintln(out)
		}
	}
}
