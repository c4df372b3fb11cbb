package compare

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// A Sample is one run's value of a figure (or one repeat's, when a run
// repeats its steady phase), with the standard error the run itself gives
// it: the spread of the figure over consecutive batches of the run's
// measured window (batch means, so that second-to-second correlation does
// not shrink it). SE is in the figure's units; DF is its degrees of
// freedom (batches - 1), 0 when the run has no batches to tell.
type Sample struct {
	Value float64
	SE    float64
	DF    int
}

// Level is the confidence level of the interval of a change: a change is
// a regression only when the whole interval is on the bad side of zero,
// so no more than (1-Level)/2 of comparisons of unchanged code call one.
const Level = 0.95

// spread is how much one sample of a figure varies, on the analysis
// scale (log of the figure, or points for shares), pooled over both sides
// of a comparison: the larger of the spread between runs and the runs'
// own batch-means SE. The spread between runs is measured from the runs
// themselves: with one run a side nothing shows how runs differ (this
// machine drifts more over minutes than one run's batches show), so the
// spread is not known and the comparison cannot decide.
type spread struct {
	v, df float64
	known bool
}

func pooled(sides [2][]float64, ses [2][]Sample, trSE func(Sample) float64) spread {
	var ss, bdf float64
	for _, ys := range sides {
		if len(ys) < 2 {
			continue
		}
		m := stat.Mean(ys, nil)
		for _, y := range ys {
			ss += (y - m) * (y - m)
		}
		bdf += float64(len(ys) - 1)
	}
	if bdf == 0 {
		return spread{}
	}
	sp := spread{v: ss / bdf, df: bdf, known: true}
	var w float64
	wn := 0
	for _, xs := range ses {
		for _, x := range xs {
			if x.DF > 0 {
				se := trSE(x)
				w += se * se
				wn++
			}
		}
	}
	// Runs that happen to agree closer than each one's own noise allows
	// do not make the interval narrower than that noise.
	if wn > 0 && w/float64(wn) > sp.v {
		sp.v = w / float64(wn)
	}
	return sp
}

// estimate is the change of a figure between two sides: the point
// estimate and its interval, on the display scale (percent, or points).
type estimate struct {
	change, low, high float64
	p                 float64
	known             bool
}

// A scale is how a figure is analysed: a figure in percent on the log
// scale (the ratio of geometric means, so +10 % and -9 % are one size), a
// share in points on its own scale, a figure that can be 0 or negative
// in percent of the baseline's mean.
type scale struct {
	log     bool // the log of the figure (else points, or percent of the baseline)
	tr      func(float64) float64
	trSE    func(Sample) float64
	display func(d, baseMean float64) float64
}

func scaleOf(f Figure, all ...[]Sample) scale {
	logScale := !f.Points
	for _, xs := range all {
		for _, x := range xs {
			if x.Value <= 0 {
				logScale = false
			}
		}
	}
	if logScale {
		return scale{log: true, tr: math.Log, trSE: func(x Sample) float64 { return x.SE / x.Value },
			display: func(d, _ float64) float64 { return 100 * math.Expm1(d) }}
	}
	return scale{tr: func(x float64) float64 { return 100 * x }, trSE: func(x Sample) float64 { return 100 * x.SE },
		display: func(d, bm float64) float64 {
			switch {
			case f.Points:
				return d
			case bm != 0: // a figure that can be 0: percent of the baseline
				return 100 * d / math.Abs(bm)
			case d == 0:
				return 0
			}
			return math.Inf(int(math.Copysign(1, d)))
		}}
}

// change estimates the change from base to cand, runs of each side made
// independently (all of one side before the other, or runs picked from
// the store). The interval is Student's t with the pooled spread's
// degrees of freedom.
func change(f Figure, base, cand []Sample) estimate {
	sc := scaleOf(f, base, cand)
	var ys [2][]float64
	for i, xs := range [2][]Sample{base, cand} {
		for _, x := range xs {
			ys[i] = append(ys[i], sc.tr(x.Value))
		}
	}
	bm, cm := stat.Mean(ys[0], nil), stat.Mean(ys[1], nil)
	sp := pooled(ys, [2][]Sample{base, cand}, sc.trSE)
	return interval(cm-bm, bm, sp.v*(1/float64(len(base))+1/float64(len(cand))), sp.df, sp.known, sc, Level)
}

// interval is the estimate of a change d (analysis scale) whose variance
// is v with df degrees of freedom, its interval at level.
func interval(d, bm, v, df float64, known bool, sc scale, level float64) estimate {
	display := func(x float64) float64 { return sc.display(x, bm) }
	e := estimate{change: display(d)}
	if !known {
		return e
	}
	e.known = true
	if v == 0 { // both sides exact: the change is what it is
		e.low, e.high, e.p = e.change, e.change, 0
		if d == 0 {
			e.p = 1
		}
		return e
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	q := t.Quantile(1 - (1-level)/2)
	se := math.Sqrt(v)
	e.low, e.high = display(d-q*se), display(d+q*se)
	e.p = 2 * t.Survival(math.Abs(d)/se)
	return e
}

// verdict decides a change against threshold (the smallest change that
// matters, percent or points): regressed or improved when the whole
// interval is on one side of zero and the change is at least threshold;
// unchanged when the whole interval is inside ±threshold; inconclusive
// otherwise (the data cannot tell a change of threshold from none).
func verdict(f Figure, e estimate, threshold float64) string {
	if !e.known {
		return Inconclusive
	}
	worse := e.change < 0 == f.Higher
	switch {
	case (e.high < 0 || e.low > 0) && math.Abs(e.change) >= threshold:
		if worse {
			return Regressed
		}
		return Improved
	case e.low > -threshold && e.high < threshold:
		return Unchanged
	}
	return Inconclusive
}

// Detectable is the smallest change the data could have shown: the
// farther end of the interval from zero. It is what "n vs m cannot show a
// change below X" says.
func (r Row) Detectable() float64 {
	return math.Max(math.Abs(r.Low), math.Abs(r.High))
}

// Why says in words why a row is inconclusive.
func (r Row) Why() string {
	switch {
	case r.Coarse != "" && r.Tested:
		return "coarse: " + r.Coarse
	case !r.Tested && r.Rounds > 0:
		return "one interleaved round cannot show how rounds differ: run more rounds"
	case !r.Tested:
		return fmt.Sprintf("%d vs %d: one run a side cannot show how runs differ, and this machine drifts more between runs than within one; run each side at least twice (chainperf ab runs both sides interleaved until decided)", len(r.Base), len(r.Cand))
	case r.Rounds > 0:
		return fmt.Sprintf("%d interleaved rounds cannot show a change below %.1f %s (its %.1f %% interval is %+.1f..%+.1f); more rounds narrow it", r.Rounds, r.Detectable(), r.ChangeIn, 100*RoundsLevel, r.Low, r.High)
	}
	return fmt.Sprintf("%d vs %d cannot show a change below %.1f %s (its %.0f %% interval is %+.1f..%+.1f); more runs or a longer window narrow it", len(r.Base), len(r.Cand), r.Detectable(), r.ChangeIn, 100*Level, r.Low, r.High)
}
