package load

import (
	"math"
	"testing"
)

// within checks a sampled frequency against the exact probability p over
// n draws: 5 standard deviations of a binomial proportion.
func within(count, n int, p float64) bool {
	f := float64(count) / float64(n)
	return math.Abs(f-p) <= 5*math.Sqrt(p*(1-p)/float64(n))+1e-12
}

func TestZipfMatchesLaw(t *testing.T) {
	const n, draws = 1000, 500000
	for _, tc := range []struct{ q, s float64 }{
		{2.7, 1.0}, // NEAR's parameters
		{0, 1.0},   // plain Zipf
		{10, 2.0},
	} {
		z, err := NewZipf(n, tc.q, tc.s, 42)
		if err != nil {
			t.Fatal(err)
		}
		// The law itself: ratio of neighbours is ((k+1+q)/(k+2+q))^s.
		if got, want := z.Prob(1)/z.Prob(0), math.Pow((1+tc.q)/(2+tc.q), tc.s); math.Abs(got-want) > 1e-9 {
			t.Errorf("q=%g s=%g: P(1)/P(0) = %g; want %g", tc.q, tc.s, got, want)
		}
		counts := make([]int, n)
		for seq := uint64(0); seq < draws; seq++ {
			counts[z.Pick(seq)]++
		}
		for _, k := range []int{0, 1, 2, 5, 10, 100, 999} {
			if !within(counts[k], draws, z.Prob(k)) {
				t.Errorf("q=%g s=%g: account %d drawn %d/%d = %.5f; want %.5f", tc.q, tc.s, k, counts[k], draws, float64(counts[k])/draws, z.Prob(k))
			}
		}
	}
}

func TestUniformMatchesLaw(t *testing.T) {
	const n, draws = 50, 200000
	u := Uniform{N: n, Seed: 7}
	counts := make([]int, n)
	for seq := uint64(0); seq < draws; seq++ {
		counts[u.Pick(seq)]++
	}
	for k, c := range counts {
		if !within(c, draws, 1.0/n) {
			t.Errorf("account %d drawn %d/%d; want %.4f", k, c, draws, 1.0/n)
		}
	}
}

func TestSelectorsReproducible(t *testing.T) {
	a, _ := NewZipf(100, 2.7, 1, 9)
	b, _ := NewZipf(100, 2.7, 1, 9)
	c, _ := NewZipf(100, 2.7, 1, 10)
	same, differ := true, false
	for seq := uint64(0); seq < 1000; seq++ {
		same = same && a.Pick(seq) == b.Pick(seq)
		differ = differ || a.Pick(seq) != c.Pick(seq)
	}
	if !same || !differ {
		t.Errorf("same seed same picks = %v, other seed differs = %v; want both", same, differ)
	}
}

func TestZipfBadInput(t *testing.T) {
	for _, tc := range []struct {
		n    int
		q, s float64
	}{{100, 2.7, 0}, {100, 2.7, -1}, {100, -1, 1}, {0, 2.7, 1}, {10, math.NaN(), 1}} {
		if _, err := NewZipf(tc.n, tc.q, tc.s, 1); err == nil {
			t.Errorf("NewZipf(%d, %g, %g) = nil error", tc.n, tc.q, tc.s)
		}
	}
}
