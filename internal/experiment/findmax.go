package experiment

import (
	"fmt"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
)

// findMax runs the pid rate model for find_max_duration and reports the
// committed tx/s after it settled, with a confidence interval.
type findMax struct{}

func (findMax) phases(s *scenario.Scenario) []phasePlan {
	e := s.Experiment
	l := s.Load
	l.Model, l.Duration = "pid", e.FindMaxDuration
	return []phasePlan{{name: scenario.KindFindMax, kind: scenario.KindFindMax, load: l, warmup: e.FindMaxSettle.D(),
		cooldown: e.Cooldown.D(), pause: e.Pause.D()}}
}

func (findMax) finish(s *scenario.Scenario, r *results.Run, phases []*results.Phase) {
	if len(phases) == 0 {
		return
	}
	pid := s.Load.PID
	r.FindMax = results.FindMaxOf(phases[len(phases)-1], pid.Hold, pid.Target.D(), pid.MaxRate)
}

func (findMax) describe(s *scenario.Scenario, _ string) string {
	pid := s.Load.PID
	return fmt.Sprintf("find-max for %s (pid holding %s at %s)", s.Experiment.FindMaxDuration.D(), pid.Hold, pid.Target.D())
}
