package experiment

import (
	"context"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet/live"
)

// A kind is one kind of experiment: the load phases it runs and what it
// makes of them. Each lives in its own file and is registered once, in
// kinds. Adding a kind: a file with a type that implements kind (and
// companion or nodeAdder if it needs them), an entry here, and its name
// in scenario.ExperimentKinds.
type kind interface {
	// phases lists the kind's load phases, in order.
	phases(s *scenario.Scenario) []phasePlan
	// finish derives the kind's result from its phases once every phase
	// ran (phases: those of this kind, in order; none when the run
	// stopped before them).
	finish(s *scenario.Scenario, r *results.Run, phases []*results.Phase)
	// describe says in a few words what the kind does (model: the rate
	// model of [load], printed).
	describe(s *scenario.Scenario, model string) string
}

// A companion does something while a phase of its kind runs, beside the
// load (rotate: nodes join and leave). The returned func waits for it to
// end and records what it did in r.
type companion interface {
	alongside(ctx context.Context, env *phaseEnv, plan phasePlan) func(r *results.Run)
}

// A follower plans more phases once its own ran (qa: a steady run at the
// saturation point its grid found).
type follower interface {
	then(s *scenario.Scenario, done []*results.Phase) []phasePlan
}

// A nodeAdder needs nodes of its own set up with the testnet (rotate: the
// rotating nodes, not started with the others).
type nodeAdder interface {
	rotating(s *scenario.Scenario) int
}

// kinds is the table of experiment kinds, by their scenario names.
var kinds = map[string]kind{
	scenario.KindSteady:  steady{},
	scenario.KindSweep:   sweep{},
	scenario.KindFindMax: findMax{},
	scenario.KindRotate:  rotation{},
	scenario.KindQA:      qa{},
}

// A phasePlan is one load phase of an experiment.
type phasePlan struct {
	name             string
	load             scenario.Load
	warmup, cooldown time.Duration
	kind             string        // the experiment kind that runs it
	pause            time.Duration // before it, after the previous phase drained
}

// phaseEnv is what a phase gives a companion: the testnet, when the phase
// began and how it records events.
type phaseEnv struct {
	net   *live.Net
	s     *scenario.Scenario
	start time.Time
	rec   *recorder
}

// phasesOf returns the run's phases of one kind, in order.
func phasesOf(r *results.Run, kind string) []*results.Phase {
	var mine []*results.Phase
	for _, p := range r.Phases {
		if p.Kind == kind {
			mine = append(mine, p)
		}
	}
	return mine
}

// rotatingNodes is how many nodes the experiment's kinds add to the
// testnet.
func rotatingNodes(s *scenario.Scenario) int {
	n := 0
	for _, k := range s.Experiment.Kind {
		if a, ok := kinds[k].(nodeAdder); ok {
			n += a.rotating(s)
		}
	}
	return n
}

// finishKinds lets each kind derive its result from its phases.
func finishKinds(s *scenario.Scenario, r *results.Run) {
	for _, k := range s.Experiment.Kind {
		kinds[k].finish(s, r, phasesOf(r, k))
	}
}

// Describe says what a scenario's experiment does, kind after kind
// (model: the rate model of [load], printed).
func Describe(s *scenario.Scenario, model string) string {
	var parts []string
	for _, k := range s.Experiment.Kind {
		parts = append(parts, kinds[k].describe(s, model)) // validation knows only kinds in the table
	}
	return strings.Join(parts, ", then ")
}
