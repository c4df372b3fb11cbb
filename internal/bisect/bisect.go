// Package bisect finds the first commit at which a figure regressed: it
// checks that the bad commit did regress against the good one, then
// halves the commits between them, as git bisect does, with compare's
// verdict (the change's interval against the threshold) deciding good or
// bad at each step; a step the data cannot decide ends the bisection with
// ErrUndecided rather than a guess. How a commit is judged against the
// good one is the caller's (chainperf runs the two interleaved until the
// figure is decided).
package bisect

import (
	"context"
	"errors"
	"fmt"

	"github.com/chainperf/chainperf/internal/compare"
)

// A Judge compares the figure at a commit against the good commit.
type Judge func(ctx context.Context, commit string) (compare.Row, error)

// ErrUndecided: a commit's figure could not be told regressed or not.
var ErrUndecided = errors.New("undecided")

// A Step is one judged commit.
type Step struct {
	Commit string
	Row    compare.Row
}

// A Result names the first bad commit.
type Result struct {
	Steps []Step
	First string // the first commit whose figure regressed
}

// Find bisects commits (oldest first, all after good; the last is bad)
// for the first whose figure regressed against good.
func Find(ctx context.Context, good string, commits []string, judge Judge, log func(Step)) (*Result, error) {
	if len(commits) == 0 {
		return nil, fmt.Errorf("no commits between good and bad: is good an ancestor of bad?")
	}
	res := &Result{}
	bad := func(c string) (bool, error) {
		row, err := judge(ctx, c)
		if err != nil {
			return false, fmt.Errorf("%s: %w", short(c), err)
		}
		st := Step{Commit: c, Row: row}
		res.Steps = append(res.Steps, st)
		log(st)
		if row.Verdict == compare.Inconclusive || row.Verdict == compare.Missing {
			return false, fmt.Errorf("%s: %w: %s (raise --max-rounds or the threshold)", short(c), ErrUndecided, row.Why())
		}
		return row.Verdict == compare.Regressed, nil
	}
	lo, hi := -1, len(commits)-1 // commits[lo] good (-1: good itself), commits[hi] bad
	if isBad, err := bad(commits[hi]); err != nil {
		return res, err
	} else if !isBad {
		last := res.Steps[len(res.Steps)-1].Row
		return res, fmt.Errorf("bad %s did not regress %s beyond %.0f %% against good %s (%s, %+.1f %s): nothing to bisect", short(commits[hi]), last.Figure, last.Threshold, short(good), last.Verdict, last.Change, last.ChangeIn)
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
