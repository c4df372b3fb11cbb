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
			judge := func(_ context.Context, c string) (compare.Row, error) {
				measured++
				var i int
				fmt.Sscanf(c, "c%d", &i)
				if i >= k {
					return against(1500), nil // the sleep landed
				}
				return against(1010), nil
			}
			res, err := Find(context.Background(), "good", commits, judge, func(Step) {})
			if err != nil {
				t.Fatalf("n=%d k=%d: %v", n, k, err)
			}
			if res.First != commits[k] {
				t.Errorf("n=%d k=%d: first bad %s", n, k, res.First)
			}
			if limit := 1 + bitsLen(n); measured > limit {
				t.Errorf("n=%d: %d measurements; want at most %d", n, measured, limit)
			}
		}
	}
}

// against judges three runs at x against three of the good commit at
// 1000, each with a 1 % spread.
func against(x float64) compare.Row {
	return compare.Judge(p50, three(1000), three(x), 10)
}

func three(x float64) []compare.Sample {
	return []compare.Sample{{Value: x * 0.99, SE: x / 100, DF: 6}, {Value: x, SE: x / 100, DF: 6}, {Value: x * 1.01, SE: x / 100, DF: 6}}
}

func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

func TestFindRefusesABadThatIsNotBad(t *testing.T) {
	judge := func(context.Context, string) (compare.Row, error) { return against(1000), nil }
	_, err := Find(context.Background(), "good", []string{"c0", "c1"}, judge, func(Step) {})
	if err == nil || !strings.Contains(err.Error(), "did not regress latency p50") {
		t.Errorf("err = %v; want bad not regressed", err)
	}
	if _, err := Find(context.Background(), "good", nil, judge, func(Step) {}); err == nil {
		t.Error("no commits: want an error")
	}
}

// A commit whose figure the data cannot decide stops the bisection with
// ErrUndecided: neither good nor bad is guessed.
func TestFindStopsWhenUndecided(t *testing.T) {
	noisy := func(_ context.Context, c string) (compare.Row, error) {
		// A 12 % change over runs 10 % apart: cannot be told.
		return compare.Judge(p50, three(1000), []compare.Sample{{Value: 1000}, {Value: 1120}, {Value: 1250}}, 5), nil
	}
	_, err := Find(context.Background(), "good", []string{"c0", "c1"}, noisy, func(Step) {})
	if !errors.Is(err, ErrUndecided) || !strings.Contains(err.Error(), "cannot show a change below") {
		t.Errorf("err = %v; want undecided with the smallest change the data could show", err)
	}
}
