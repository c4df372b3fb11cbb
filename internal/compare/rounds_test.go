package compare

import (
	"encoding/xml"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// trial makes round i of an interleaved session: a run of each side whose
// committed tx/s is level times the machine's state that round.
func trial(session string, round int, side string, v float64) Values {
	return Values{Run: side + string(rune('0'+round)), Trial: Trial{Session: session, Round: round},
		Figures: map[string][]Sample{"committed tx/s": {{Value: v, SE: v * 0.003, DF: 6}}}}
}

// The machine drifts over minutes (here by up to 10 % from round to
// round), much more than within a run. Interleaved, both sides of a round
// meet the same machine, so an unchanged candidate is unchanged and a
// -15 % one regressed; the same runs judged as independent sets cannot
// tell.
func TestRoundsCancelDrift(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, c := range []struct {
		change  float64
		verdict string
	}{{0, Unchanged}, {-0.15, Regressed}, {+0.15, Improved}} {
		var base, cand []Values
		for i := 1; i <= 4; i++ {
			machine := 1 + 0.1*r.Float64()
			base = append(base, trial("s", i, "a", 1000*machine*(1+0.003*r.NormFloat64())))
			cand = append(cand, trial("s", i, "b", 1000*(1+c.change)*machine*(1+0.003*r.NormFloat64())))
		}
		row := Compare(base, cand, DefaultThreshold, nil).Rows[0]
		if row.Verdict != c.verdict || row.Rounds != 4 {
			t.Errorf("change %+.0f %%, interleaved: %s over %d rounds (%+.1f, %+.1f..%+.1f); want %s", 100*c.change, row.Verdict, row.Rounds, row.Change, row.Low, row.High, c.verdict)
		}
		for i := range base {
			base[i].Trial, cand[i].Trial = Trial{}, Trial{}
		}
		if row := Compare(base, cand, DefaultThreshold, nil).Rows[0]; c.change == 0 && row.Verdict == Unchanged {
			t.Errorf("the same runs as independent sets: unchanged (%+.1f..%+.1f); want the drift to show", row.Low, row.High)
		}
	}
}

// One round cannot decide; a round with one side only (Ctrl-C) is left
// out and said to be.
func TestOneRoundAndAnInterruptedOne(t *testing.T) {
	base := []Values{trial("s", 1, "a", 1000), trial("s", 2, "a", 1000)}
	cand := []Values{trial("s", 1, "b", 500)}
	res := Compare(base, cand, DefaultThreshold, nil)
	row := res.Rows[0]
	if row.Verdict != Inconclusive || row.Rounds != 1 || !strings.Contains(row.Why(), "one interleaved round") {
		t.Errorf("one round: %s over %d (%s)", row.Verdict, row.Rounds, row.Why())
	}
	if notes := strings.Join(res.Notes, "; "); !strings.Contains(notes, "left out") || !strings.Contains(notes, "a2") {
		t.Errorf("notes %q; want run a2 left out", notes)
	}
	// The sides of one session may be two scenario files.
	b, c := trial("s", 1, "a", 1000), trial("s", 1, "b", 1000)
	b.Scenario, c.Scenario = "base", "cand"
	if d := Differences([]Values{b}, []Values{c}); len(d) != 0 {
		t.Errorf("differences of one session's sides: %v", d)
	}
	c.Trial = Trial{}
	if d := Differences([]Values{b}, []Values{c}); len(d) != 1 {
		t.Errorf("differences of two scenarios' runs: %v; want the scenario", d)
	}
	// Runs of two sessions, or two runs of a side in one round, are not
	// rounds: they compare as independent sets.
	other := trial("t", 2, "b", 1000)
	if _, _, ok := rounds(base, []Values{cand[0], other}); ok {
		t.Error("runs of two sessions paired")
	}
	if _, _, ok := rounds(base, []Values{cand[0], trial("s", 1, "c", 900)}); ok {
		t.Error("two candidate runs in one round paired")
	}
}

// A/A over many simulated interleaved comparisons with drift: false
// verdicts (regressed or improved) stay under 1 % at the default
// threshold, as the calibration on real runs (bench/calibrate.sh) asks.
func TestRoundsAARarelyDecideAChange(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const trials = 4000
	false_ := 0
	for k := 0; k < trials; k++ {
		var base, cand []Values
		n := 2 + k%5
		for i := 1; i <= n; i++ {
			machine := math.Exp(0.08 * r.NormFloat64())
			base = append(base, trial("s", i, "a", 1000*machine*math.Exp(0.03*r.NormFloat64())))
			cand = append(cand, trial("s", i, "b", 1000*machine*math.Exp(0.03*r.NormFloat64())))
		}
		switch Compare(base, cand, DefaultThreshold, nil).Rows[0].Verdict {
		case Regressed, Improved:
			false_++
		}
	}
	if rate := float64(false_) / trials; rate > 0.01 {
		t.Errorf("A/A with drift: %.2f %% false verdicts; want at most 1 %%", 100*rate)
	}
}

// The JUnit report fails the regressed gated figure, skips the
// inconclusive one, passes the rest, and parses back.
func TestJUnit(t *testing.T) {
	var base, cand []Values
	for i := 1; i <= 3; i++ {
		b, c := trial("s", i, "a", 1000+float64(i)), trial("s", i, "b", 800-float64(i))
		b.Figures["latency p99"] = []Sample{{Value: 1000 * float64(i)}}
		c.Figures["latency p99"] = []Sample{{Value: 3000 / float64(i)}}
		base, cand = append(base, b), append(cand, c)
	}
	res := Compare(base, cand, DefaultThreshold, nil)
	var b strings.Builder
	if err := res.JUnit(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if got.Tests != 2 || got.Failures != 1 || got.Skipped != 1 || got.Cases[0].Failure == nil || got.Cases[1].Skipped == nil {
		t.Errorf("junit %+v\n%s", got, b.String())
	}
}
