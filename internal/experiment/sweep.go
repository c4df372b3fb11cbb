package experiment

import (
	"fmt"
	"time"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
)

// sweep is the CometBFT QA grid: c connections x r tx/s each, the whole
// cell measured, and the saturation point read from the table.
type sweep struct{}

func (sweep) phases(s *scenario.Scenario) []phasePlan {
	e := s.Experiment
	var out []phasePlan
	for _, c := range e.Connections {
		for _, rate := range e.Rates {
			l := s.Load
			l.Model, l.Connections, l.Rate, l.Duration = "connections", c, rate, e.CellDuration
			out = append(out, phasePlan{name: results.CellName(scenario.KindSweep, c, rate), kind: scenario.KindSweep, load: l, pause: e.Pause.D()})
		}
	}
	return out
}

func (sweep) finish(s *scenario.Scenario, r *results.Run, phases []*results.Phase) {
	r.Sweep = results.Saturation(phases, s.Experiment.SaturationShare, s.Experiment.LatencyBlowup, time.Second)
}

func (sweep) describe(s *scenario.Scenario, _ string) string {
	e := s.Experiment
	return fmt.Sprintf("sweep of connections %v x tx/s %v, %s a cell", e.Connections, e.Rates, e.CellDuration.D())
}
