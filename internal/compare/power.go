package compare

import (
	"math"
	"math/rand/v2"
)

// Noise is how a figure varies, for the power simulation: between runs
// (the sd of a run's level, log scale) and within a run, either as the
// run's estimate's relative SE over DF+1 batches (what compare computes;
// Seconds 0), or second by second (sd of a second's log value and its
// lag-1 autocorrelation over a window of Seconds, batch means then taken
// as compare does).
type Noise struct {
	Figure    Figure
	Between   float64
	PerSecond float64
	Phi       float64
	Seconds   int
	WithinSE  float64
	DF        int
}

// run draws one run's sample of a figure whose true level is level.
func (n Noise) run(r *rand.Rand, level float64) Sample {
	lvl := level * math.Exp(n.Between*r.NormFloat64())
	if n.Seconds == 0 {
		// The run's estimate, and its SE as the run itself would
		// estimate it from DF+1 batches: scaled by sqrt(chi2(DF)/DF).
		v := lvl * math.Exp(n.WithinSE*r.NormFloat64())
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
	xs := make([]float64, n.Seconds)
	e := n.PerSecond * r.NormFloat64()
	var sum float64
	for i := range xs {
		if i > 0 {
			e = n.Phi*e + math.Sqrt(1-n.Phi*n.Phi)*n.PerSecond*r.NormFloat64()
		}
		xs[i] = lvl * math.Exp(e)
		sum += xs[i]
	}
	return BatchMeans(sum/float64(len(xs)), xs)
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
