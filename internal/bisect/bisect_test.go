package bisect

import (
	"context"
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
			measure := func(_ context.Context, c string) ([]float64, error) {
				measured++
				var i int
				if c == "good" {
					return []float64{1000}, nil
				}
				fmt.Sscanf(c, "c%d", &i)
				if i >= k {
					return []float64{1500}, nil // the sleep landed
				}
				return []float64{1010}, nil
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

func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

func TestFindRefusesABadThatIsNotBad(t *testing.T) {
	measure := func(context.Context, string) ([]float64, error) { return []float64{1000}, nil }
	_, err := Find(context.Background(), "good", []string{"c0", "c1"}, p50, 10, measure, func(Step) {})
	if err == nil || !strings.Contains(err.Error(), "did not regress latency p50") {
		t.Errorf("err = %v; want bad not regressed", err)
	}
	if _, err := Find(context.Background(), "good", nil, p50, 10, measure, func(Step) {}); err == nil {
		t.Error("no commits: want an error")
	}
}
