package compare

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
)

// aaSession is an interleaved session of rounds runs a side whose latency
// p50 varies by sd (log scale) around 900 ms, and whose candidate runs
// set what settings says.
func aaSession(id string, rounds int, sd float64, settings string, r *rand.Rand) [2][]Values {
	var s [2][]Values
	for round := 1; round <= rounds; round++ {
		for side := range 2 {
			v := Values{Run: fmt.Sprintf("%s-%d-%d", id, round, side), Trial: Trial{Session: id, Round: round}, Figures: map[string][]Sample{}}
			if side == 1 {
				v.Settings = settings
			}
			v.set("latency p50", 900*math.Exp(sd*r.NormFloat64()))
			s[side] = append(s[side], v)
		}
	}
	return s
}

// TestCalibrationFromAASessions: the spread of a round's change is read
// back from A/A sessions; more rounds show smaller changes; a change at
// or under the threshold is never called; a session that changed its
// settings between sides is not noise and is left out.
func TestCalibrationFromAASessions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var sessions [][2][]Values
	for i := range 4 {
		sessions = append(sessions, aaSession(fmt.Sprint("s", i), 10, 0.03, "", r))
	}
	sessions = append(sessions, aaSession("planted", 10, 0.3, "config.consensus.timeout_commit=1.05s", r))
	c := Calibrate("kv", sessions)
	if len(c.Sessions) != 4 || c.Rounds != 40 || len(c.Figures) != 1 {
		t.Fatalf("calibration: %+v; want the 4 A/A sessions' 40 rounds, one figure", c)
	}
	n := c.Figures[0]
	// A round's change is the difference of two runs: sqrt(2) runs' spread.
	if want := 0.03 * math.Sqrt2; math.Abs(n.SD-want) > 0.25*want {
		t.Errorf("spread of a round's change %.4f; want about %.4f", n.SD, want)
	}
	if a, b := n.Smallest(3, 1), n.Smallest(10, 1); !(b < a) {
		t.Errorf("smallest change after 3 rounds %.1f %%, after 10 %.1f %%: want fewer from more rounds", a, b)
	}
	r5, r10 := n.RoundsFor(5, 2, 3, 50), n.RoundsFor(10, 2, 3, 50)
	if r10 == 0 || r5 <= r10 {
		t.Errorf("rounds for 5 %% %d, for 10 %% %d: want 10 %% decided, in fewer rounds than 5 %%", r5, r10)
	}
	if got := n.Smallest(r10, 2); got > 10 {
		t.Errorf("after %d rounds the smallest change called is %.1f %%: want at most 10", r10, got)
	}
	if r := n.RoundsFor(5, 5, 3, 50); r != 0 {
		t.Errorf("a 5 %% change at a 5 %% threshold: %d rounds; want never", r)
	}
	text := strings.Join(c.Lines([]string{"latency p50"}, 5, nil, 3, 10), "\n")
	t.Log(text)
	for _, want := range []string{"4 A/A session(s)", "40 rounds", "latency p50: ±", "3 % never (threshold 5 %)", "10 % "} {
		if !strings.Contains(text, want) {
			t.Errorf("calibration lines lack %q:\n%s", want, text)
		}
	}
	none := Calibrate("kv", sessions[4:])
	if text := strings.Join(none.Lines(nil, 5, nil, 3, 10), "\n"); !strings.Contains(text, "no A/A session of scenario \"kv\"") {
		t.Errorf("with no A/A session: %s", text)
	}
}

// TestStoredCalibration: the A/A sessions of a scenario are found in the
// store by their labels; an A/B session of the same scenario and runs of
// another scenario are not pooled.
func TestStoredCalibration(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := rand.New(rand.NewPCG(3, 4))
	put := func(id, scenario, session, side string, round int, p50 float64, config map[string]any) {
		ph := &results.Phase{Name: "steady 1/1", Kind: "steady", Model: "constant 500 tx/s for 30s", Workload: "kvstore", Window: [2]float64{5, 28}, Followed: true}
		for range 30 {
			ph.Ledger.PerSecond = append(ph.Ledger.PerSecond, load.Second{Sent: 500, Accepted: 500, Committed: 500, LatencyP50: p50, LatencyP99: 2 * p50})
		}
		ph.Ledger.Sent = 15000
		ph.Ledger.Fates = map[load.Fate]int64{load.FateCommitted: 15000}
		ph.Ledger.WindowLatency = load.Percentiles{P50: p50, P99: 2 * p50}
		ph.Ledger.Latency = ph.Ledger.WindowLatency
		ph.Figures = results.Compute(ph)
		run := &results.Run{Record: results.Record{ID: id, Scenario: scenario, Status: results.StatusRunning, Start: time.Now().UTC(),
			Labels: map[string]string{"ab": session, "side": side}, Trial: &results.Trial{Session: session, Round: round, Side: side}},
			Setup: results.Setup{Nodes: []results.Node{{Name: "validator0", Role: "validator"}}, Config: config}}
		if err := st.Begin(ctx, run, store.Owner{PID: 1, Host: "test"}); err != nil {
			t.Fatal(err)
		}
		run.Phases, run.Status, run.End, run.Passed = []*results.Phase{ph}, results.StatusComplete, time.Now().UTC(), true
		if err := st.Finish(ctx, run); err != nil {
			t.Fatal(err)
		}
	}
	for round := 1; round <= 4; round++ {
		for _, side := range []string{"baseline", "candidate"} {
			put(fmt.Sprintf("aa-%d-%s", round, side), "kv", "aa", side, round, 900*math.Exp(0.02*r.NormFloat64()), nil)
			var later map[string]any
			if side == "candidate" {
				later = map[string]any{"consensus.timeout_commit": "2s"}
			}
			put(fmt.Sprintf("ab-%d-%s", round, side), "kv", "ab", side, round, 900*math.Exp(0.5*r.NormFloat64()), later)
			put(fmt.Sprintf("other-%d-%s", round, side), "other", "other", side, round, 900*math.Exp(0.5*r.NormFloat64()), nil)
		}
	}
	c, err := StoredCalibration(ctx, st, "kv")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sessions) != 1 || c.Sessions[0] != "aa" || c.Rounds != 4 {
		t.Fatalf("stored calibration of kv: sessions %v over %d rounds; want the A/A session aa's 4", c.Sessions, c.Rounds)
	}
	for _, n := range c.Figures {
		if n.Figure == "latency p50" && n.SD > 0.1 {
			t.Errorf("latency p50 spread %.3f: the A/B session's (0.5) was pooled", n.SD)
		}
	}
}

// session is n interleaved rounds of committed tx/s on a drifting
// machine: the candidate changed by change, each run by noise (log sd).
func session(id string, n int, change, noise float64, r *rand.Rand) [2][]Values {
	var s [2][]Values
	for i := 1; i <= n; i++ {
		machine := math.Exp(0.08 * r.NormFloat64())
		s[0] = append(s[0], trial(id, i, "a", 1000*machine*math.Exp(noise*r.NormFloat64())))
		s[1] = append(s[1], trial(id, i, "b", 1000*(1+change)*machine*math.Exp(noise*r.NormFloat64())))
	}
	return s
}

// TestCalibrationPoolsTheSpread: three rounds cannot call a 4 % change on
// their own (Student's t at 2 degrees of freedom), and with the spread of
// 40 A/A rounds of the same setup they do, on another node build too; a
// calibration of other settings is not used, and says so.
func TestCalibrationPoolsTheSpread(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var aas [][2][]Values
	for i := range 4 {
		aas = append(aas, session(fmt.Sprint("aa", i), 10, 0, 0.005, r))
	}
	cal := Calibrate("kv", aas)
	s := session("ab", 3, 0.04, 0.005, r)
	alone := Compare(s[0], s[1], 2, nil).Rows[0]
	pooled := CompareCalibrated(s[0], s[1], 2, nil, &cal)
	if alone.Verdict != Inconclusive || pooled.Rows[0].Verdict != Regressed && pooled.Rows[0].Verdict != Improved {
		t.Errorf("+4 %% over 3 rounds: alone %s (%+.1f..%+.1f), pooled %s (%+.1f..%+.1f); want inconclusive, then called",
			alone.Verdict, alone.Low, alone.High, pooled.Rows[0].Verdict, pooled.Rows[0].Low, pooled.Rows[0].High)
	}
	if cells := pooled.Rows[0].Cells(); !strings.HasSuffix(cells[4], "3 rounds, spread +40 A/A") {
		t.Errorf("interval cell %q; want the calibration's rounds named", cells[4])
	}
	if !strings.Contains(strings.Join(pooled.Notes, "\n"), "pooled with the 40 rounds of 4 A/A session(s)") {
		t.Errorf("notes do not say the spread was pooled: %v", pooled.Notes)
	}
	// A baseline on another node build (a pull request's base): pooled,
	// and said.
	for i := range s[0] {
		s[0][i].Node, s[1][i].Node = "cometbft v0.38.20", "cometbft v0.38.20"
	}
	if built := CompareCalibrated(s[0], s[1], 2, nil, &cal); built.Rows[0].Pooled != 40 || !strings.Contains(strings.Join(built.Notes, "\n"), `this baseline "cometbft v0.38.20"`) {
		t.Errorf("a baseline on another build: pooled %d rounds, notes %v; want the calibration used and the builds named", built.Rows[0].Pooled, built.Notes)
	}
	for i := range s[0] {
		s[0][i].Settings, s[1][i].Settings = "config.p2p.flush_throttle_timeout=10ms", "config.p2p.flush_throttle_timeout=10ms"
	}
	other := CompareCalibrated(s[0], s[1], 2, nil, &cal)
	if other.Rows[0].Verdict != alone.Verdict || !strings.Contains(strings.Join(other.Notes, "\n"), "not used") {
		t.Errorf("a calibration of other settings: %s, notes %v; want it not used", other.Rows[0].Verdict, other.Notes)
	}
}

// TestCalibratedAARarelyDecideAChange: A/A sessions of 3 to 10 rounds on
// a drifting machine, each judged after every round (as ab looks) with
// the spread of an earlier calibration of 40 rounds pooled in: at most
// 1 % end with a change called at a 2 % threshold.
func TestCalibratedAARarelyDecideAChange(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const trials = 1000
	false_ := 0
	for k := range trials {
		noise := 0.005 + 0.02*float64(k%4)/3 // setups from steady to noisy
		var aas [][2][]Values
		for i := range 4 {
			aas = append(aas, session(fmt.Sprint("aa", i), 10, 0, noise, r))
		}
		cal := Calibrate("kv", aas)
		s := session("ab", 10, 0, noise, r)
		for n := 3; n <= 10; n++ {
			v := CompareCalibrated(s[0][:n], s[1][:n], 2, nil, &cal).Rows[0].Verdict
			if v == Regressed || v == Improved {
				false_++
			}
			if v != Inconclusive {
				break
			}
		}
	}
	t.Logf("calibrated A/A: %d of %d sessions called a change", false_, trials)
	if rate := float64(false_) / trials; rate > 0.01 {
		t.Errorf("calibrated A/A: %.2f %% of sessions called a change; want at most 1 %%", 100*rate)
	}
}

// TestCalibrationFromAQuieterDay: sessions twice as noisy as the day they
// were calibrated on still call a change in at most 1.5 % of A/A
// sessions, and a planted 3 % in at least 9 of 10.
func TestCalibrationFromAQuieterDay(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const trials = 1000
	false_, called := 0, 0
	first := func(s [2][]Values, cal *Calibration) string {
		for n := 3; n <= 10; n++ {
			if v := CompareCalibrated(s[0][:n], s[1][:n], 2, nil, cal).Rows[0].Verdict; v != Inconclusive {
				return v
			}
		}
		return Inconclusive
	}
	for range trials {
		var aas [][2][]Values
		for i := range 4 {
			aas = append(aas, session(fmt.Sprint("aa", i), 10, 0, 0.005, r))
		}
		cal := Calibrate("kv", aas)
		if v := first(session("ab", 10, 0, 0.01, r), &cal); v == Regressed || v == Improved {
			false_++
		}
		if first(session("p", 10, 0.03, 0.01, r), &cal) == Improved {
			called++
		}
	}
	t.Logf("twice as noisy as calibrated: %d of %d A/A sessions called a change, %d planted 3 %% called", false_, trials, called)
	if false_ > trials*15/1000 || called < trials*9/10 {
		t.Errorf("twice as noisy as calibrated: %d of %d A/A sessions called a change (want at most 1.5 %%), %d of %d planted 3 %% called (want 90 %%)", false_, trials, called, trials)
	}
}
