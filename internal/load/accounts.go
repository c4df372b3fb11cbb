package load

import (
	"fmt"
	"math"
	"sort"
)

// A Selector picks the account a tx uses, as a pure function of the tx's
// sequence number and a seed: reproducible run to run, and safe for
// concurrent senders without a lock.
type Selector interface {
	Pick(seq uint64) int // account index in [0, n)
	String() string
}

// Uniform picks every one of N accounts with probability 1/N.
type Uniform struct {
	N    int
	Seed uint64
}

func (u Uniform) Pick(seq uint64) int { return int(unit(u.Seed, seq) * float64(u.N)) }
func (u Uniform) String() string      { return fmt.Sprintf("uniform over %d accounts", u.N) }

// Zipf picks account k (0-based) with the Zipf-Mandelbrot law
// P(k) = (k+1+q)^-s / H, H = sum over j=1..N of (j+q)^-s,
// where q is the shift and s the exponent (NEAR used q = 2.7, s = 1.0).
type Zipf struct {
	q, s float64
	seed uint64
	cdf  []float64 // cdf[k] = P(account <= k)
}

// NewZipf returns a Zipf-Mandelbrot selector over n accounts.
func NewZipf(n int, q, s float64, seed uint64) (*Zipf, error) {
	switch {
	case n < 1:
		return nil, fmt.Errorf("zipf: %d accounts; need at least 1", n)
	case s <= 0 || math.IsNaN(s) || math.IsInf(s, 0):
		return nil, fmt.Errorf("zipf: exponent s = %g; must be positive", s)
	case q < 0 || math.IsNaN(q) || math.IsInf(q, 0):
		return nil, fmt.Errorf("zipf: shift q = %g; must be 0 or more", q)
	}
	z := &Zipf{q: q, s: s, seed: seed, cdf: make([]float64, n)}
	var sum float64
	for k := 0; k < n; k++ {
		sum += math.Pow(float64(k+1)+q, -s)
		z.cdf[k] = sum
	}
	for k := range z.cdf {
		z.cdf[k] /= sum
	}
	z.cdf[n-1] = 1
	return z, nil
}

// Prob is the exact probability of account k.
func (z *Zipf) Prob(k int) float64 {
	if k == 0 {
		return z.cdf[0]
	}
	return z.cdf[k] - z.cdf[k-1]
}

func (z *Zipf) Pick(seq uint64) int {
	u := unit(z.seed, seq)
	return sort.Search(len(z.cdf), func(i int) bool { return z.cdf[i] > u })
}

func (z *Zipf) String() string {
	return fmt.Sprintf("zipf-mandelbrot over %d accounts (q = %g, s = %g)", len(z.cdf), z.q, z.s)
}

// unit maps (seed, seq) to a uniform number in [0, 1) with splitmix64.
func unit(seed, seq uint64) float64 {
	x := seed + (seq+1)*0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}
