package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/results"
)

// Summary writes what `chainperf run` prints at the end: the verdict,
// the main phase's figures, the failed criteria, each experiment's result,
// each finding's summary lines, and where the report is.
func Summary(out io.Writer, r *results.Run, paths []string) {
	if lasted, ok := r.Lasted(); ok {
		fmt.Fprintf(out, "run %s: %s in %s\n", r.ID, Verdict(r), lasted)
	} else {
		fmt.Fprintf(out, "run %s: %s (%s)\n", r.ID, Verdict(r), lasted)
	}
	if p := r.Main(); p != nil {
		f, s := p.Figures, p.Ledger
		fmt.Fprintf(out, "  throughput: offered %.0f tx/s, sent %.0f tx/s, committed %.0f tx/s\n", f.OfferedTPS, f.SentTPS, f.CommittedTPS)
		fmt.Fprintf(out, "  latency:    p50 %.0f ms, p99 %.0f ms in the measured window (from intended send time to block seen)\n", f.LatencyP50, f.LatencyP99)
		fmt.Fprintf(out, "  load:       %s\n", p.Generator.Delivery())
		fmt.Fprintf(out, "  fates:      %d sent = %d committed + %d committed_failed + %d rejected + %d send_error + %d unresolved\n",
			s.Sent, s.Fates[load.FateCommitted], s.Fates[load.FateCommittedFailed], s.Fates[load.FateRejected], s.Fates[load.FateSendError], s.Fates[load.FateUnresolved])
		if s.Repeats > 0 {
			fmt.Fprintf(out, "  repeats:    %d sends carried the same bytes as a tx still without a fate: one tx to the nodes, and to the ledger, which follows a tx by its hash, so one send of each has no fate (the conservation law breaks; the workload must not repeat a tx in flight)\n", s.Repeats)
		}
		if s.Queued > 0 {
			fmt.Fprintf(out, "  queued:     %d of the accepted txs were answered with a nonce gap and queued by the node's EVM mempool, then followed to their block\n", s.Queued)
		}
		if reasons := s.TopReasons(); len(reasons) > 0 {
			var top []string
			for _, k := range reasons[:min(3, len(reasons))] {
				top = append(top, fmt.Sprintf("%d x %s", s.Reasons[k], k))
			}
			fmt.Fprintf(out, "  reasons:    %s\n", strings.Join(top, "; "))
		}
		if u := p.Unresolved; u != nil && u.Unresolved > 0 {
			fmt.Fprintf(out, "  unresolved: %s\n", u)
		}
		fmt.Fprintf(out, "  chain:      %d blocks, %.2f s interval, %.0f txs/block, max round %d\n", f.Blocks, f.BlockInterval, f.TxsPerBlock, f.MaxRound)
		for _, v := range r.NodeVersions() {
			fmt.Fprintf(out, "  versions:   %s\n", printable.Clean(v))
		}
		if p.Harness != nil {
			nice := ""
			if r.NodeNice > 0 {
				nice = fmt.Sprintf("; the nodes ran at nice %d, below it", r.NodeNice)
			}
			fmt.Fprintf(out, "  harness:    %s%s\n", p.Harness, nice)
		}
	}
	// Which criteria were judged: each failed one with its value, then
	// the names of those that passed; a PASS with none says so (it means
	// only that the run completed).
	var passed []string
	for _, c := range r.Checks {
		if c.Pass {
			passed = append(passed, c.Name)
			continue
		}
		fmt.Fprintf(out, "  failed:     %s = %.4g (limit %s %g)\n", c.Name, c.Value, c.Op, c.Limit)
	}
	switch {
	case len(passed) > 0:
		fmt.Fprintf(out, "  passed:     %d of %d criteria: %s\n", len(passed), len(r.Checks), strings.Join(passed, "; "))
	case len(r.Checks) == 0 && r.Status == results.StatusComplete:
		fmt.Fprintf(out, "  criteria:   none set: the verdict says only that the run completed (set a goal in [criteria])\n")
	}
	// The experiment kinds' lines first, then the other producers'.
	all := r.AllFindings()
	slices.SortStableFunc(all, func(a, b finding.Finding) int {
		return cmp.Compare(kindsFirst(a), kindsFirst(b))
	})
	for _, f := range all {
		for _, l := range f.Summary { // text a node may have written: escaped
			fmt.Fprintf(out, "  %-11s %s\n", Printable(l.Label)+":", Printable(l.Text))
		}
		if len(f.Summary) == 0 && len(f.Figures) > 0 { // its figures, then
			var figs []string
			for _, x := range f.Figures {
				figs = append(figs, Printable(x.Name)+" "+x.Text())
			}
			fmt.Fprintf(out, "  %s: %s\n", Printable(f.Title), strings.Join(figs, ", "))
		}
	}
	if len(paths) > 0 {
		fmt.Fprintf(out, "report: %s\n", strings.Join(paths, ", "))
	}
}

// kindsFirst orders an experiment kind's finding (0) before any other (1).
func kindsFirst(f finding.Finding) int {
	if strings.HasPrefix(f.Source, "kind/") {
		return 0
	}
	return 1
}
