// Package compare answers "did the candidate get slower than the
// baseline?" with numbers: each figure of two sets of runs side by side,
// the change of the medians, and a verdict that a noisy figure cannot
// turn into a false regression (a Mann-Whitney U test when both sides have
// repeats, as benchstat does; a plain threshold, said so, with one run a
// side).
package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/aclements/go-moremath/stats"

	"github.com/chainperf/chainperf/internal/results"
)

// Verdicts.
const (
	Improved  = "improved"
	Regressed = "regressed"
	Unchanged = "unchanged"
	// Noise: the medians moved past the threshold, but the test cannot
	// tell the two sides apart.
	Noise = "noise"
	// Missing: one side has no value for the figure.
	Missing = "missing"
)

// Alpha is the significance level of the U test.
const Alpha = 0.05

// DefaultThreshold is the change (percent) below which a figure counts as
// unchanged: the 10 % rule of CometBFT's QA.
const DefaultThreshold = 10.0

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
}

// A Row is one figure of the comparison.
type Row struct {
	Figure    string    `json:"figure"`
	Unit      string    `json:"unit,omitempty"`
	Base      []float64 `json:"baseline"`
	Cand      []float64 `json:"candidate"`
	BaseMed   float64   `json:"baseline_median"`
	CandMed   float64   `json:"candidate_median"`
	Change    float64   `json:"change"`      // percent, or percentage points for shares
	ChangeIn  string    `json:"change_unit"` // "%" or "pp"
	P         float64   `json:"p,omitempty"` // U test p-value, when Tested
	Tested    bool      `json:"tested"`
	Threshold float64   `json:"threshold"`
	Verdict   string    `json:"verdict"`
	Gated     bool      `json:"gated"`
}

// Judge compares one figure's values: the change of the medians against
// threshold (percent, or points for shares) and, with at least two values a
// side, a two-sided Mann-Whitney U test at Alpha. A change past the
// threshold is a regression or improvement only when the test (if there
// is one) says the sides differ; otherwise it is noise.
func Judge(f Figure, base, cand []float64, threshold float64) Row {
	r := Row{Figure: f.Name, Unit: f.Unit, Base: base, Cand: cand, Threshold: threshold, Gated: f.Gate, ChangeIn: "%"}
	if len(base) == 0 || len(cand) == 0 {
		r.Verdict = Missing
		return r
	}
	r.BaseMed, r.CandMed = results.SpreadOf(base).Median, results.SpreadOf(cand).Median
	switch {
	case f.Points:
		r.Change, r.ChangeIn = 100*(r.CandMed-r.BaseMed), "pp"
	case r.BaseMed != 0:
		r.Change = 100 * (r.CandMed - r.BaseMed) / math.Abs(r.BaseMed)
	case r.CandMed != 0:
		r.Change = math.Inf(int(math.Copysign(1, r.CandMed)))
	}
	if len(base) >= 2 && len(cand) >= 2 {
		if u, err := stats.MannWhitneyUTest(base, cand, stats.LocationDiffers); err == nil {
			r.Tested, r.P = true, u.P
		}
	}
	switch {
	case math.Abs(r.Change) < threshold:
		r.Verdict = Unchanged
	case r.Tested && r.P > Alpha:
		r.Verdict = Noise
	case (r.Change > 0) == f.Higher:
		r.Verdict = Improved
	default:
		r.Verdict = Regressed
	}
	return r
}

// A Result is a whole comparison.
type Result struct {
	Baseline  []string `json:"baseline_runs"`
	Candidate []string `json:"candidate_runs"`
	Rows      []Row    `json:"figures"`
	// Regressed lists the gated figures that regressed.
	Regressed []string `json:"regressed"`
	Notes     []string `json:"notes,omitempty"`
}

// Compare judges every figure either side has against threshold (percent,
// points for shares), or its own in per.
func Compare(base, cand []Values, threshold float64, per map[string]float64) *Result {
	res := &Result{}
	for _, v := range base {
		res.Baseline = append(res.Baseline, v.Run)
	}
	for _, v := range cand {
		res.Candidate = append(res.Candidate, v.Run)
	}
	for _, f := range figuresOf(base, cand) {
		th := threshold
		if t, ok := per[f.Name]; ok {
			th = t
		}
		row := Judge(f, collect(base, f.Name), collect(cand, f.Name), th)
		res.Rows = append(res.Rows, row)
		if row.Gated && row.Verdict == Regressed {
			res.Regressed = append(res.Regressed, row.Figure)
		}
	}
	if len(base) < 2 || len(cand) < 2 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d baseline and %d candidate runs: no statistical test is possible with one run a side; verdicts apply the threshold alone (repeat runs, e.g. [experiment] repeats or several runs, for a U test)", len(base), len(cand)))
	}
	return res
}

func collect(vs []Values, name string) []float64 {
	var out []float64
	for _, v := range vs {
		if x, ok := v.Figures[name]; ok && !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

// figuresOf lists the figures any run has, headline figures first in a
// fixed order, then per-node and profile figures by name.
func figuresOf(sides ...[]Values) []Figure {
	seen := map[string]Figure{}
	for _, side := range sides {
		for _, v := range side {
			for name := range v.Figures {
				seen[name] = Describe(name)
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
		return out[i].Name < out[j].Name
	})
	return out
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
