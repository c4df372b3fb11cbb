package experiment

import (
	"fmt"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
)

// qa is the CometBFT QA method ([experiment.qa]): the c x r grid, every
// cell counted whole against c*r*(T-warmup), the saturation point read
// from that table, then a steady run at the saturation cell's load. The
// cells are phases named like the sweep's ("qa c=2 r=400"), so compare
// pairs them across runs; the steady run is "qa steady c=2 r=400".
type qa struct{}

func (qa) phases(s *scenario.Scenario) []phasePlan {
	q := s.Experiment.QA
	var out []phasePlan
	for _, c := range q.Connections {
		for _, rate := range q.Rates {
			out = append(out, qaPlan(s, results.CellName(scenario.KindQA, c, rate), c, rate, q.CellDuration, 0))
		}
	}
	return out
}

func qaPlan(s *scenario.Scenario, name string, c int, rate float64, length scenario.Duration, warmup scenario.Duration) phasePlan {
	l := s.Load
	l.Model, l.Connections, l.Rate, l.Duration = "connections", c, rate, length
	return phasePlan{name: name, kind: scenario.KindQA, load: l, warmup: warmup.D(), pause: s.Experiment.Pause.D()}
}

// then plans the steady run once the grid ran: at the saturation cell's
// c x r, with the QA warm-up left out of its figures; none when no cell
// held or steady_duration is 0.
func (qa) then(s *scenario.Scenario, grid []*results.Phase) []phasePlan {
	q := s.Experiment.QA
	sw := qaSweep(s, grid)
	if q.SteadyDuration == 0 || sw.At == nil {
		return nil
	}
	name := fmt.Sprintf("qa steady c=%d r=%g", sw.At.Connections, sw.At.Rate)
	return []phasePlan{qaPlan(s, name, sw.At.Connections, sw.At.Rate, q.SteadyDuration, q.Warmup)}
}

func qaSweep(s *scenario.Scenario, phases []*results.Phase) *results.Sweep {
	q := s.Experiment.QA
	return results.Saturation(phases, q.SaturationShare, 0, q.Warmup.D())
}

func (qa) finish(s *scenario.Scenario, r *results.Run, phases []*results.Phase) {
	r.Sweep = qaSweep(s, phases)
}

func (qa) describe(s *scenario.Scenario, _ string) string {
	q := s.Experiment.QA
	steady := "no steady run"
	if q.SteadyDuration > 0 {
		steady = fmt.Sprintf("then %s at the saturation point", q.SteadyDuration.D())
	}
	return fmt.Sprintf("QA grid of connections %v x tx/s %v, %s a cell, %s", q.Connections, q.Rates, q.CellDuration.D(), steady)
}
