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
// of a comparison: the larger of the spread between runs (when a side
// has repeats) and the runs' own batch-means SE. One run a side cannot
// show how runs differ: there the figure's known spread between runs
// (floor) is the least assumed.
type spread struct {
	v, df float64
	known bool
}

func pooled(sides [2][]float64, ses [2][]Sample, trSE func(Sample) float64, floor float64) spread {
	var sp spread
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
	if bdf > 0 {
		sp = spread{v: ss / bdf, df: bdf, known: true}
	}
	var w, wdf float64
	wn := 0
	for _, xs := range ses {
		for _, x := range xs {
			if x.DF > 0 {
				se := trSE(x)
				w += se * se
				wdf += float64(x.DF)
				wn++
			}
		}
	}
	if wn > 0 && (!sp.known || w/float64(wn) > sp.v) {
		sp = spread{v: w / float64(wn), df: wdf, known: true}
	}
	// With repeats the data say how runs differ; without, the known
	// spread stands in for what one run a side cannot show.
	if sp.known && bdf == 0 && floor*floor > sp.v {
		sp = spread{v: floor * floor, df: floorDF, known: true}
	}
	return sp
}

// floorDF: the degrees of freedom of a figure's known spread (measured
// over five runs by bench/power).
const floorDF = 4

// estimate is the change of a figure between two sides: the point
// estimate and its interval, on the display scale (percent, or points).
type estimate struct {
	change, low, high float64
	p                 float64
	known             bool
}

// change estimates the change from base to cand. A figure in percent is
// compared on the log scale (the ratio of geometric means, so +10 % and
// -9 % are one size); a share in points on its own scale. The interval is
// Student's t with the pooled spread's degrees of freedom.
func change(f Figure, base, cand []Sample) estimate {
	logScale := !f.Points
	for _, x := range append(append([]Sample(nil), base...), cand...) {
		if x.Value <= 0 {
			logScale = false
		}
	}
	tr, trSE := func(x float64) float64 { return 100 * x }, func(x Sample) float64 { return 100 * x.SE }
	if logScale {
		tr, trSE = math.Log, func(x Sample) float64 { return x.SE / x.Value }
	}
	floor := f.Spread
	if !logScale {
		floor = 0 // known as a relative spread only
	}
	var ys [2][]float64
	for i, xs := range [2][]Sample{base, cand} {
		for _, x := range xs {
			ys[i] = append(ys[i], tr(x.Value))
		}
	}
	bm, cm := stat.Mean(ys[0], nil), stat.Mean(ys[1], nil)
	d := cm - bm
	display := func(x float64) float64 {
		switch {
		case logScale:
			return 100 * math.Expm1(x)
		case f.Points:
			return x
		case bm != 0: // a figure that can be 0: percent of the baseline
			return 100 * x / math.Abs(bm)
		case x == 0:
			return 0
		}
		return math.Inf(int(math.Copysign(1, x)))
	}
	e := estimate{change: display(d)}
	sp := pooled(ys, [2][]Sample{base, cand}, trSE, floor)
	if !sp.known {
		return e
	}
	e.known = true
	v := sp.v * (1/float64(len(base)) + 1/float64(len(cand)))
	if v == 0 { // both sides exact: the change is what it is
		e.low, e.high, e.p = e.change, e.change, 0
		if d == 0 {
			e.p = 1
		}
		return e
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: sp.df}
	q := t.Quantile(1 - (1-Level)/2)
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
	if !r.Tested {
		return fmt.Sprintf("%d vs %d with no per-run samples: no interval can be built (repeat the runs, or compare runs stored by this version, which keep per-second samples)", len(r.Base), len(r.Cand))
	}
	return fmt.Sprintf("%d vs %d cannot show a change below %.1f %s (its %.0f %% interval is %+.1f..%+.1f); more runs or a longer window narrow it", len(r.Base), len(r.Cand), r.Detectable(), r.ChangeIn, 100*Level, r.Low, r.High)
}
