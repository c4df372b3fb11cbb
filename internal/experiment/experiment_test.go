package experiment

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet/providertest"
	"github.com/chainperf/chainperf/internal/traces"
)

// TestMain gives the tests a testnet registry of their own (they run in
// parallel: the fake's nodes mostly wait).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "chainperf-registry-")
	if err != nil {
		panic(err)
	}
	os.Setenv("CHAINPERF_REGISTRY", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// text is a small testnet with short phases (the fake makes a block every
// 50 ms, so a run takes about as long as its load), with more keys for
// [testnet], [experiment] and the perturbations.
func text(testnet, experiment, rest string) string {
	return `[testnet]
validators = 4
full_nodes = 1
` + testnet + `
[load]
model = "constant"
rate = 200
duration = "1500ms"
[experiment]
warmup = "200ms"
cooldown = "200ms"
drain_timeout = "2s"
pause = "0s"
` + experiment + `
[observe]
interval = "200ms"
` + rest
}

// onFake runs the scenario text (after base) on the fake provider, with
// edit applied to the parsed scenario (for values a user may not set,
// such as a find-max shorter than 10 s); it returns the run and the fake.
func onFake(t *testing.T, file string, cfg providertest.Config, edit func(*scenario.Scenario)) (*results.Run, *providertest.Fake, error) {
	t.Helper()
	s, err := scenario.Parse("t.toml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(s)
	}
	if cfg.Interval == 0 {
		cfg.Interval = 50 * time.Millisecond
	}
	mk, last := providertest.Factory(cfg)
	r, err := Run(context.Background(), s, RunOptions{Provider: mk})
	return r, last(), err
}

// A steady phase on the fake: every tx sent is committed, the committed
// rate is the offered one, the fates add up, the criteria pass, and the
// testnet is gone after.
func TestSteady(t *testing.T) {
	t.Parallel()
	r, fake, err := onFake(t, text("", `kind = "steady"`, ""), providertest.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != results.StatusComplete || !r.Passed {
		t.Fatalf("status %s passed %v: %s", r.Status, r.Passed, r.Error)
	}
	if len(r.Phases) != 1 || r.Phases[0].Kind != scenario.KindSteady || r.Phases[0].Name != "steady 1/1" {
		t.Fatalf("phases %+v", r.Phases)
	}
	p := r.Phases[0]
	if p.Ledger.Sent < 280 || p.Ledger.Fates[load.FateCommitted] != p.Ledger.Sent || !p.Ledger.Balanced() {
		t.Errorf("sent %d, fates %v; want ~300 sent, all committed", p.Ledger.Sent, p.Ledger.Fates)
	}
	if f := p.Figures.CommittedTPS; f < 170 || f > 230 {
		t.Errorf("committed %.1f tx/s; want 200 +- 15 %%", f)
	}
	if len(p.Blocks) < 20 {
		t.Errorf("%d blocks; want one every 50 ms", len(p.Blocks))
	}
	if fake.Height() == 0 {
		t.Error("the fake made no block")
	}
}

// TestTracesOfAChainThatSendsNone: asked of a chain with no application
// traces (kvstore), the run says so and goes on.
func TestTracesOfAChainThatSendsNone(t *testing.T) {
	t.Parallel()
	r, _, err := onFake(t, text("", `kind = "steady"`, "traces = true\n"), providertest.Config{}, nil)
	if err != nil || !r.Passed {
		t.Fatalf("err %v, passed %v", err, r.Passed)
	}
	f, ok := r.Finding(traces.Source)
	if !ok || !strings.Contains(f.Note, "the kvstore chain sends no application traces") {
		t.Fatalf("%+v", f)
	}
}

// A criterion the chain cannot meet fails the run; one it meets passes.
func TestCriteriaVerdict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		min  string
		pass bool
	}{{"100", true}, {"100000", false}} {
		r, _, err := onFake(t, text("", `kind = "steady"`, "[criteria]\nmin_committed_tps = "+tc.min+"\n"), providertest.Config{}, func(s *scenario.Scenario) {
			s.Load.Duration = scenario.Duration(time.Second)
			s.Experiment.Warmup, s.Experiment.Cooldown = 0, 0
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.Passed != tc.pass || len(r.Checks) == 0 {
			t.Errorf("min %s tx/s: passed %v, checks %+v; want %v", tc.min, r.Passed, r.Checks, tc.pass)
		}
	}
}

// find-max on a chain that holds 20 txs a 50 ms block (400 tx/s): the pid
// model finds a rate near it, the result is derived from the find-max
// phase, and it never claims more than the chain can commit.
func TestFindMax(t *testing.T) {
	t.Parallel()
	r, _, err := onFake(t, text("", `kind = "find-max"`, ""), providertest.Config{MaxTxs: 20}, func(s *scenario.Scenario) {
		s.Experiment.FindMaxDuration = scenario.Duration(2500 * time.Millisecond)
		s.Experiment.FindMaxSettle = scenario.Duration(800 * time.Millisecond)
		s.Experiment.Cooldown, s.Experiment.DrainTimeout = 0, scenario.Duration(500*time.Millisecond)
		s.Load.PID.Hold, s.Load.PID.Target = "latency", scenario.Duration(300*time.Millisecond)
		s.Load.PID.StartRate, s.Load.PID.MaxRate = 100, 2000
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Phases) != 1 || r.Phases[0].Kind != scenario.KindFindMax || r.FindMax == nil {
		t.Fatalf("phases %+v, find-max %+v", r.Phases, r.FindMax)
	}
	fm := r.FindMax
	t.Logf("find-max: %+v", fm)
	if !(fm.MaxTPS > 100 && fm.MaxTPS <= 440) {
		t.Errorf("find-max committed %.0f tx/s; want above the start rate and at most the chain's 400 (+10 %%)", fm.MaxTPS)
	}
}

// rotate: two fresh nodes start during the phase, each block-syncs to the
// tip and stops; both are recorded as caught up, with their events.
func TestRotate(t *testing.T) {
	t.Parallel()
	r, _, err := onFake(t, text("", "kind = \"rotate\"\nrotations = 2\ncatchup_timeout = \"2s\"", ""), providertest.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rotations) != 2 {
		t.Fatalf("rotations %+v", r.Rotations)
	}
	for _, rot := range r.Rotations {
		if !rot.CaughtUp || rot.Height < rot.Tip || rot.CatchUp <= 0 {
			t.Errorf("rotation %+v: want caught up at the tip", rot)
		}
	}
	var starts, stops int
	for _, e := range r.Events {
		if e.Kind == "rotation" && strings.HasPrefix(e.Detail, "start rotate") {
			starts++
		}
		if e.Kind == "rotation" && strings.HasPrefix(e.Detail, "stop rotate") {
			stops++
		}
	}
	if starts != 2 || stops != 2 {
		t.Errorf("%d starts, %d stops in %+v", starts, stops, r.Events)
	}
}

// Every fault kind in one phase, one after another: each is recorded as a
// typed fault with its beginning and end; nodes that stopped catch up; a
// 2|2 partition holds the chain (no block while it held), the others do
// not (3 of 4 validators go on). The full node is on one side of the
// partition: outside, it would relay the votes.
func TestEveryFault(t *testing.T) {
	t.Parallel()
	faults := `[[perturbation]]
kind = "kill"
nodes = ["validator3"]
at = "100ms"
duration = "200ms"
[[perturbation]]
kind = "restart"
nodes = ["validator2"]
at = "450ms"
duration = "200ms"
[[perturbation]]
kind = "pause"
nodes = ["validator1"]
at = "800ms"
duration = "200ms"
[[perturbation]]
kind = "disconnect"
nodes = ["validator3"]
at = "1150ms"
duration = "200ms"
[[perturbation]]
kind = "partition"
groups = [["validator0", "validator1", "full0"], ["validator2", "validator3"]]
at = "1500ms"
duration = "300ms"
[[perturbation]]
kind = "latency"
scale = 2.0
at = "1950ms"
duration = "200ms"
`
	file := strings.Replace(text("provider = \"netns\"\nuniform_delay = \"5ms\"", `kind = "steady"`, faults), `duration = "1500ms"`, `duration = "2400ms"`, 1)
	r, _, err := onFake(t, file, providertest.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		what, nodes string
		stops       bool
	}{
		{"kill", "validator3", true}, {"stop", "validator2", true}, {"pause", "validator1", true},
		{"disconnect", "validator3", true}, {"partition", "validator0,validator1,full0|validator2,validator3", false}, {"latency x2", "all", false},
	}
	if len(r.Faults) != len(want) {
		t.Fatalf("faults %+v", r.Faults)
	}
	for i, w := range want {
		f := r.Faults[i]
		if f.What != w.what || f.Nodes != w.nodes || f.End.IsZero() || !f.End.After(f.Begin) {
			t.Errorf("fault %d = %+v; want %s of %s, ended", i, f, w.what, w.nodes)
		}
		if w.stops && f.CatchUp < 0 {
			t.Errorf("%s: catch-up %.1f; want seen", f.What, f.CatchUp)
		}
		if !w.stops && f.CatchUp != 0 {
			t.Errorf("%s: catch-up %.1f; want 0 (it stops no node)", f.What, f.CatchUp)
		}
		if f.Recovery < 0 {
			t.Errorf("%s: no block after it", f.What)
		}
	}
	if p := r.Faults[4]; p.Blocks > 1 || p.LongestGap < 0.28 {
		t.Errorf("partition: %d blocks while it held, longest gap %.2fs; want none and >= its 0.3 s", p.Blocks, p.LongestGap)
	}
	if k := r.Faults[0]; k.Blocks < 2 {
		t.Errorf("kill of 1 of 4 validators: %d blocks while it held; want the chain to go on", k.Blocks)
	}
	if r.Status != results.StatusComplete {
		t.Errorf("status %s: %s", r.Status, r.Error)
	}
}

// A node that dies by itself stops the run after its phase: the crash is
// recorded and no later phase runs.
func TestCrashEndsTheRun(t *testing.T) {
	t.Parallel()
	s, err := scenario.Parse("t.toml", []byte(text("", "kind = \"steady\"\nrepeats = 2", "")))
	if err != nil {
		t.Fatal(err)
	}
	mk, last := providertest.Factory(providertest.Config{Interval: 50 * time.Millisecond})
	r, err := Run(context.Background(), s, RunOptions{Provider: mk, Phase: func(p string) {
		if p == "steady 1/1" || p == "steady 1/2" {
			go func() {
				time.Sleep(500 * time.Millisecond)
				f := last()
				f.Crash(f.Testnet().Node("validator3"), errors.New("exit status 2"))
			}()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Phases) != 1 || len(r.Crashed) != 1 || !strings.HasPrefix(r.Crashed[0], "validator3 (exit status 2)") {
		t.Errorf("phases %d, crashed %v; want 1 phase and validator3", len(r.Phases), r.Crashed)
	}
}

// A fault the scenario's provider cannot do stops the run before any
// testnet is made.
func TestRunRefusesFaultsTheProviderCannotDo(t *testing.T) {
	t.Parallel()
	_, _, err := onFake(t, text("", `kind = "steady"`, `[[perturbation]]
kind = "partition"
groups = [["validator0", "validator1"], ["validator2", "validator3"]]
at = "500ms"
duration = "500ms"
`), providertest.Config{}, nil)
	if err == nil || !strings.Contains(err.Error(), `partition needs provider "netns"`) {
		t.Fatalf("err = %v; want the partition refused for the process provider", err)
	}
}

// Every kind a scenario can name has an implementation.
func TestKindsTable(t *testing.T) {
	t.Parallel()
	for _, k := range scenario.ExperimentKinds {
		if kinds[k] == nil {
			t.Errorf("kind %q has no implementation", k)
		}
	}
}

// The refused and evicted tx counts of a phase: from the mark (or the
// first read after it), a node whose counter was never exported counting
// 0, a node not read at all making it unknown, a node started again (its
// counters from 0) counting what it counted before and after.
func TestMempoolsDropped(t *testing.T) {
	var m mempools
	size := func(n string) observe.Sample {
		return observe.Sample{Node: n, Series: "cometbft_mempool_size", Value: 3}
	}
	refused := func(n string, v float64) observe.Sample {
		return observe.Sample{Node: n, Series: rejectedSeries, Value: v}
	}
	evicted := func(n string, v float64) observe.Sample {
		return observe.Sample{Node: n, Series: evictedSeries, Value: v}
	}
	m.tap([]observe.Sample{size("a"), refused("a", 7), evicted("a", 2), size("b")})
	m.mark()
	m.tap([]observe.Sample{size("a"), refused("a", 10), evicted("a", 6), size("b"), refused("b", 4)})
	if got, ok := m.dropped([]string{"a", "b"}); !ok || got.Refused != 7 || got.Evicted != 4 {
		t.Errorf("dropped %+v, %v; want 3 + 4 refused, 4 evicted", got, ok)
	}
	if _, ok := m.dropped([]string{"a", "c"}); ok {
		t.Error("a node never read: want unknown")
	}
	// a started again: its counters read 0, then 2 and 1; not a loss of
	// what it counted before.
	m.tap([]observe.Sample{size("a")})
	m.tap([]observe.Sample{size("a"), refused("a", 2), evicted("a", 1)})
	if got, _ := m.dropped([]string{"a"}); got.Refused != 5 || got.Evicted != 5 {
		t.Errorf("dropped %+v across a restart; want 3 + 2 refused, 4 + 1 evicted", got)
	}
	// A node first read after the mark: counted from that first read.
	m.tap([]observe.Sample{size("c"), refused("c", 50)})
	m.tap([]observe.Sample{size("c"), refused("c", 55)})
	if got, ok := m.dropped([]string{"c"}); !ok || got.Refused != 5 || got.Evicted != 0 {
		t.Errorf("dropped %+v, %v; want 5 refused since c's first read", got, ok)
	}
}

// qa on a chain that holds 20 txs a 50 ms block (400 tx/s): the light
// cells hold, the heavy one (last: the fake keeps what it could not
// commit) does not; the steady run follows at the saturation cell (the
// held cell of the largest load), named by it.
func TestQA(t *testing.T) {
	t.Parallel()
	r, _, err := onFake(t, text("", `kind = "qa"`, "[criteria]\nload_delivered = false\n"), providertest.Config{MaxTxs: 20}, func(s *scenario.Scenario) {
		s.Experiment.QA = scenario.QA{Connections: []int{1, 2, 60}, Rates: []float64{50}, CellDuration: scenario.Duration(2 * time.Second),
			Warmup: scenario.Duration(500 * time.Millisecond), SaturationShare: 0.97, SteadyDuration: scenario.Duration(time.Second)}
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range r.Phases {
		names = append(names, p.Name)
	}
	want := []string{"qa c=1 r=50", "qa c=2 r=50", "qa c=60 r=50", "qa steady c=2 r=50"}
	if !slices.Equal(names, want) {
		t.Errorf("phases %q; want %q", names, want)
	}
	sw := r.Sweep
	if sw == nil || len(sw.Cells) != 3 || sw.At == nil || sw.At.Connections != 2 || sw.At.Rate != 50 {
		t.Fatalf("grid %+v", sw)
	}
	for _, c := range sw.Cells {
		if c.Expected != int64(float64(c.Connections)*c.Rate*1.5) || c.Saturated != (c.Connections == 60) {
			t.Errorf("cell %+v; want expected c*r*1.5 s, saturated only at 3000 tx/s", c)
		}
	}
	// No cell held: no steady run.
	r, _, err = onFake(t, text("", `kind = "qa"`, "[criteria]\nload_delivered = false\n"), providertest.Config{MaxTxs: 20}, func(s *scenario.Scenario) {
		s.Experiment.QA = scenario.QA{Connections: []int{1}, Rates: []float64{3000}, CellDuration: scenario.Duration(2 * time.Second),
			Warmup: scenario.Duration(500 * time.Millisecond), SaturationShare: 0.97, SteadyDuration: scenario.Duration(time.Second)}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Phases) != 1 || r.Sweep.At != nil || r.Sweep.Saturation != 0 {
		t.Errorf("phases %d, grid %+v; want the one cell and no saturation point", len(r.Phases), r.Sweep)
	}
}
