// Package interleave runs the two sides of a comparison the way a
// drifting machine needs: one run of each side a round, in a random order
// within the round, on the same machine, until compare decides every
// figure that matters (regressed, improved or unchanged at the threshold)
// or the rounds run out. Each round's candidate is judged against its own
// round's baseline (compare's rounds), so the machine's drift over
// minutes, larger here than one run's noise, cancels instead of reading
// as a change.
package interleave

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/results"
)

// Sides' names, as trials record them.
const (
	Baseline  = "baseline"
	Candidate = "candidate"
)

// A Runner makes one run of the trial's side and returns its figures.
type Runner func(ctx context.Context, t results.Trial) (compare.Values, error)

// A Plan is how long to go on and what decides.
type Plan struct {
	Session string
	// MinRounds are run before any verdict counts (at least 2: one round
	// cannot show how rounds differ); MaxRounds end it undecided.
	MinRounds, MaxRounds int
	Threshold            float64
	Per                  map[string]float64 // per-figure thresholds
	// Figures must be decided; none: every gated figure.
	Figures []string
	Seed    uint64
	// Calibration is the A/A sessions' spread of a round's change on this
	// machine (compare.StoredCalibration), pooled with the session's
	// when its baseline was set up as they were; nil: the session's alone.
	Calibration *compare.Calibration
}

// Check refuses a plan that cannot decide.
func (p Plan) Check() error {
	switch {
	case p.MinRounds < 2:
		return fmt.Errorf("at least 2 rounds before a verdict (got %d): one round cannot show how rounds differ", p.MinRounds)
	case p.MaxRounds < p.MinRounds:
		return fmt.Errorf("max rounds %d is below min rounds %d", p.MaxRounds, p.MinRounds)
	}
	return nil
}

// An Outcome is what ran and what it showed.
type Outcome struct {
	Result  *compare.Result
	Rounds  int             // complete rounds
	Order   []results.Trial // every run made, in order
	Decided bool            // every figure that matters decided
	// Interrupted: the context ended before the plan did; Result is the
	// verdict on the rounds that completed.
	Interrupted bool
}

// Run runs rounds until decided. after, if set, is told each round's
// comparison. An error of a run other than the context's end stops it and
// is returned with the outcome so far.
func Run(ctx context.Context, p Plan, run Runner, after func(round int, res *compare.Result)) (*Outcome, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15))
	out := &Outcome{}
	var sides [2][]compare.Values
	judge := func() {
		out.Result = compare.CompareCalibrated(sides[0], sides[1], p.Threshold, p.Per, p.Calibration)
	}
	for round := 1; round <= p.MaxRounds; round++ {
		order := [2]int{0, 1}
		if rng.IntN(2) == 1 {
			order = [2]int{1, 0}
		}
		for _, side := range order {
			t := results.Trial{Session: p.Session, Round: round, Side: [2]string{Baseline, Candidate}[side], Seq: len(out.Order) + 1}
			v, err := run(ctx, t)
			if err != nil {
				judge()
				if ctx.Err() != nil {
					out.Interrupted = true
					return out, nil
				}
				return out, fmt.Errorf("round %d, %s: %w", round, t.Side, err)
			}
			out.Order = append(out.Order, t)
			sides[side] = append(sides[side], v)
		}
		out.Rounds = round
		judge()
		if round == 1 {
			must := map[string]float64{}
			for _, f := range p.Figures {
				must[f] = 0
			}
			if err := out.Result.Named(must); err != nil {
				return out, fmt.Errorf("--decide-on: %w", err)
			}
			if err := out.Result.Named(p.Per); err != nil {
				return out, fmt.Errorf("--threshold-for: %w", err)
			}
		}
		if after != nil {
			after(round, out.Result)
		}
		if round >= p.MinRounds && Decided(out.Result, p.Figures) {
			out.Decided = true
			return out, nil
		}
	}
	return out, nil
}

// Decided says whether every figure named (every gated one, when none is)
// has a verdict: an inconclusive one needs more rounds. A figure only one
// side has is as decided as it will be.
func Decided(res *compare.Result, figures []string) bool {
	want := map[string]bool{}
	for _, f := range figures {
		want[f] = true
	}
	seen := 0
	for _, r := range res.Rows {
		if len(figures) > 0 && !want[r.Figure] || len(figures) == 0 && !r.Gated {
			continue
		}
		seen++
		if r.Verdict == compare.Inconclusive {
			return false
		}
	}
	return len(figures) == 0 || seen == len(figures)
}
