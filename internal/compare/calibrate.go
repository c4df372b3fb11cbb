package compare

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/chainperf/chainperf/internal/store"
)

// Calibration: before an interleaved session spends its first run, the
// A/A sessions of the same scenario stored on this machine say how much a
// round's change of each figure varies with nothing changed, and so how
// many rounds a change of 3, 5 or 10 % needs before the gate can call it
// (and that a change under the threshold is never called, whatever the
// rounds). A machine's noise is its own: a calibration from another
// machine, or none, says nothing here.

// RoundNoise is one figure's spread of a round's change in A/A sessions.
type RoundNoise struct {
	Figure string
	Rounds int     // rounds pooled
	SD     float64 // of a round's change, on the log scale (0.02: about 2 %)
}

// A Calibration is what the A/A sessions showed.
type Calibration struct {
	Scenario string
	Sessions []string // the sessions pooled, newest first
	Rounds   int
	Figures  []RoundNoise // in report order
	ran      Values       // a run of the newest session: how they were all set up
}

// priorFor is the calibration's spread of each figure when every baseline
// run of base ran what the calibration's sessions ran; it notes in res
// whether it was used.
func (c *Calibration) priorFor(res *Result, base []Values) map[string]RoundNoise {
	if c == nil || len(c.Sessions) == 0 {
		return nil
	}
	node := ""
	for _, v := range base {
		if !sameSetup(v, c.ran) {
			res.Notes = append(res.Notes, fmt.Sprintf("the A/A calibration of scenario %q ran other settings, testnet or load than this baseline: not used", c.Scenario))
			return nil
		}
		if v.Node != c.ran.Node {
			node = v.Node
		}
	}
	prior := map[string]RoundNoise{}
	for _, n := range c.Figures {
		prior[n.Figure] = n
	}
	note := fmt.Sprintf("each figure's spread of a round's change pooled with the %d rounds of %d A/A session(s) of scenario %q on this machine (%s)",
		c.Rounds, len(c.Sessions), c.Scenario, strings.Join(c.Sessions, ", "))
	if node != "" {
		note += fmt.Sprintf("; they ran node %q, this baseline %q (a figure whose rounds are noisier than theirs judges on its own)", c.ran.Node, node)
	}
	res.Notes = append(res.Notes, note)
	return prior
}

// PowerShare is how often a change of the size asked must be called for
// it to count as one the rounds can show.
const PowerShare = 0.8

// Calibrate pools the rounds' changes of A/A sessions (newest first):
// each session is its baseline and candidate runs. A session that is not
// interleaved, whose runs differ in what they ran (node, settings,
// testnet, load), or set up other than the newest (settings, testnet,
// load), is left out: its changes are not this setup's noise. Only figures on the log scale
// (positive, not a share) are kept: the ones a percent change is asked
// of.
func Calibrate(scenario string, sessions [][2][]Values) Calibration {
	c := Calibration{Scenario: scenario}
	sum := map[string]float64{}
	count := map[string]int{}
	for _, s := range sessions {
		var newest *Values
		if len(c.Sessions) > 0 {
			newest = &c.ran
		}
		pairs, ok := usable(s, newest)
		if !ok {
			continue
		}
		if newest == nil {
			c.ran = s[0][0]
		}
		c.Sessions = append(c.Sessions, pairs[0][0].Trial.Session)
		c.Rounds += len(pairs)
		for _, f := range figuresOf(s[0], s[1]) {
			if f.Points {
				continue
			}
			for _, p := range pairs {
				b, a := meanLog(p[0].Figures[f.Name]), meanLog(p[1].Figures[f.Name])
				if math.IsNaN(b) || math.IsNaN(a) {
					continue
				}
				// The true change is zero: each round's change is noise.
				sum[f.Name] += (a - b) * (a - b)
				count[f.Name]++
			}
		}
	}
	for _, f := range figuresOf(flatten(sessions)...) {
		if n := count[f.Name]; n >= 2 {
			c.Figures = append(c.Figures, RoundNoise{Figure: f.Name, Rounds: n, SD: math.Sqrt(sum[f.Name] / float64(n))})
		}
	}
	return c
}

func flatten(sessions [][2][]Values) [][]Values {
	var out [][]Values
	for _, s := range sessions {
		out = append(out, s[0], s[1])
	}
	return out
}

// meanLog is the mean log of a run's samples; NaN when it has none or one
// is not positive.
func meanLog(xs []Sample) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		if x.Value <= 0 {
			return math.NaN()
		}
		s += math.Log(x.Value)
	}
	return s / float64(len(xs))
}

// Smallest is the smallest change (percent) a session of rounds calls
// PowerShare of the time at the rounds' level, its spread pooled with the
// calibration's rounds (judgeRounds), with threshold (percent) the least
// a verdict counts.
func (n RoundNoise) Smallest(rounds int, threshold float64) float64 {
	if rounds < 2 {
		return math.Inf(1)
	}
	se := n.SD / math.Sqrt(float64(rounds))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n.Rounds + rounds - 1)}
	// Called: the interval clears zero and the change is at least the
	// threshold; the estimate must land past both PowerShare of the time.
	bar := math.Max(t.Quantile(1-(1-RoundsLevel)/2)*se, math.Log1p(threshold/100))
	return 100 * math.Expm1(bar+t.Quantile(PowerShare)*se)
}

// RoundsFor is the fewest rounds (from least, at most most) that call a
// change of pct percent PowerShare of the time; 0 when most do not.
func (n RoundNoise) RoundsFor(pct, threshold float64, least, most int) int {
	for r := max(least, 2); r <= most; r++ {
		if n.Smallest(r, threshold) <= pct {
			return r
		}
	}
	return 0
}

// Lines says the calibration to a reader before a session's first run:
// for the figures named (those of want the calibration has, in its order),
// the spread of a round's change, the smallest change minRounds and
// maxRounds can call, and the rounds 3, 5 and 10 % changes need.
func (c Calibration) Lines(want []string, threshold float64, per map[string]float64, minRounds, maxRounds int) []string {
	if len(c.Sessions) == 0 {
		return []string{fmt.Sprintf("calibration: no A/A session of scenario %q is stored here; `chainperf ab` of the one scenario on both sides measures the smallest change this machine lets the gate call", c.Scenario)}
	}
	out := []string{fmt.Sprintf("calibration: %d A/A session(s) of scenario %q stored here (%d rounds: %s); rounds a change needs to be called %.0f %% of the time:",
		len(c.Sessions), c.Scenario, c.Rounds, strings.Join(c.Sessions, ", "), 100*PowerShare)}
	for _, n := range c.Figures {
		if !slices.Contains(want, n.Figure) {
			continue
		}
		th := threshold
		if t, ok := per[n.Figure]; ok {
			th = t
		}
		var needs []string
		for _, pct := range []float64{3, 5, 10} {
			switch r := n.RoundsFor(pct, th, minRounds, maxRounds); {
			case pct <= th:
				needs = append(needs, fmt.Sprintf("%g %% never (threshold %g %%)", pct, th))
			case r == 0:
				needs = append(needs, fmt.Sprintf("%g %% more than %d", pct, maxRounds))
			default:
				needs = append(needs, fmt.Sprintf("%g %% %d", pct, r))
			}
		}
		out = append(out, fmt.Sprintf("  %s: ±%.1f %% a round; smallest change called after %d rounds %.1f %%, after %d %.1f %%; rounds for %s",
			n.Figure, 100*math.Expm1(n.SD), minRounds, n.Smallest(minRounds, th), maxRounds, n.Smallest(maxRounds, th), strings.Join(needs, ", ")))
	}
	return out
}

// CalibrationSessions is how many of the newest A/A sessions a
// calibration pools, and calibrationRuns the stored runs it reads at most
// to find them.
const (
	CalibrationSessions = 5
	calibrationRuns     = 400
)

// StoredCalibration reads the newest A/A sessions of scenario from the
// store: sessions (runs labelled ab=SESSION) whose runs all ran the same
// node and settings, on the newest one's settings, testnet and load.
func StoredCalibration(ctx context.Context, st *store.Store, scenario string) (Calibration, error) {
	runs, err := st.List(ctx, store.Filter{Scenario: scenario, Status: "complete", Limit: calibrationRuns})
	if err != nil {
		return Calibration{}, err
	}
	var order []string
	bySession := map[string][]string{}
	for _, r := range runs {
		s := r.Labels["ab"]
		if s == "" || r.Labels["side"] == "" {
			continue
		}
		if _, ok := bySession[s]; !ok {
			order = append(order, s)
		}
		bySession[s] = append(bySession[s], r.ID)
	}
	var sessions [][2][]Values
	var newest *Values
	for _, s := range order {
		if len(sessions) == CalibrationSessions {
			break
		}
		var sides [2][]Values
		for _, id := range bySession[s] {
			r, err := st.Run(ctx, id)
			if err != nil {
				return Calibration{}, err
			}
			side := 0
			if r.Labels["side"] == "candidate" {
				side = 1
			}
			sides[side] = append(sides[side], FromRun(r, nil))
		}
		if _, ok := usable(sides, newest); ok {
			sessions = append(sessions, sides)
			newest = &sessions[0][0][0]
		}
	}
	return Calibrate(scenario, sessions), nil
}

// usable says whether a session calibrates: at least two complete
// interleaved rounds, every run the same (aa), and set up as the newest
// session pooled (nil: it is the first). It returns the rounds.
func usable(s [2][]Values, newest *Values) ([][2]Values, bool) {
	pairs, _, ok := rounds(s[0], s[1])
	if !ok || len(pairs) < 2 || !aa(s) {
		return nil, false
	}
	// A scenario edited in place is another scenario.
	return pairs, newest == nil || sameSetup(s[0][0], *newest)
}

// aa says whether a session's runs all ran the same: one node build, one
// set of settings, one testnet, one load.
func aa(sides [2][]Values) bool {
	if len(sides[0]) == 0 || len(sides[1]) == 0 {
		return false
	}
	for _, v := range append(slices.Clone(sides[0]), sides[1]...) {
		if v.Node != sides[0][0].Node || !sameSetup(v, sides[0][0]) {
			return false
		}
	}
	return true
}

// sameSetup says whether two runs ran one set of settings on one testnet
// under one load: what a round's spread depends on. The node build is
// left out: a pull request's baseline is a new build every time, and a
// build whose rounds are noisier than the calibration's fails the F check
// (judgeRounds) and judges on its own rounds.
func sameSetup(a, b Values) bool {
	return a.Settings == b.Settings && a.Shape == b.Shape && a.Workload == b.Workload && a.Model == b.Model && a.Kind == b.Kind
}

// Wanted is the figures a calibration is printed for: the figures named,
// else the gated ones, and the steadier per-height figures when the runs
// have them (they may decide sooner).
func Wanted(decideOn []string) []string {
	if len(decideOn) > 0 {
		return decideOn
	}
	var out []string
	for _, f := range headline {
		if f.Gate && !f.Points {
			out = append(out, f.Name)
		}
	}
	out = append(out, "block interval", "height time")
	sort.SliceStable(out, func(i, j int) bool { return order(out[i]) < order(out[j]) })
	return out
}
