package compare

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/chainperf/chainperf/internal/store"
)

// Resolve turns one side of a comparison into run IDs. A side is a run
// (an ID, a unique start of one, latest~N: store.Find), runs joined by
// commas (repeats), or a query of space-separated terms:
// label:KEY=VALUE, scenario:NAME, commit:PREFIX (runs labelled
// commit=...), latest (the newest match) or latest:N (the N newest).
// A query matches complete runs only, newest first.
func Resolve(ctx context.Context, st *store.Store, side string) ([]string, error) {
	side = strings.TrimSpace(side)
	if side == "" {
		return nil, fmt.Errorf("an empty side: give a run ID, IDs joined by commas, or a query such as \"label:branch=main latest\"")
	}
	if !strings.ContainsAny(side, ": ") && side != "latest" {
		var ids []string
		named := map[string]bool{}
		for _, id := range strings.Split(side, ",") {
			if id = strings.TrimSpace(id); id == "" {
				continue
			}
			// A run named twice is not twice the evidence: it would make
			// the spread between runs zero and decide on nothing.
			found, err := st.Find(ctx, id)
			if err != nil {
				return nil, err
			}
			if named[found] {
				return nil, fmt.Errorf("run %q is named twice: each run counts once, name it once", found)
			}
			named[found] = true
			ids = append(ids, found)
		}
		return ids, nil
	}
	f := store.Filter{Status: "complete", Labels: map[string]string{}}
	for _, term := range strings.Fields(side) {
		key, val, _ := strings.Cut(term, ":")
		switch key {
		case "label":
			k, v, ok := strings.Cut(val, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("query term %q: write label:KEY=VALUE", term)
			}
			f.Labels[k] = v
		case "scenario":
			f.Scenario = val
		case "commit":
			f.Commit = val
		case "latest":
			f.Limit = 1
			if val != "" {
				n, err := strconv.Atoi(val)
				if err != nil || n < 1 {
					return nil, fmt.Errorf("query term %q: write latest or latest:N with N >= 1", term)
				}
				f.Limit = n
			}
		default:
			return nil, fmt.Errorf("query term %q: use label:KEY=VALUE, scenario:NAME, commit:PREFIX, latest or latest:N", term)
		}
		if val == "" && key != "latest" {
			return nil, fmt.Errorf("query term %q has no value", term)
		}
	}
	runs, err := st.List(ctx, f)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("query %q matches no complete run (`chainperf runs list` shows what is stored)", side)
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	return ids, nil
}

// ErrSameRun is a run on both sides of a comparison.
var ErrSameRun = errors.New("a run compared with itself shows no change whatever happened")

// Sides resolves both sides of a comparison (see Resolve) and reads each
// run's figures; an error names the side. A side of more than max runs is
// refused (0: no bound), and so is a run on both sides unless same: a run
// compared with itself shows no change whatever happened.
func Sides(ctx context.Context, st *store.Store, base, cand string, max int, same bool) ([2][]Values, error) {
	var sides [2][]Values
	var resolved [2][]string
	for i, arg := range []string{base, cand} {
		name := []string{"baseline", "candidate"}[i]
		ids, err := Resolve(ctx, st, arg)
		if err != nil {
			return sides, fmt.Errorf("%s: %w", name, err)
		}
		if max > 0 && len(ids) > max {
			return sides, fmt.Errorf("%s: %d runs; compare at most %d a side", name, len(ids), max)
		}
		resolved[i] = ids
	}
	if !same {
		if both := common(resolved[0], resolved[1]); len(both) > 0 {
			return sides, fmt.Errorf("%s on both sides: %w", plural(both), ErrSameRun)
		}
	}
	for i, ids := range resolved {
		name := []string{"baseline", "candidate"}[i]
		for _, id := range ids {
			r, err := st.Run(ctx, id)
			if err != nil {
				return sides, fmt.Errorf("%s: %w", name, err)
			}
			series, err := st.Series(ctx, id)
			if err != nil {
				return sides, fmt.Errorf("%s: %w", name, err)
			}
			sides[i] = append(sides[i], FromRun(r, series))
		}
	}
	return sides, nil
}

// common lists the IDs in both a and b, in a's order.
func common(a, b []string) []string {
	in := map[string]bool{}
	for _, id := range b {
		in[id] = true
	}
	var both []string
	for _, id := range a {
		if in[id] {
			both = append(both, id)
		}
	}
	return both
}

// plural names one run or several.
func plural(ids []string) string {
	if len(ids) == 1 {
		return "run " + ids[0] + " is"
	}
	return "runs " + strings.Join(ids, ", ") + " are"
}
