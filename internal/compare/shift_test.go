package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// nightly is a series of runs of committed tx/s with the given levels
// (one a run) and 2 % noise, each labelled with its commit.
func nightly(r *rand.Rand, levels []float64) []Values {
	var out []Values
	for i, l := range levels {
		out = append(out, Values{Run: fmt.Sprintf("r%02d", i), Commit: fmt.Sprintf("c%02d", i),
			Figures: map[string][]Sample{"committed tx/s": {{Value: l * math.Exp(0.02*r.NormFloat64())}}}})
	}
	return out
}

func levels(parts ...[2]float64) []float64 {
	var out []float64
	for _, p := range parts {
		for i := 0; i < int(p[0]); i++ {
			out = append(out, p[1])
		}
	}
	return out
}

// A 12 % drop after 15 nightly runs is found where it came in, with the
// commit range; a later recovery is a second shift, improved.
func TestShiftsFindTheNewLevel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vs := nightly(r, levels([2]float64{15, 1000}, [2]float64{8, 880}, [2]float64{6, 1000}))
	got := Shifts(vs, "committed tx/s", DefaultThreshold)
	if len(got) != 2 {
		t.Fatalf("shifts %+v; want 2", got)
	}
	if s := got[0]; s.At != 15 || s.Verdict != Regressed || s.Commits != [2]string{"c14", "c15"} || math.Abs(s.Change+12) > 3 {
		t.Errorf("first shift %+v; want at run 15 (c14..c15), regressed about -12 %%", s)
	}
	if s := got[1]; s.At != 23 || s.Verdict != Improved {
		t.Errorf("second shift %+v; want at run 23, improved", s)
	}
}

// A steady branch: over many simulated series of 30 runs with 2 % noise
// at most ShiftAlpha show a shift (plus slack for the simulation); a 3 %
// step, below the 5 % threshold, is no shift either.
func TestShiftsOnASteadyBranchAreRare(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const series = 1000
	alarms := 0
	for i := 0; i < series; i++ {
		if len(Shifts(nightly(r, levels([2]float64{30, 1000})), "committed tx/s", DefaultThreshold)) > 0 {
			alarms++
		}
	}
	if rate := float64(alarms) / series; rate > 2*ShiftAlpha {
		t.Errorf("%.1f %% of steady series shifted; want at most %.0f %%", 100*rate, 200*ShiftAlpha)
	}
	if got := Shifts(nightly(r, levels([2]float64{15, 1000}, [2]float64{15, 970})), "committed tx/s", DefaultThreshold); len(got) != 0 {
		t.Errorf("a 3 %% step: %+v; want none at a 5 %% threshold", got)
	}
	if got := Shifts(nightly(r, levels([2]float64{4, 1000})), "committed tx/s", DefaultThreshold); len(got) != 0 {
		t.Errorf("4 runs: %+v; want none (too few to tell a level)", got)
	}
}
