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

// Ctrl-C in round 3 leaves a verdict on rounds 1 and 2.
func TestRunInterruptedKeepsTheRoundsThatRan(t *testing.T) {
	m := &machine{r: rand.New(rand.NewPCG(6, 6)), level: 1, change: -0.3}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := func(c context.Context, tr results.Trial) (compare.Values, error) {
		if tr.Round == 3 && tr.Seq == 6 {
			cancel()
			return compare.Values{}, c.Err()
		}
		return m.run(c, tr)
	}
	p := plan()
	p.MinRounds = 5
	out, err := Run(ctx, p, run, nil)
	if err != nil || !out.Interrupted || out.Rounds != 2 {
		t.Fatalf("err %v, interrupted %v, %d rounds", err, out.Interrupted, out.Rounds)
	}
	if row := out.Result.Rows[0]; row.Rounds != 2 || row.Verdict != compare.Regressed {
		t.Errorf("verdict on what ran: %s over %d rounds; want regressed over 2", row.Verdict, row.Rounds)
	}
	if notes := strings.Join(out.Result.Notes, " "); !strings.Contains(notes, "left out") {
		t.Errorf("notes %q; want round 3's lone run left out", notes)
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
}
