package bisect

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/compare"
)

var p50 = compare.Figure{Name: "latency p50", Gate: true}

// With the slowdown at commit k of n, bisect names k, measuring about
// log2(n) commits besides good and bad.
func TestFindNamesTheSlowCommit(t *testing.T) {
	for n := 1; n <= 9; n++ {
		for k := 0; k < n; k++ {
			var commits []string
			for i := 0; i < n; i++ {
				commits = append(commits, fmt.Sprintf("c%d", i))
			}
			measured := 0
			measure := func(_ context.Context, c string) ([]compare.Sample, error) {
				measured++
				var i int
				if c == "good" {
					return one(1000), nil
				}
				fmt.Sscanf(c, "c%d", &i)
				if i >= k {
					return one(1500), nil // the sleep landed
				}
				return one(1010), nil
			}
			res, err := Find(context.Background(), "good", commits, p50, 10, measure, func(Step) {})
			if err != nil {
				t.Fatalf("n=%d k=%d: %v", n, k, err)
			}
			if res.First != commits[k] {
				t.Errorf("n=%d k=%d: first bad %s", n, k, res.First)
			}
			if limit := 3 + bitsLen(n); measured > limit {
				t.Errorf("n=%d: %d measurements; want at most %d", n, measured, limit)
			}
		}
	}
}

// one is a run's figure with a 1 % standard error over 7 batches.
func one(x float64) []compare.Sample {
	return []compare.Sample{{Value: x, SE: x / 100, DF: 6}}
}

func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

func TestFindRefusesABadThatIsNotBad(t *testing.T) {
	measure := func(context.Context, string) ([]compare.Sample, error) { return one(1000), nil }
	_, err := Find(context.Background(), "good", []string{"c0", "c1"}, p50, 10, measure, func(Step) {})
	if err == nil || !strings.Contains(err.Error(), "did not regress latency p50") {
		t.Errorf("err = %v; want bad not regressed", err)
	}
	if _, err := Find(context.Background(), "good", nil, p50, 10, measure, func(Step) {}); err == nil {
		t.Error("no commits: want an error")
	}
}

// A commit whose figure the data cannot decide stops the bisection with
// ErrUndecided: neither good nor bad is guessed.
func TestFindStopsWhenUndecided(t *testing.T) {
	noisy := func(_ context.Context, c string) ([]compare.Sample, error) {
		if c == "good" {
			return one(1000), nil
		}
		// A 12 % change with a 10 % standard error: cannot be told.
		return []compare.Sample{{Value: 1120, SE: 112, DF: 6}}, nil
	}
	_, err := Find(context.Background(), "good", []string{"c0", "c1"}, p50, 5, noisy, func(Step) {})
	if !errors.Is(err, ErrUndecided) || !strings.Contains(err.Error(), "cannot show a change below") {
		t.Errorf("err = %v; want undecided with the smallest change the data could show", err)
	}
}
