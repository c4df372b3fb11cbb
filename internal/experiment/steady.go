package experiment

import (
	"fmt"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
)

// steady is the scenario's load: warm-up, measured window, cool-down,
// drain, `repeats` times, with the median and spread of the repeats.
type steady struct{}

func (steady) phases(s *scenario.Scenario) []phasePlan {
	e := s.Experiment
	var out []phasePlan
	for i := 0; i < e.Repeats; i++ {
		out = append(out, phasePlan{name: fmt.Sprintf("steady %d/%d", i+1, e.Repeats), kind: scenario.KindSteady, load: s.Load,
			warmup: e.Warmup.D(), cooldown: e.Cooldown.D(), pause: e.Pause.D()})
	}
	return out
}

func (steady) finish(_ *scenario.Scenario, r *results.Run, phases []*results.Phase) {
	r.Steady = results.SteadyOf(phases)
}

func (steady) describe(_ *scenario.Scenario, model string) string {
	return fmt.Sprintf("%s %s", scenario.KindSteady, model)
}
