// Package bisect finds the first commit at which a figure regressed: it
// measures the good commit as the baseline, checks that the bad one did
// regress, then halves the commits between them, as git bisect does, with
// compare's verdict (the change's interval against the threshold)
// deciding good or bad at each step; a step the data cannot decide ends
// the bisection with ErrUndecided rather than a guess.
package bisect

import (
	"context"
	"errors"
	"fmt"

	"github.com/chainperf/chainperf/internal/compare"
)

// A Measure runs the scenario at a commit and returns the figure's
// samples (one a repeat).
type Measure func(ctx context.Context, commit string) ([]compare.Sample, error)

// ErrUndecided: a commit's figure could not be told regressed or not.
var ErrUndecided = errors.New("undecided")

// A Step is one measured commit.
type Step struct {
	Commit  string
	Values  []float64
	Verdict string // against the good commit; "" for the good commit itself
	Change  float64
}

// A Result names the first bad commit.
type Result struct {
	Baseline []compare.Sample
	Steps    []Step
	First    string // the first commit whose figure regressed
}

// Find bisects commits (oldest first, all after good; the last is bad)
// for the first at which figure regressed beyond threshold against good.
func Find(ctx context.Context, good string, commits []string, figure compare.Figure, threshold float64, measure Measure, log func(Step)) (*Result, error) {
	if len(commits) == 0 {
		return nil, fmt.Errorf("no commits between good and bad: is good an ancestor of bad?")
	}
	res := &Result{}
	base, err := measure(ctx, good)
	if err != nil {
		return nil, fmt.Errorf("good %s: %w", short(good), err)
	}
	res.Baseline = base
	log(Step{Commit: good, Values: values(base)})
	bad := func(c string) (bool, error) {
		vs, err := measure(ctx, c)
		if err != nil {
			return false, fmt.Errorf("%s: %w", short(c), err)
		}
		row := compare.Judge(figure, base, vs, threshold)
		st := Step{Commit: c, Values: row.Cand, Verdict: row.Verdict, Change: row.Change}
		res.Steps = append(res.Steps, st)
		log(st)
		if row.Verdict == compare.Inconclusive || row.Verdict == compare.Missing {
			return false, fmt.Errorf("%s: %w: %s (raise --repeats or the threshold)", short(c), ErrUndecided, row.Why())
		}
		return row.Verdict == compare.Regressed, nil
	}
	lo, hi := -1, len(commits)-1 // commits[lo] good (-1: good itself), commits[hi] bad
	if isBad, err := bad(commits[hi]); err != nil {
		return res, err
	} else if !isBad {
		return res, fmt.Errorf("bad %s did not regress %s beyond %.0f %% against good %s: nothing to bisect", short(commits[hi]), figure.Name, threshold, short(good))
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		isBad, err := bad(commits[mid])
		if err != nil {
			return res, err
		}
		if isBad {
			hi = mid
		} else {
			lo = mid
		}
	}
	res.First = commits[hi]
	return res, nil
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

func values(xs []compare.Sample) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x.Value
	}
	return out
}
