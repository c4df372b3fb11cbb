package compare

import (
	"fmt"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Rounds: `chainperf ab` runs the two sides interleaved, one run of each
// a round in a random order, so both sides meet the same machine. Each
// round's candidate is then judged against its own round's baseline (a
// paired comparison): the machine's drift from one round to the next,
// larger here than one run's batches show, cancels out of the change
// instead of widening (or, when all of one side ran first, biasing) it.

// A Trial places a run in an interleaved comparison.
type Trial struct {
	Session string
	Round   int
}

// rounds pairs the runs of both sides by round when every run of both
// belongs to one interleaved session with at most one run of a side a
// round: the complete rounds in order, and the runs of rounds that lack
// the other side (an interrupted round), which a paired comparison leaves
// out.
func rounds(base, cand []Values) (pairs [][2]Values, left []string, ok bool) {
	session := ""
	by := map[int]*[2]*Values{}
	for side, vs := range [2][]Values{base, cand} {
		for i := range vs {
			v := &vs[i]
			if v.Trial.Session == "" || (session != "" && v.Trial.Session != session) {
				return nil, nil, false
			}
			session = v.Trial.Session
			p := by[v.Trial.Round]
			if p == nil {
				p = &[2]*Values{}
				by[v.Trial.Round] = p
			}
			if p[side] != nil {
				return nil, nil, false
			}
			p[side] = v
		}
	}
	if session == "" {
		return nil, nil, false
	}
	var order []int
	for r := range by {
		order = append(order, r)
	}
	sort.Ints(order)
	for _, r := range order {
		p := by[r]
		switch {
		case p[0] != nil && p[1] != nil:
			pairs = append(pairs, [2]Values{*p[0], *p[1]})
		case p[0] != nil:
			left = append(left, p[0].Run)
		default:
			left = append(left, p[1].Run)
		}
	}
	return pairs, left, len(pairs) > 0
}

// JudgeRounds compares one figure of interleaved runs: base[i] and
// cand[i] are round i's samples (a sample a steady repeat). The change is
// the mean of the rounds' changes (analysis scale), its interval
// Student's t over the rounds (n-1 degrees of freedom): one round cannot
// show how rounds differ, so it cannot decide.
func JudgeRounds(f Figure, base, cand [][]Sample, threshold float64) Row {
	return judgeRounds(f, base, cand, threshold, RoundNoise{})
}

// judgeRounds is JudgeRounds with the machine's spread of a round's change
// known from A/A sessions (prior; Rounds 0: not known). A session of a
// few rounds estimates its spread from a few differences, and its
// interval pays for that with Student's t at 2-4 degrees of freedom (22.3
// at 3 rounds and 99.8 %): the calibration's rounds are pooled with the
// session's, and the interval takes their degrees of freedom. The
// session's own spread, when larger, still counts: a machine noisier
// today than when it was calibrated widens the interval.
func judgeRounds(f Figure, base, cand [][]Sample, threshold float64, prior RoundNoise) Row {
	var b, c []Sample
	for i := range base {
		b, c = append(b, base[i]...), append(c, cand[i]...)
	}
	r := Row{Figure: f.Name, Unit: f.Unit, Base: values(b), Cand: values(c), Threshold: threshold, Gated: f.Gate, ChangeIn: "%", Rounds: len(base)}
	if f.Points {
		r.ChangeIn = "pp"
	}
	if len(b) == 0 || len(c) == 0 {
		r.Verdict = Missing
		return r
	}
	r.BaseMean, r.CandMean = center(f, r.Base), center(f, r.Cand)
	sc := scaleOf(f, b, c)
	mean := func(xs []Sample) float64 {
		var s float64
		for _, x := range xs {
			s += sc.tr(x.Value)
		}
		return s / float64(len(xs))
	}
	var ds, bs []float64
	for i := range base {
		if len(base[i]) == 0 || len(cand[i]) == 0 {
			continue
		}
		bm := mean(base[i])
		ds, bs = append(ds, mean(cand[i])-bm), append(bs, bm)
	}
	n := len(ds)
	r.Rounds = n
	if n == 0 {
		r.Verdict = Missing
		return r
	}
	d, bm := stat.Mean(ds, nil), stat.Mean(bs, nil)
	var v float64
	df := float64(n - 1)
	if n > 1 {
		v = stat.Variance(ds, nil)
		if pv := prior.SD * prior.SD; prior.Rounds >= 2 && sc.log && pv > 0 && v/pv <= noisierF(n-1, prior.Rounds) {
			pooled := (pv*float64(prior.Rounds) + v*float64(n-1)) / float64(prior.Rounds+n-1)
			v, df = max(v, pooled), float64(prior.Rounds+n-1)
			r.Pooled = prior.Rounds
		}
		// Rounds that happen to agree closer than their runs' own noise
		// allows do not narrow the interval below that noise.
		if w := withinVar(b, sc) + withinVar(c, sc); w > v {
			v = w
		}
		v /= float64(n)
	}
	e := interval(d, bm, v, df, n > 1, sc, RoundsLevel)
	r.Change, r.Tested = e.change, e.known
	if e.known {
		r.Low, r.High, r.P = e.low, e.high, e.p
	}
	r.Verdict = verdict(f, e, threshold)
	if r.Verdict == Inconclusive && e.known {
		// Unchanged is judged at the usual level: calling a change
		// unchanged too early costs a missed change, not a false alarm.
		if u := interval(d, bm, v, df, true, sc, Level); u.low > -threshold && u.high < threshold {
			r.Verdict = Unchanged
		}
	}
	return r
}

// noisierF is the ratio of a session's spread of a round's change (df1
// degrees of freedom) to the calibration's (df2) above which the machine
// is noisier today than when it was calibrated (95th percentile of F):
// the calibration is then left out. Simulated A/A sessions as noisy as
// their calibration called a change in 0.4 % of 1,000; twice as noisy,
// 0.9 %; three times (a one-off run), 3.5 % (5.2 % pooling regardless): a calibration
// from a much quieter day is a risk (TestCalibrationFromAQuieterDay).
func noisierF(df1, df2 int) float64 {
	return distuv.F{D1: float64(df1), D2: float64(df2)}.Quantile(0.95)
}

// RoundsLevel is the confidence level of a change over interleaved
// rounds. Higher than Level: chainperf ab looks at the rounds after each
// one and stops at the first verdict, and every look is a chance of a
// false one; at 99 %, A/A sessions of 3 to 10 rounds on a drifting machine
// end regressed or improved in under 1 % of sessions
// (TestSequentialAARarelyDecideAChange), where 95 % gave 7.7 %.
const RoundsLevel = 0.998

// withinVar is the mean squared own SE of the runs' samples (analysis
// scale): the least variance one run of the side has.
func withinVar(xs []Sample, sc scale) float64 {
	var w float64
	n := 0
	for _, x := range xs {
		if x.DF > 0 {
			se := sc.trSE(x)
			w += se * se
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return w / float64(n)
}

// compareRounds judges every figure over the rounds.
func compareRounds(res *Result, pairs [][2]Values, left []string, figures []Figure, threshold float64, per map[string]float64, prior map[string]RoundNoise) {
	for _, f := range figures {
		th := threshold
		if t, ok := per[f.Name]; ok {
			th = t
		}
		var b, c [][]Sample
		for _, p := range pairs {
			b, c = append(b, collect(p[:1], f.Name)), append(c, collect(p[1:], f.Name))
		}
		res.add(coarse(judgeRounds(f, b, c, th, prior[f.Name]), f, figures))
	}
	res.Notes = append(res.Notes, fmt.Sprintf("interleaved: %d round(s), each round's candidate judged against its own baseline; a change needs its %.1f %% interval on one side of zero, unchanged its %.0f %% one inside the threshold", len(pairs), 100*RoundsLevel, 100*Level))
	if len(left) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("left out, their round having no run of the other side: %v", left))
	}
}
