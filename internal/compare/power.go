package compare

import (
	"math"
	"math/rand/v2"
)

// Noise is how a figure varies, for the power simulation: between runs
// (the sd of a run's level, log scale) and within a run, as the relative
// SE compare computes from a run's DF+1 batches.
type Noise struct {
	Figure   Figure
	Between  float64
	WithinSE float64
	DF       int
}

// run draws one run's sample of a figure whose true level is level: its
// estimate, and the SE the run itself would estimate from DF+1 batches
// (the true SE scaled by sqrt(chi2(DF)/DF)).
func (n Noise) run(r *rand.Rand, level float64) Sample {
	v := level * math.Exp(n.Between*r.NormFloat64()+n.WithinSE*r.NormFloat64())
	var chi2 float64
	for i := 0; i < n.DF; i++ {
		z := r.NormFloat64()
		chi2 += z * z
	}
	se := n.WithinSE
	if n.DF > 0 {
		se *= math.Sqrt(chi2 / float64(n.DF))
	}
	return Sample{Value: v, SE: v * se, DF: n.DF}
}

// Power is how often Judge says verdict when the candidate's true level
// differs from the baseline's by change (a fraction: -0.1 is 10 % lower)
// with runs runs a side, over trials simulated comparisons.
func Power(n Noise, runs int, change, threshold float64, verdict string, trials int, seed uint64) float64 {
	r := rand.New(rand.NewPCG(seed, uint64(runs)))
	hits := 0
	for i := 0; i < trials; i++ {
		base, cand := make([]Sample, runs), make([]Sample, runs)
		for k := 0; k < runs; k++ {
			base[k] = n.run(r, 1000)
			cand[k] = n.run(r, 1000*(1+change))
		}
		if Judge(n.Figure, base, cand, threshold).Verdict == verdict {
			hits++
		}
	}
	return float64(hits) / float64(trials)
}
