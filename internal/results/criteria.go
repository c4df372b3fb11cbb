package results

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/scenario"
)

// Evaluate applies the scenario's criteria to the run's main phase and
// sets Checks and Passed. A crashed node, a phase whose txs do not add up
// and a rotating node that never caught up always fail the run.
func Evaluate(r *Run, c scenario.Criteria) {
	r.Checks = nil
	p := r.Main()
	add := func(name, op string, limit, value float64) {
		pass := value >= limit
		if op == "<=" {
			pass = value <= limit
		}
		r.Checks = append(r.Checks, Check{Name: name, Op: op, Limit: limit, Value: value, Pass: pass})
	}
	add("node crashes", "<=", 0, float64(len(r.Crashed)))
	broken := 0
	for _, ph := range r.Phases {
		if !ph.Ledger.Balanced() {
			broken++
		}
	}
	add("phases with the conservation law broken", "<=", 0, float64(broken))
	if len(r.Rotations) > 0 {
		late := 0
		for _, rot := range r.Rotations {
			if !rot.CaughtUp {
				late++
			}
		}
		add("rotating nodes that did not catch up", "<=", 0, float64(late))
	}
	// What the producers hold their own figures to (a chain's funds
	// conserved, its wallets as the committed txs say).
	for _, f := range r.Found {
		for _, x := range f.Figures {
			if x.Must != nil {
				add(x.Name, x.Must.Op, x.Must.Value, x.Value)
			}
		}
	}
	figureCriteria(r, c.Figures, add)
	if p != nil {
		// With repeats, the figures judged are the medians of the repeats'.
		f := p.Figures
		if st := SteadyOf(r.Phases); st != nil && p.KindOf() == scenario.KindSteady {
			f.CommittedTPS, f.LatencyP99 = st.CommittedTPS.Median, st.LatencyP99.Median
			f.RejectedShare = st.RejectedShare.Median
		}
		if c.MinCommittedTPS > 0 {
			add("committed tx/s", ">=", c.MinCommittedTPS, f.CommittedTPS)
		}
		if c.MaxP99Latency > 0 {
			add("p99 latency ms", "<=", float64(c.MaxP99Latency.D().Milliseconds()), judgedP99(p, f.LatencyP99))
		}
		if c.MaxRejectedShare > 0 {
			add("rejected share", "<=", c.MaxRejectedShare, f.RejectedShare)
		}
		if c.MaxUnresolved >= 0 {
			add("unresolved txs", "<=", float64(c.MaxUnresolved), float64(p.Ledger.Fates[load.FateUnresolved]))
		}
		if c.MaxUnresolvedShare >= 0 && p.Followed && p.Ledger.Sent > 0 {
			add("unresolved share", "<=", c.MaxUnresolvedShare, float64(p.Ledger.Fates[load.FateUnresolved])/float64(p.Ledger.Sent))
		}
		if c.LoadDelivered {
			undelivered := 0.0
			for _, ph := range r.Phases {
				if ph.KindOf() == p.KindOf() && ph.Generator.Bound && !r.saturatedByNode(ph) {
					undelivered++
				}
			}
			add("phases whose load was not delivered as asked", "<=", 0, undelivered)
		}
	}
	r.Passed = true
	for _, ch := range r.Checks {
		r.Passed = r.Passed && ch.Pass
	}
}

// saturatedByNode says whether a phase is a QA grid cell past the
// saturation point that the nodes held back (their backpressure): that
// is the saturation the grid looks for, not load chainperf failed to
// deliver. A generator-bound cell still counts.
func (r *Run) saturatedByNode(p *Phase) bool {
	if r.Sweep == nil || p.Generator.BoundBy != load.BoundByNode || p.KindOf() != scenario.KindQA {
		return false
	}
	c, rate, ok := CellOf(p.Name)
	if !ok {
		return false
	}
	for _, cell := range r.Sweep.Cells {
		if cell.Connections == c && cell.Rate == rate {
			return cell.Saturated
		}
	}
	return false
}

// figureCriteria applies the scenario's bounds on named figures of the
// run's findings. A figure the run does not have fails its criterion,
// named with the figures it has (a criterion cannot pass unseen).
func figureCriteria(r *Run, bounds []scenario.FigureCriterion, add func(name, op string, limit, value float64)) {
	if len(bounds) == 0 {
		return
	}
	have := map[string]float64{}
	var names []string
	for _, f := range r.AllFindings() {
		for _, x := range f.Figures {
			if _, dup := have[x.Name]; !dup {
				names = append(names, strconv.Quote(x.Name))
			}
			have[x.Name] = x.Value
		}
	}
	for _, b := range bounds {
		v, ok := have[b.Name]
		if !ok {
			list := "none"
			if len(names) > 0 {
				list = strings.Join(names, ", ")
			}
			add(fmt.Sprintf("figures named %q (the run has %s)", b.Name, list), ">=", 1, 0)
			continue
		}
		if b.Min != nil {
			add(fmt.Sprintf("figure %q", b.Name), ">=", *b.Min, v)
		}
		if b.Max != nil {
			add(fmt.Sprintf("figure %q", b.Name), "<=", *b.Max, v)
		}
	}
}

// judgedP99 is the p99 latency a criterion judges: the window's, or when
// no tx was seen committed in the window (a chain whose first blocks came
// after it: its p99 read 0 and passed a 1 ms limit), the whole phase's;
// with none committed at all, the phase's length (every tx waited that
// long at least).
func judgedP99(p *Phase, window float64) float64 {
	switch {
	case window > 0 || p.Ledger.WindowLatency.Count > 0:
		return window
	case p.Ledger.Latency.Count > 0:
		return p.Ledger.Latency.P99
	}
	return float64(p.End.Sub(p.Start).Milliseconds())
}
