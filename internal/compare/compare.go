// Package compare answers "did the candidate get slower than the
// baseline?" with numbers: each figure of two sets of runs side by side,
// the change, its confidence interval, and a verdict that a noisy figure
// cannot turn into a false regression and that small samples cannot turn
// into a false "unchanged".
//
// The rule: every run gives its figure and the figure's standard error
// from batches of its own measured window; the spread between runs is
// measured from the runs themselves, so one run a side cannot decide.
// Runs made interleaved (chainperf ab) are compared round by round
// (rounds.go); other sets of runs as independent samples. The change is
// the ratio of the sides' geometric means with a 95 % Student's t
// interval. Regressed: the interval lies wholly on the bad
// side of zero and the change is at least the threshold. Unchanged: the
// interval lies inside ±threshold. Anything else is inconclusive, with
// the smallest change the data could show. bench/power measures how often
// the rule is right.
package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Verdicts.
const (
	Improved  = "improved"
	Regressed = "regressed"
	Unchanged = "unchanged"
	// Inconclusive: the data cannot tell a change of the threshold's size
	// from none (too few runs, or too noisy a figure).
	Inconclusive = "inconclusive"
	// Missing: one side has no value for the figure.
	Missing = "missing"
)

// DefaultThreshold is the smallest change (percent) that counts: changes
// below it are unchanged. 5 %: at three runs a side of the default job
// the rule then detects a 10 % regression of a gated figure nine times in
// ten (README, bench/power).
const DefaultThreshold = 5.0

// A Figure is something compared: its name, whether more is better, and
// whether a regression of it fails the comparison (the gate).
type Figure struct {
	Name   string
	Unit   string
	Higher bool // more is better (throughput); else less is (latency)
	Gate   bool
	// Points: the figure is a share, its change is in percentage points
	// (a share from 0 has no percent change).
	Points bool
	// PartOf names the figure this one is a part of (its parts add up to
	// it); Source the finding it came from ("" a headline figure).
	PartOf string
	Source string
	// Resolution and Precise: as finding.Figure's (a coarse measure, and
	// the figure that measures the same finely).
	Resolution float64
	Precise    string
}

// A Row is one figure of the comparison.
type Row struct {
	Figure    string    `json:"figure"`
	Unit      string    `json:"unit,omitempty"`
	Base      []float64 `json:"baseline"`
	Cand      []float64 `json:"candidate"`
	BaseMean  float64   `json:"baseline_mean"` // geometric mean (arithmetic for shares)
	CandMean  float64   `json:"candidate_mean"`
	Change    float64   `json:"change"`      // percent, or percentage points for shares
	ChangeIn  string    `json:"change_unit"` // "%" or "pp"
	Low       float64   `json:"ci_low"`      // the change's confidence interval, when Tested
	High      float64   `json:"ci_high"`
	P         float64   `json:"p,omitempty"` // two-sided p of no change, when Tested
	Tested    bool      `json:"tested"`
	Threshold float64   `json:"threshold"`
	Verdict   string    `json:"verdict"`
	Gated     bool      `json:"gated"`
	// Rounds: the interleaved rounds the change was judged over, each
	// round's candidate against its baseline; 0 when the sides' runs were
	// compared as independent sets.
	Rounds int `json:"rounds,omitempty"`
	// Coarse says why the figure's measure cannot show a change of the
	// threshold (it never reads unchanged), and names the precise one.
	Coarse string `json:"coarse,omitempty"`
	// Pooled is the rounds of A/A calibration whose spread this figure's
	// interval pooled with its own rounds' (0: its own alone).
	Pooled int `json:"pooled_rounds,omitempty"`
}

// Judge compares one figure's samples (see the package comment for the
// rule) against threshold: percent, or points for shares.
func Judge(f Figure, base, cand []Sample, threshold float64) Row {
	r := Row{Figure: f.Name, Unit: f.Unit, Base: values(base), Cand: values(cand), Threshold: threshold, Gated: f.Gate, ChangeIn: "%"}
	if f.Points {
		r.ChangeIn = "pp"
	}
	if len(base) > 0 {
		r.BaseMean = center(f, r.Base)
	}
	if len(cand) > 0 {
		r.CandMean = center(f, r.Cand)
	}
	if len(base) == 0 || len(cand) == 0 {
		r.Verdict = Missing // the side that has it still shows its value
		return r
	}
	e := change(f, base, cand)
	r.Change, r.Tested = e.change, e.known
	if e.known {
		r.Low, r.High, r.P = e.low, e.high, e.p
	}
	r.Verdict = verdict(f, e, threshold)
	return r
}

func values(xs []Sample) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x.Value
	}
	return out
}

// center is the side's geometric mean (the arithmetic one for shares, or
// when a value is not positive): what the change is the change of.
func center(f Figure, xs []float64) float64 {
	var sum, logs float64
	geo := !f.Points
	for _, x := range xs {
		sum += x
		if x <= 0 {
			geo = false
		} else {
			logs += math.Log(x)
		}
	}
	if geo {
		return math.Exp(logs / float64(len(xs)))
	}
	return sum / float64(len(xs))
}

// A Result is a whole comparison.
type Result struct {
	Baseline  []string `json:"baseline_runs"`
	Candidate []string `json:"candidate_runs"`
	Rows      []Row    `json:"figures"`
	// Regressed lists the gated figures that regressed; Inconclusive
	// those the data could not decide.
	Regressed    []string       `json:"regressed"`
	Inconclusive []string       `json:"inconclusive,omitempty"`
	Notes        []string       `json:"notes,omitempty"`
	noted        map[string]int // a note's index by its reason
	// Changed says what the sides ran differently on purpose (node build,
	// settings): what the verdicts are about.
	Changed []string `json:"changed,omitempty"`
	// Why says where the change came from: which part of a whole moved
	// it, the node internals that moved most, the functions whose share
	// of CPU or allocations grew (why.go).
	Why []string `json:"why,omitempty"`
}

// Compare judges every figure either side has against threshold (percent,
// points for shares), or its own in per.
func Compare(base, cand []Values, threshold float64, per map[string]float64) *Result {
	return CompareCalibrated(base, cand, threshold, per, nil)
}

// CompareCalibrated is Compare of an interleaved session whose spread of a
// round's change cal's A/A sessions measured (judgeRounds), when the
// session's baseline was set up as they were (settings, testnet, load);
// nil or another setup's: Compare.
func CompareCalibrated(base, cand []Values, threshold float64, per map[string]float64, cal *Calibration) *Result {
	res := &Result{}
	for _, v := range base {
		res.Baseline = append(res.Baseline, v.Run)
	}
	for _, v := range cand {
		res.Candidate = append(res.Candidate, v.Run)
	}
	res.Changed = Changes(base, cand)
	figures := figuresOf(base, cand)
	defer func() { res.Why = Why(res.Rows, figures, base, cand, threshold) }()
	if pairs, left, ok := rounds(base, cand); ok {
		compareRounds(res, pairs, left, figures, threshold, per, cal.priorFor(res, base))
		return res
	}
	for _, f := range figures {
		th := threshold
		if t, ok := per[f.Name]; ok {
			th = t
		}
		res.add(coarse(Judge(f, collect(base, f.Name), collect(cand, f.Name), th), f, figures))
	}
	return res
}

// coarse keeps a figure whose measure is coarser than the threshold from
// reading unchanged: two runs can agree because the measure cannot see
// the change (a mean from histogram sums scraped at a window's edges read
// 992 ms on both sides of a +50 ms change), not because there was none.
// The figure that measures the same finely, when the runs have it, is
// named.
func coarse(r Row, f Figure, figures []Figure) Row {
	pct := 100 * f.Resolution
	if f.Points || pct <= r.Threshold {
		return r
	}
	r.Coarse = fmt.Sprintf("its measure resolves ±%.0f %% a run, coarser than the ±%g %% threshold", pct, r.Threshold)
	if slices.ContainsFunc(figures, func(x Figure) bool { return x.Name == f.Precise }) {
		r.Coarse += fmt.Sprintf(": %q measures it finely", f.Precise)
	}
	if r.Verdict == Unchanged {
		r.Verdict = Inconclusive
	}
	return r
}

// add puts a row in the result, and a gated one's verdict in its lists.
func (res *Result) add(row Row) {
	res.Rows = append(res.Rows, row)
	if row.Coarse != "" && (!row.Gated || row.Verdict != Inconclusive) { // else Why says it
		res.note(row.Figure, "coarse: "+row.Coarse)
	}
	if !row.Gated {
		return
	}
	switch row.Verdict {
	case Regressed:
		res.Regressed = append(res.Regressed, row.Figure)
	case Inconclusive:
		res.Inconclusive = append(res.Inconclusive, row.Figure)
		res.note(row.Figure, row.Why())
	}
}

// note says why of figure; figures with the same reason share one note
// ("committed tx/s, latency p99: 1 vs 1: one run a side ..."), which a
// comparison of single runs otherwise printed once a figure.
func (res *Result) note(figure, why string) {
	if i, ok := res.noted[why]; ok {
		res.Notes[i] = strings.TrimSuffix(res.Notes[i], ": "+why) + ", " + figure + ": " + why
		return
	}
	if res.noted == nil {
		res.noted = map[string]int{}
	}
	res.noted[why] = len(res.Notes)
	res.Notes = append(res.Notes, figure+": "+why)
}

// collect is every sample of a figure on one side: a run with repeats
// gives one a repeat.
func collect(vs []Values, name string) []Sample {
	var out []Sample
	for _, v := range vs {
		for _, x := range v.Figures[name] {
			if !math.IsNaN(x.Value) && !math.IsInf(x.Value, 0) {
				out = append(out, x)
			}
		}
	}
	return out
}

// figuresOf lists the figures any run has, headline figures first in a
// fixed order, then per-node and profile figures by name.
func figuresOf(sides ...[]Values) []Figure {
	seen := map[string]Figure{}
	var all []Values
	for _, side := range sides {
		all = append(all, side...)
	}
	for _, v := range all {
		for name := range v.Figures {
			if _, ok := seen[name]; !ok {
				seen[name] = DescribeIn(all, name)
			}
		}
	}
	out := make([]Figure, 0, len(seen))
	for _, f := range seen {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		oi, oj := order(out[i].Name), order(out[j].Name)
		if oi != oj {
			return oi < oj
		}
		return naturalLess(out[i].Name, out[j].Name)
	})
	return out
}

// naturalLess orders names as a reader does, numbers by value: a QA
// grid's "[qa c=1 r=200]" before "[qa c=1 r=1600]" (by string, 1600 came
// first).
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		na, ra := leadingNumber(a)
		nb, rb := leadingNumber(b)
		switch {
		case na != "" && nb != "":
			x, _ := strconv.ParseFloat(na, 64)
			y, _ := strconv.ParseFloat(nb, 64)
			if x != y {
				return x < y
			}
			if na != nb {
				return na < nb
			}
			a, b = ra, rb
		case a[0] != b[0]:
			return a[0] < b[0]
		default:
			a, b = a[1:], b[1:]
		}
	}
	return len(a) < len(b)
}

// leadingNumber splits the digits (and one decimal point) s starts with
// from the rest.
func leadingNumber(s string) (num, rest string) {
	i, dot := 0, false
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' && !dot && i > 0) {
		dot = dot || s[i] == '.'
		i++
	}
	if i > 0 && s[i-1] == '.' { // a full stop after a number, not a decimal
		i--
	}
	return s[:i], s[i:]
}

// Named checks that every figure named in per is one of the comparison's.
func (res *Result) Named(per map[string]float64) error {
	have := map[string]bool{}
	var names []string
	for _, r := range res.Rows {
		have[r.Figure] = true
		names = append(names, fmt.Sprintf("%q", r.Figure))
	}
	for k := range per {
		if !have[k] {
			return fmt.Errorf("no figure %q in this comparison; it has %s", k, strings.Join(names, ", "))
		}
	}
	return nil
}
