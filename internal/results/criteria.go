package results

import (
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/scenario"
)

// Evaluate applies the scenario's criteria to the run's main phase and
// sets Checks and Passed. A crashed node always fails the run.
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
	if p != nil {
		add("conservation law broken", "<=", 0, map[bool]float64{true: 0, false: 1}[p.Ledger.Balanced()])
		if c.MinCommittedTPS > 0 {
			add("committed tx/s", ">=", c.MinCommittedTPS, p.Figures.CommittedTPS)
		}
		if c.MaxP99Latency > 0 {
			add("p99 latency ms", "<=", float64(c.MaxP99Latency.D().Milliseconds()), p.Figures.LatencyP99)
		}
		if c.MaxRejectedShare > 0 {
			add("rejected share", "<=", c.MaxRejectedShare, p.Figures.RejectedShare)
		}
		if c.MaxUnresolved >= 0 {
			add("unresolved txs", "<=", float64(c.MaxUnresolved), float64(p.Ledger.Fates[load.FateUnresolved]))
		}
	}
	r.Passed = true
	for _, ch := range r.Checks {
		r.Passed = r.Passed && ch.Pass
	}
}
