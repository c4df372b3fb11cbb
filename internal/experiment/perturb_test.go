package experiment

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet/live"
	"github.com/chainperf/chainperf/internal/testnet/providertest"
)

// madeUpClock is a clock whose sleeps end at once, moving its time to
// when they were due: minutes of a timeline pass in no wall time.
type madeUpClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *madeUpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *madeUpClock) SleepUntil(ctx context.Context, t time.Time) bool {
	if ctx.Err() != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
	return true
}

// When a fault begins and ends is decided on the timeline alone: on a
// made-up clock each perturbation begins `at` after the phase's start and
// ends `duration` later, to the nanosecond, however long they are; a kill
// of duration 0 has no end; stopped nodes are seen back at the tip, a
// partition or a latency change stops none.
func TestFaultTimelineOnAMadeUpClock(t *testing.T) {
	for _, tc := range []struct {
		name, perturbation string
		at, lasts          time.Duration // lasts 0: no end
		what               string
		stops              bool
	}{
		{"kill, restarted", "kind = \"kill\"\nnodes = [\"validator3\"]\nat = \"10s\"\nduration = \"5s\"", 10 * time.Second, 5 * time.Second, "kill", true},
		{"kill for good", "kind = \"kill\"\nnodes = [\"validator3\"]\nat = \"20s\"", 20 * time.Second, 0, "kill", true},
		{"pause of minutes", "kind = \"pause\"\nnodes = [\"validator1\"]\nat = \"90s\"\nduration = \"3m\"", 90 * time.Second, 3 * time.Minute, "pause", true},
		{"partition", "kind = \"partition\"\ngroups = [[\"validator0\", \"validator1\"], [\"validator2\", \"validator3\", \"full0\"]]\nat = \"1m\"\nduration = \"2m\"", time.Minute, 2 * time.Minute, "partition", false},
		{"latency", "kind = \"latency\"\nscale = 3.0\nat = \"0s\"\nduration = \"30s\"", 0, 30 * time.Second, "latency x3", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A 10-minute phase, which the made-up clock passes in no time.
			doc := strings.Replace(text("provider = \"netns\"\nuniform_delay = \"5ms\"", `kind = "steady"`, "[[perturbation]]\n"+tc.perturbation+"\n"),
				`duration = "1500ms"`, `duration = "10m"`, 1)
			s, err := scenario.Parse("t.toml", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			mk, _ := providertest.Factory(providertest.Config{Interval: 50 * time.Millisecond})
			net, err := live.Up(context.Background(), s.Testnet, live.UpOptions{Provider: mk})
			if err != nil {
				t.Fatal(err)
			}
			defer net.Down(context.Background())
			start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
			clk := &madeUpClock{now: start}
			rec := newRecorder(context.Background(), nil, "r", slog.New(slog.DiscardHandler))
			rec.now = clk.Now
			end := perturb(context.Background(), net, nil, start, s.Perturbations, rec, clk)
			f, ok := waitFault(rec, tc.lasts > 0, tc.stops)
			if err := end(); err != nil || !ok {
				t.Fatalf("the fault did not run its course in 20 s (%+v): %v", f, err)
			}
			if f.What != tc.what || !f.Begin.Equal(start.Add(tc.at)) {
				t.Errorf("%s began %s at %s; want %s at %s", f.What, f.Nodes, f.Begin.Sub(start), tc.what, tc.at)
			}
			switch {
			case tc.lasts == 0 && !f.End.IsZero():
				t.Errorf("a kill for good ended at %s", f.End.Sub(start))
			case tc.lasts > 0 && !f.End.Equal(start.Add(tc.at+tc.lasts)):
				t.Errorf("ended at %s; want %s", f.End.Sub(start), tc.at+tc.lasts)
			}
			if want := tc.stops && tc.lasts == 0; (f.CatchUp < 0) != want {
				t.Errorf("catch-up %.1f s; want seen %v", f.CatchUp, !want)
			}
		})
	}
}

// waitFault waits (in wall time: the providers' work and the nodes'
// catch-up take some) until the one fault is over as far as it goes.
func waitFault(rec *recorder, ends, stops bool) (results.Fault, bool) {
	var f results.Fault
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		rec.mu.Lock()
		n := len(rec.faults)
		if n == 1 {
			f = rec.faults[0]
		}
		rec.mu.Unlock()
		if n == 1 && (!ends || (!f.End.IsZero() && (!stops || f.CatchUp >= 0))) {
			return f, true
		}
	}
	return f, false
}

// A stop's moment, which names the txs lost with the nodes' mempools, is
// when the last node was gone, not when the stop began: a node that takes
// a while to end on SIGTERM still takes txs meanwhile, and they were
// left unexplained.
func TestStopRecordedWhenTheNodesAreGone(t *testing.T) {
	var gone time.Time
	f := &fault{began: "stop", names: "all", stopsNodes: true, restarts: true, begin: func(context.Context) error {
		time.Sleep(300 * time.Millisecond) // the nodes take their time to end
		gone = time.Now()
		return nil
	}}
	rec := newRecorder(context.Background(), nil, "r", slog.New(slog.DiscardHandler))
	if err := f.do(context.Background(), context.Background(), nil, 0, rec, wall{}); err != nil {
		t.Fatal(err)
	}
	if len(rec.restarts) != 1 {
		t.Fatalf("restarts %+v: want one", rec.restarts)
	}
	if at := rec.restarts[0].at; at.Before(gone) {
		t.Errorf("the stop is recorded %v before the nodes were gone: txs taken meanwhile are not counted lost with them", gone.Sub(at))
	}
}
