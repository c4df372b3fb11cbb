package compare

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// A Shift is a change point in a series of runs (a branch's nightly
// runs, oldest first): from run At on, the figure sits at a new level.
type Shift struct {
	At      int       `json:"at"`      // index of the first run of the new level
	Run     string    `json:"run"`     // that run
	From    string    `json:"from"`    // the last run of the old level
	Commits [2]string `json:"commits"` // the commit labels of From and Run: the range the change came in ("" unknown)
	Before  float64   `json:"before"`  // the old level (geometric mean)
	After   float64   `json:"after"`   // the new level
	Change  float64   `json:"change"`  // percent (points for shares)
	P       float64   `json:"p"`       // the split's p, corrected for the splits tried
	Verdict string    `json:"verdict"` // Regressed or Improved
}

// ShiftAlpha is the chance that a series with no change shows a shift:
// each split's p is multiplied by the splits tried (Bonferroni), so a
// nightly job over a steady branch raises a false alarm about once in a
// hundred series.
const ShiftAlpha = 0.01

// minSegment is the fewest runs a level is told from: a single odd run
// is noise, not a new level.
const minSegment = 3

// Shifts finds the change points of a figure over runs (oldest first) by
// binary segmentation: the split with the largest Welch t between the
// runs before and after it, kept when its corrected p is under ShiftAlpha
// and its change at least threshold; then the same within each side.
// Runs without the figure are skipped.
func Shifts(vs []Values, name string, threshold float64) []Shift {
	f := DescribeIn(vs, name)
	var ys []float64
	var runs []Values
	logScale := !f.Points
	for _, v := range vs {
		if xs := v.Figures[name]; len(xs) > 0 {
			c := center(f, values(xs))
			if c <= 0 {
				logScale = false
			}
			ys, runs = append(ys, c), append(runs, v)
		}
	}
	tr := func(x float64) float64 { return x }
	if logScale {
		tr = math.Log
	}
	zs := make([]float64, len(ys))
	for i, y := range ys {
		zs[i] = tr(y)
	}
	var out []Shift
	var split func(lo, hi int)
	split = func(lo, hi int) {
		best, bestT := -1, 0.0
		var bestP float64
		tries := hi - lo - 2*minSegment + 1
		for k := lo + minSegment; k <= hi-minSegment; k++ {
			t, df := welch(zs[lo:k], zs[k:hi])
			if math.Abs(t) > math.Abs(bestT) {
				best, bestT = k, t
				bestP = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
			}
		}
		if best < 0 || math.IsNaN(bestT) || math.Min(1, bestP*float64(tries)) >= ShiftAlpha {
			return
		}
		before, after := center(f, ys[lo:best]), center(f, ys[best:hi])
		change := 100 * (after - before) / math.Abs(before)
		if f.Points {
			change = 100 * (after - before)
		} else if logScale {
			change = 100 * math.Expm1(stat.Mean(zs[best:hi], nil)-stat.Mean(zs[lo:best], nil))
		}
		if math.Abs(change) < threshold {
			return
		}
		sh := Shift{At: best, Run: runs[best].Run, From: runs[best-1].Run, Commits: [2]string{runs[best-1].Commit, runs[best].Commit},
			Before: before, After: after, Change: change, P: math.Min(1, bestP*float64(tries)), Verdict: Improved}
		if (change < 0) == f.Higher {
			sh.Verdict = Regressed
		}
		split(lo, best)
		out = append(out, sh)
		split(best, hi)
	}
	split(0, len(zs))
	return out
}

// welch is Welch's t of b's mean against a's, and its degrees of freedom
// (Welch-Satterthwaite). Two constant segments at different levels have
// an infinite t.
func welch(a, b []float64) (t, df float64) {
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	na, nb := float64(len(a)), float64(len(b))
	sa, sb := va/na, vb/nb
	se := math.Sqrt(sa + sb)
	if se == 0 {
		if ma == mb {
			return 0, na + nb - 2
		}
		return math.Copysign(math.Inf(1), mb-ma), na + nb - 2
	}
	df = (sa + sb) * (sa + sb) / (sa*sa/(na-1) + sb*sb/(nb-1))
	return (mb - ma) / se, df
}
