package interleave

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/results"
)

// machine is a made-up machine that drifts from one run to the next by
// several percent, with a candidate level change (a fraction).
type machine struct {
	r      *rand.Rand
	level  float64
	change float64
	runs   []results.Trial
}

func (m *machine) run(_ context.Context, t results.Trial) (compare.Values, error) {
	m.level *= math.Exp(0.03 * m.r.NormFloat64()) // the drift
	v := 1000 * m.level * math.Exp(0.005*m.r.NormFloat64())
	if t.Side == Candidate {
		v *= 1 + m.change
	}
	m.runs = append(m.runs, t)
	return compare.Values{Run: t.Side, Trial: compare.Trial{Session: t.Session, Round: t.Round},
		Figures: map[string][]compare.Sample{"committed tx/s": {{Value: v, SE: v * 0.003, DF: 6}}}}, nil
}

func plan() Plan {
	return Plan{Session: "s", MinRounds: 2, MaxRounds: 12, Threshold: compare.DefaultThreshold, Seed: 1}
}

// Unchanged and a planted -15 % are each decided before the last round,
// and the verdict is right; the order within rounds is random.
func TestRunStopsWhenDecided(t *testing.T) {
	for _, c := range []struct {
		change  float64
		verdict string
	}{{0, compare.Unchanged}, {-0.15, compare.Regressed}} {
		m := &machine{r: rand.New(rand.NewPCG(3, 3)), level: 1, change: c.change}
		out, err := Run(context.Background(), plan(), m.run, nil)
		if err != nil {
			t.Fatal(err)
		}
		row := out.Result.Rows[0]
		if !out.Decided || row.Verdict != c.verdict || out.Rounds >= 12 {
			t.Errorf("change %+.0f %%: decided %v after %d rounds, %s; want %s before the last round", 100*c.change, out.Decided, out.Rounds, row.Verdict, c.verdict)
		}
		if len(out.Order) != 2*out.Rounds || len(m.runs) != len(out.Order) {
			t.Errorf("%d runs recorded, %d made, %d rounds", len(out.Order), len(m.runs), out.Rounds)
		}
	}
	m := &machine{r: rand.New(rand.NewPCG(4, 4)), level: 1}
	p := plan()
	p.MinRounds, p.MaxRounds = 10, 10
	if _, err := Run(context.Background(), p, m.run, nil); err != nil {
		t.Fatal(err)
	}
	first := map[string]int{}
	for i := 0; i < len(m.runs); i += 2 {
		first[m.runs[i].Side]++
	}
	if first[Baseline] == 0 || first[Candidate] == 0 {
		t.Errorf("sides first in rounds: %v; want both orders", first)
	}
}

// A machine too noisy for the rounds allowed ends undecided, not with a
// guess.
func TestRunEndsUndecided(t *testing.T) {
	m := &machine{r: rand.New(rand.NewPCG(5, 5)), level: 1, change: 0.04}
	noisy := func(ctx context.Context, tr results.Trial) (compare.Values, error) {
		v, _ := m.run(ctx, tr)
		x := &v.Figures["committed tx/s"][0]
		x.Value *= math.Exp(0.2 * m.r.NormFloat64())
		return v, nil
	}
	p := plan()
	p.MaxRounds = 3
	out, err := Run(context.Background(), p, noisy, nil)
	if err != nil || out.Decided || out.Rounds != 3 || out.Result.Rows[0].Verdict != compare.Inconclusive {
		t.Errorf("err %v, decided %v, %d rounds, %s; want 3 rounds, inconclusive", err, out.Decided, out.Rounds, out.Result.Rows[0].Verdict)
	}
}

// Ctrl-C in round 5 leaves a verdict on rounds 1 to 4.
func TestRunInterruptedKeepsTheRoundsThatRan(t *testing.T) {
	m := &machine{r: rand.New(rand.NewPCG(6, 6)), level: 1, change: -0.3}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := func(c context.Context, tr results.Trial) (compare.Values, error) {
		if tr.Round == 5 && tr.Seq == 10 {
			cancel()
			return compare.Values{}, c.Err()
		}
		return m.run(c, tr)
	}
	p := plan()
	p.MinRounds = 6
	out, err := Run(ctx, p, run, nil)
	if err != nil || !out.Interrupted || out.Rounds != 4 {
		t.Fatalf("err %v, interrupted %v, %d rounds", err, out.Interrupted, out.Rounds)
	}
	if row := out.Result.Rows[0]; row.Rounds != 4 || row.Verdict != compare.Regressed {
		t.Errorf("verdict on what ran: %s over %d rounds; want regressed over 4", row.Verdict, row.Rounds)
	}
	if notes := strings.Join(out.Result.Notes, " "); !strings.Contains(notes, "left out") {
		t.Errorf("notes %q; want round 5's lone run left out", notes)
	}
}

func TestPlanChecks(t *testing.T) {
	p := plan()
	p.MinRounds = 1
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "one round cannot") {
		t.Errorf("one round: %v", err)
	}
	p = plan()
	p.Figures = []string{"latency p95"}
	m := &machine{r: rand.New(rand.NewPCG(7, 7)), level: 1}
	if _, err := Run(context.Background(), p, m.run, nil); err == nil || !strings.Contains(err.Error(), `no figure "latency p95"`) {
		t.Errorf("unknown figure: %v", err)
	}
	p = plan()
	p.Per = map[string]float64{"latency p95": 20}
	if _, err := Run(context.Background(), p, m.run, nil); err == nil || !strings.Contains(err.Error(), `--threshold-for: no figure "latency p95"`) {
		t.Errorf("unknown figure in per-figure thresholds: %v", err)
	}
}

// A/A sessions stopped as soon as decided look at the data after every
// round, and each look is a chance of a false verdict. Over 2,000
// simulated sessions of 3 to 10 rounds on a drifting machine, with a
// run-to-run noise like latency p99's on this machine (4 % within a
// round), at most 1 % end regressed or improved, and a planted +20 % is
// found in at least 90 %.
func TestSequentialAARarelyDecideAChange(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	const sessions = 2000
	wrong, found, rounds := 0, 0, 0
	for i := 0; i < 2*sessions; i++ {
		level, change := 1.0, 1.0
		if i >= sessions {
			change = 1.2 // planted: p99 +20 %
		}
		run := func(_ context.Context, tr results.Trial) (compare.Values, error) {
			level *= math.Exp(0.03 * r.NormFloat64())
			v := 1000 * level * math.Exp(0.04*r.NormFloat64())
			if tr.Side == Candidate {
				v *= change
			}
			return compare.Values{Run: tr.Side, Trial: compare.Trial{Session: tr.Session, Round: tr.Round},
				Figures: map[string][]compare.Sample{"latency p99": {{Value: v, SE: v * 0.02, DF: 6}}}}, nil
		}
		p := plan()
		p.MinRounds, p.MaxRounds, p.Seed = 3, 10, uint64(i)
		out, err := Run(context.Background(), p, run, nil)
		if err != nil {
			t.Fatal(err)
		}
		v := out.Result.Rows[0].Verdict
		switch {
		case i < sessions && (v == compare.Regressed || v == compare.Improved):
			wrong++
		case i >= sessions && v == compare.Regressed:
			found++
			rounds += out.Rounds
		}
	}
	if rate := float64(wrong) / sessions; rate > 0.01 {
		t.Errorf("%.2f %% of A/A sessions decided a change; want at most 1 %%", 100*rate)
	}
	// And the planted +20 %: found in most sessions, in a few rounds.
	if rate := float64(found) / sessions; rate < 0.9 {
		t.Errorf("+20 %% p99 found in %.1f %% of sessions; want 90 %%", 100*rate)
	}
	t.Logf("A/A false %.2f %%; +20 %% found in %.1f %% of sessions, %.1f rounds on average", 100*float64(wrong)/sessions, 100*float64(found)/sessions, float64(rounds)/float64(max(found, 1)))
}
