package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/listen"
	"github.com/chainperf/chainperf/internal/livemetrics"
	"github.com/chainperf/chainperf/internal/load"
)

// A liveView shows a run's progress: on a terminal one status block
// redrawn in place every second; otherwise (a file, a CI log) one plain
// line every 5 s.
type liveView struct {
	out   io.Writer
	tty   bool
	drawn int // lines of the block on screen now
	last  time.Time
}

func newLiveView(out io.Writer) *liveView {
	return &liveView{out: out, tty: isTerminal(out)}
}

// serveLiveMetrics serves the run's live figures on addr (--metrics-addr)
// until stop is called, and returns the progress function that shows them
// on live and updates them there; with no addr, only live's.
func serveLiveMetrics(cmd *cobra.Command, addr string, remote bool, live *liveView) (progress func(experiment.Progress), stop func(), err error) {
	if addr == "" {
		return live.Update, func() {}, nil
	}
	l, warning, err := listen.Open("--metrics-addr", addr, remote)
	if err != nil {
		return nil, nil, err
	}
	if warning != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), warning)
	}
	var exp livemetrics.Exporter
	ctx, stop := context.WithCancel(cmd.Context())
	go exp.Serve(ctx, l)
	fmt.Fprintf(cmd.OutOrStdout(), "live metrics on http://%s/metrics\n", l.Addr())
	return func(p experiment.Progress) {
		live.Update(p)
		exp.Update(livemetrics.State{Run: p.Run, Scenario: p.Scenario, Name: p.Name, Step: p.Phase, Elapsed: p.Elapsed, Target: p.Target, Ledger: p.Ledger, LatencyHist: p.LatencyHist,
			Height: p.Height, Interval: p.Interval, MempoolMax: p.MempoolMax})
	}, stop, nil
}

func isTerminal(out io.Writer) bool {
	if u, ok := out.(interface{ Unwrap() io.Writer }); ok {
		out = u.Unwrap()
	}
	f, ok := out.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func statusLines(p experiment.Progress) []string {
	s := p.Ledger
	sent, committed := livemetrics.Recent(s, p.Elapsed, 5)
	left := max(0, p.Length-p.Elapsed).Round(time.Second)
	name := p.Name
	if name == "" {
		name = "load"
	}
	mempool := "?"
	if p.MempoolMax >= 0 {
		mempool = fmt.Sprintf("%.0f", p.MempoolMax)
	}
	waiting := s.Accepted - s.Fates[load.FateCommitted] - s.Fates[load.FateCommittedFailed]
	if p.Generators > 1 && p.Live {
		return []string{
			fmt.Sprintf("%-10s %s %.0fs of %.0fs, %s left", name, p.Phase, p.Elapsed.Seconds(), p.Length.Seconds(), left),
			fmt.Sprintf("tx/s       target %.0f   sent %.0f   committed %.0f   (last 5 s, from %d generator pods)", p.Target, sent, committed, p.Generators),
			fmt.Sprintf("chain      height %d   block interval %.2f s   mempool max %s txs", p.Height, p.Interval.Seconds(), mempool),
			fmt.Sprintf("latency    p50 %.0f ms   p99 %.0f ms   (the highest generator's)", s.Latency.P50, s.Latency.P99),
			fmt.Sprintf("txs        sent %d   committed %d   rejected %d   send errors %d   waiting %d",
				s.Sent, s.Fates[load.FateCommitted], s.Rejected, s.SendErrors, waiting),
		}
	}
	if p.Generators > 1 {
		return []string{
			fmt.Sprintf("%-10s %s %.0fs of %.0fs, %s left", name, p.Phase, p.Elapsed.Seconds(), p.Length.Seconds(), left),
			fmt.Sprintf("tx/s       target %.0f, sent by %d generator pods (none has said its counts yet)", p.Target, p.Generators),
			fmt.Sprintf("chain      height %d   block interval %.2f s   mempool max %s txs", p.Height, p.Interval.Seconds(), mempool),
		}
	}
	return []string{
		fmt.Sprintf("%-10s %s %.0fs of %.0fs, %s left", name, p.Phase, p.Elapsed.Seconds(), p.Length.Seconds(), left),
		fmt.Sprintf("tx/s       target %.0f   sent %.0f   committed %.0f   (last 5 s)", p.Target, sent, committed),
		fmt.Sprintf("chain      height %d   block interval %.2f s   mempool max %s txs", p.Height, p.Interval.Seconds(), mempool),
		fmt.Sprintf("latency    p50 %.0f ms   p99 %.0f ms", s.Latency.P50, s.Latency.P99),
		fmt.Sprintf("txs        sent %d   committed %d   rejected %d   send errors %d   waiting %d",
			s.Sent, s.Fates[load.FateCommitted], s.Rejected, s.SendErrors, waiting),
		fmt.Sprintf("generator  lag p99 %.2f ms", s.Lag.P99),
	}
}

// Update shows p.
func (v *liveView) Update(p experiment.Progress) {
	lines := statusLines(p)
	if !v.tty {
		if time.Since(v.last) >= 5*time.Second {
			for i := range lines {
				lines[i] = strings.Join(strings.Fields(lines[i]), " ")
			}
			fmt.Fprintln(v.out, strings.Join(lines, " | "))
			v.last = time.Now()
		}
		return
	}
	var b strings.Builder
	if v.drawn > 0 {
		fmt.Fprintf(&b, "\033[%dA", v.drawn) // back to the block's first line
	}
	for _, l := range lines {
		b.WriteString("\r\033[K" + l + "\n")
	}
	io.WriteString(v.out, b.String())
	v.drawn = len(lines)
}

// End leaves the last block on screen; what is printed next goes below it.
func (v *liveView) End() { v.drawn = 0 }
