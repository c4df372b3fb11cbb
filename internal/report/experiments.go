package report

import (
	"fmt"

	"github.com/chainperf/chainperf/internal/results"
)

// The experiment summaries (steady repeats, find-max, rotations) as rows,
// the same in every report format.

// RotationSummary says in one line how the rotating nodes fared.
func RotationSummary(rots []results.Rotation) string {
	ok, catch, rate := 0, 0.0, 0.0
	for _, r := range rots {
		if r.CaughtUp {
			ok++
			catch += r.CatchUp
			rate += r.BlocksPer
		}
	}
	s := fmt.Sprintf("%d of %d rotating nodes caught up", ok, len(rots))
	if ok > 0 {
		s += fmt.Sprintf(", mean catch-up %.1f s at %.0f blocks/s", catch/float64(ok), rate/float64(ok))
	}
	return s
}

func rotationRows(rots []results.Rotation) [][]string {
	rows := [][]string{{"node", "started", "tip at start", "height reached", "catch-up s", "blocks/s", "result"}}
	for _, r := range rots {
		res := "caught up"
		if !r.CaughtUp {
			res = "FAILED: " + r.Error
		}
		rows = append(rows, []string{r.Node, r.Started.Format("15:04:05"), fmt.Sprint(r.Tip), fmt.Sprint(r.Height),
			fmt.Sprintf("%.1f", r.CatchUp), fmt.Sprintf("%.0f", r.BlocksPer), res})
	}
	return rows
}

func steadyRows(s *results.Steady) [][]string {
	rows := [][]string{{"figure", "median", "min", "max", "CV"}}
	add := func(name string, sp results.Spread) {
		rows = append(rows, []string{name, fmt.Sprintf("%.1f", sp.Median), fmt.Sprintf("%.1f", sp.Min), fmt.Sprintf("%.1f", sp.Max), fmt.Sprintf("%.1f %%", 100*sp.CV)})
	}
	add("committed tx/s", s.CommittedTPS)
	add("latency p50 ms", s.LatencyP50)
	add("latency p99 ms", s.LatencyP99)
	return rows
}

func findMaxRows(fm *results.FindMax) [][]string {
	return [][]string{
		{"figure", "value"},
		{"max sustainable tx/s", fmt.Sprintf("%.0f", fm.MaxTPS)},
		{"confidence interval", fm.Interval()},
		{"held", fmt.Sprintf("%s %.0f ms (target %.0f ms)", fm.Hold, fm.HeldMS, fm.TargetMS)},
		{"sent tx/s (stable window)", fmt.Sprintf("%.0f", fm.SentTPS)},
		{"rejected txs (phase)", fmt.Sprint(fm.Rejected)},
	}
}

// experimentTables are the titled tables of a run's experiment summaries.
func experimentTables(r *results.Run) []table {
	var out []table
	if r.Steady != nil {
		out = append(out, table{Title: fmt.Sprintf("Steady: %d repeats", r.Steady.Repeats), Rows: steadyRows(r.Steady)})
	}
	if fm := r.FindMax; fm != nil {
		out = append(out, table{Title: "Find-max", Note: fm.Evidence + ".", Rows: findMaxRows(fm)})
	}
	if sw := r.Sweep; sw != nil && len(sw.Cells) > 0 {
		out = append(out, table{Title: "Processed txs (the CometBFT QA table)", Note: sw.ProcessedNote(), Rows: sw.ProcessedTable()})
	}
	if len(r.Faults) > 0 {
		rows := [][]string{{"fault", "nodes", "lasted", "blocks while it held", "longest gap s", "first block after its end", "nodes at the tip again"}}
		for _, f := range r.Faults {
			lasted, rec := "to the end", "-"
			if !f.End.IsZero() {
				lasted = fmt.Sprintf("%.1f s", f.End.Sub(f.Begin).Seconds())
				rec = "none"
				if f.Recovery >= 0 {
					rec = fmt.Sprintf("%.1f s", f.Recovery)
				}
			}
			catch := "-"
			switch {
			case f.CatchUp > 0:
				catch = fmt.Sprintf("%.1f s after its end", f.CatchUp)
			case f.CatchUp < 0 && !f.End.IsZero():
				catch = "not seen"
			}
			rows = append(rows, []string{f.What, f.Nodes, lasted, fmt.Sprint(f.Blocks), fmt.Sprintf("%.1f", f.LongestGap), rec, catch})
		}
		out = append(out, table{Title: "Faults", Note: "What the chain did while each perturbation held, by when chainperf saw each block.", Rows: rows})
	}
	for _, f := range r.Found {
		for _, t := range f.Show() {
			rows := append([][]string{t.Columns}, t.Rows...)
			if len(t.Columns) == 0 {
				rows = nil
			}
			out = append(out, table{Title: t.Title, Note: t.Note, Rows: rows})
		}
	}
	if len(r.Rotations) > 0 {
		out = append(out, table{Title: "Rotating nodes", Note: RotationSummary(r.Rotations) + ".", Rows: rotationRows(r.Rotations)})
	}
	return out
}

// A table has a header row first.
type table struct {
	Title string
	Note  string
	Rows  [][]string
}
