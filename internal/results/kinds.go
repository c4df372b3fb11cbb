package results

import (
	"fmt"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/scenario"
)

// The experiment kinds' records (Steady, FindMax, Sweep, Faults,
// Rotations) hand what they found over as findings, like a chain's: the
// run's readers render them and compare reads their figures, knowing no
// kind. They are made from the records when read, so runs stored before
// findings were data read the same.

// The sources of the kinds' findings.
const (
	SourceSteady    = "kind/steady"
	SourceFindMax   = "kind/find-max"
	SourceSweep     = "kind/sweep"
	SourceFaults    = "kind/faults"
	SourceRotations = "kind/rotate"
)

// AllFindings are the run's findings in the order readers show them: the
// experiment kinds' (steady repeats, find-max, the QA or sweep grid,
// faults), the producers' that handed theirs over (a chain's), then the
// rotating nodes'.
func (r *Run) AllFindings() []finding.Finding {
	var out []finding.Finding
	if r.Steady != nil {
		out = append(out, r.Steady.Finding())
	}
	if r.FindMax != nil {
		out = append(out, r.FindMax.Finding(r.Phases))
	}
	if sw := r.Sweep; sw != nil && len(sw.Cells) > 0 {
		out = append(out, sw.Finding())
	}
	if len(r.Faults) > 0 {
		out = append(out, FaultsFinding(r.Faults))
	}
	out = append(out, r.Found...)
	if len(r.Rotations) > 0 {
		out = append(out, RotationsFinding(r.Rotations))
	}
	return out
}

// Finding is the steady repeats' spread.
func (s *Steady) Finding() finding.Finding {
	t := finding.Table{Columns: []string{"figure", "median", "min", "max", "CV"}}
	add := func(name string, sp Spread) {
		t.Rows = append(t.Rows, []string{name, fmt.Sprintf("%.1f", sp.Median), fmt.Sprintf("%.1f", sp.Min), fmt.Sprintf("%.1f", sp.Max), fmt.Sprintf("%.1f %%", 100*sp.CV)})
	}
	add("committed tx/s", s.CommittedTPS)
	add("latency p50 ms", s.LatencyP50)
	add("latency p99 ms", s.LatencyP99)
	return finding.Finding{Source: SourceSteady, Title: fmt.Sprintf("Steady: %d repeats", s.Repeats), Tables: []finding.Table{t}}
}

// Finding is find-max's result: the max sustainable tx/s as a gated
// figure whose SE its confidence interval implies (the interval is
// mean ± t(0.975, batches-1)·SE), its table, and the run summary's lines
// (with the load's delivery of each find-max phase that was bound).
func (fm *FindMax) Finding(phases []*Phase) finding.Finding {
	f := finding.Finding{Source: SourceFindMax, Title: "Find-max", Note: fm.Evidence + ".",
		Tables: []finding.Table{{Columns: []string{"figure", "value"}, Rows: [][]string{
			{"max sustainable tx/s", fmt.Sprintf("%.0f", fm.MaxTPS)},
			{"confidence interval", fm.Interval()},
			{"held", fmt.Sprintf("%s %.0f ms (target %.0f ms)", fm.Hold, fm.HeldMS, fm.TargetMS)},
			{"sent tx/s (stable window)", fmt.Sprintf("%.0f", fm.SentTPS)},
			{"rejected txs (phase)", fmt.Sprint(fm.Rejected)},
		}}},
		TablesShowFigures: true,
		Summary:           []finding.Line{{Label: "find-max", Text: fmt.Sprintf("%.0f tx/s sustainable (%s); %s", fm.MaxTPS, fm.Interval(), fm.Evidence)}},
	}
	for _, p := range phases {
		if p.KindOf() == scenario.KindFindMax && p.Generator.Bound {
			f.Summary = append(f.Summary, finding.Line{Label: "find-max load", Text: p.Generator.Delivery()})
		}
	}
	if fm.MaxTPS > 0 {
		x := finding.Figure{Name: "max sustainable tx/s", Unit: "tx/s", Value: fm.MaxTPS, Better: finding.Higher, Gate: true}
		if fm.Batches >= 2 && fm.High > fm.Low {
			t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(fm.Batches - 1)}.Quantile(0.975)
			x.SE, x.DF = (fm.High-fm.Low)/(2*t), fm.Batches-1
		}
		f.Figures = append(f.Figures, x)
	}
	return f
}

// Finding is a grid's result: the saturation point as a gated figure,
// the processed txs in the CometBFT QA report's format, and the run
// summary's line.
func (sw *Sweep) Finding() finding.Finding {
	grid := sw.ProcessedTable()
	f := finding.Finding{Source: SourceSweep, Title: "Processed txs (the CometBFT QA table)", Note: sw.ProcessedNote(),
		Tables:            []finding.Table{{Columns: grid[0], Rows: grid[1:]}},
		TablesShowFigures: true, // the note and the sweep's own section say the saturation point
		Summary:           []finding.Line{{Label: "sweep", Text: fmt.Sprintf("saturation point %.0f tx/s (%s)", sw.Saturation, sw.Evidence)}},
		Figures:           []finding.Figure{{Name: "saturation tx/s", Unit: "tx/s", Value: sw.Saturation, Better: finding.Higher, Gate: true}},
	}
	return f
}

// FaultsFinding is what the chain did while each perturbation held.
func FaultsFinding(faults []Fault) finding.Finding {
	t := finding.Table{Columns: []string{"fault", "nodes", "lasted", "blocks while it held", "longest gap s", "first block after its end", "nodes at the tip again",
		"committed tx/s before, lowest", "load back after its end", "p99 ms before, peak", "send errors"}}
	for _, f := range faults {
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
		rate, back, p99 := "-", "-", "-"
		if f.RateBefore > 0 {
			rate = fmt.Sprintf("%.0f, %.0f", f.RateBefore, f.RateLow)
			back = "not while the load lasted"
			if f.RateBack >= 0 {
				back = fmt.Sprintf("%.0f s", f.RateBack)
			}
			p99 = fmt.Sprintf("%.0f, %.0f", f.P99Before, f.P99Peak)
		}
		t.Rows = append(t.Rows, []string{f.What, f.Nodes, lasted, fmt.Sprint(f.Blocks), fmt.Sprintf("%.1f", f.LongestGap), rec, catch,
			rate, back, p99, fmt.Sprint(f.SendErrors)})
	}
	note := fmt.Sprintf("What the chain did while each perturbation held, by when chainperf saw each block, and what the load saw: "+
		"its committed tx/s over the 10 s before and its lowest 5 s mean, when after the end 5 s first committed %.0f %% of the rate before, "+
		"the highest per-second p99 latency before and since, and the sends that failed until a second after the end.", 100*BackShare)
	return finding.Finding{Source: SourceFaults, Title: "Faults", Note: note, Tables: []finding.Table{t}}
}

// RotationsFinding is how the rotating nodes fared, one row a node.
func RotationsFinding(rots []Rotation) finding.Finding {
	t := finding.Table{Columns: []string{"node", "started", "tip at start", "height reached", "catch-up s", "blocks/s", "result",
		"received MB (chunks, blocks)", "serving nodes' CPU cores before, while", "p99 ms before, while"}}
	for _, r := range rots {
		res := "caught up"
		if r.Sync == "state" {
			res = "caught up by state sync"
			if r.Snapshot > 0 {
				res = fmt.Sprintf("caught up by state sync from the snapshot at height %d", r.Snapshot)
			}
		}
		if !r.CaughtUp {
			res = "FAILED: " + r.Error
		}
		recv, cpu, p99 := "-", "-", "-"
		if r.Received > 0 {
			recv = fmt.Sprintf("%.2f (%.2f, %.2f)", float64(r.Received)/1e6, float64(r.ChunkBytes)/1e6, float64(r.BlockBytes)/1e6)
		}
		if r.ServeCPU > 0 {
			cpu = fmt.Sprintf("%.2f, %.2f", r.ServeCPUBefore, r.ServeCPU)
		}
		if r.P99Joining > 0 {
			p99 = fmt.Sprintf("%.0f, %.0f", r.P99Before, r.P99Joining)
		}
		t.Rows = append(t.Rows, []string{r.Node, Clock(r.Started), fmt.Sprint(r.Tip), fmt.Sprint(r.Height),
			fmt.Sprintf("%.1f", r.CatchUp), fmt.Sprintf("%.3g", r.BlocksPer), res, recv, cpu, p99})
	}
	sum := RotationSummary(rots)
	note := sum + ". What each join took: the bytes it received (its p2p counters once caught up; in snapshot chunks and in blocks), " +
		"the CPU of the standing nodes' processes over the 5 s before it and while it joined, and the load's highest per-second p99 latency " +
		"over the 10 s before and while it joined."
	return finding.Finding{Source: SourceRotations, Title: "Rotating nodes", Note: note, Tables: []finding.Table{t},
		Summary: []finding.Line{{Label: "rotate", Text: sum}}}
}

// RotationSummary says in one line how the rotating nodes fared.
func RotationSummary(rots []Rotation) string {
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
		s += fmt.Sprintf(", mean catch-up %.1f s at %.3g blocks/s", catch/float64(ok), rate/float64(ok))
	}
	return s
}
