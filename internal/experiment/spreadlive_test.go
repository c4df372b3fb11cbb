package experiment

import (
	"encoding/json"
	"testing"

	"github.com/chainperf/chainperf/internal/load"
)

// Two generators' live lines add up: counts summed, seconds summed over
// the generators with a later word on a second replacing the earlier,
// latency the highest; results, log lines and lines of a generator that
// is not one of the phase's are left out.
func TestLiveMerge(t *testing.T) {
	m := newLiveMerge(2)
	if _, ok := m.summary(); ok {
		t.Fatal("a summary before any generator said a word")
	}
	line := func(g GeneratorLive) []byte { g.Live = true; b, _ := json.Marshal(g); return b }
	m.add(line(GeneratorLive{Index: 0, Sent: 100, Fates: map[load.Fate]int64{load.FateCommitted: 40}, Latency: load.Percentiles{P99: 900},
		From: 0, Seconds: []load.Second{{Sent: 50}, {Sent: 50, Committed: 40}}}))
	m.add(line(GeneratorLive{Index: 1, Sent: 98, Fates: map[load.Fate]int64{load.FateCommitted: 30}, Latency: load.Percentiles{P99: 1200},
		From: 0, Seconds: []load.Second{{Sent: 49}, {Sent: 49, Committed: 30}}}))
	// Generator 0 again: second 1 grew, second 2 began.
	m.add(line(GeneratorLive{Index: 0, Sent: 150, Fates: map[load.Fate]int64{load.FateCommitted: 90},
		From: 1, Seconds: []load.Second{{Sent: 50, Committed: 45}, {Sent: 50, Committed: 45}}}))
	m.add([]byte(`{"index":0,"ledger":{}}`))                                       // its result
	m.add([]byte(`time=... level=WARN msg="a node is slow"`))                      // a log line
	m.add(line(GeneratorLive{Index: 2, Sent: 1 << 40}))                            // not one of the two
	m.add(line(GeneratorLive{Index: 1, From: -1, Seconds: []load.Second{{}}}))     // a second before the start
	m.add(line(GeneratorLive{Index: 1, From: 0, Seconds: make([]load.Second, 9)})) // more seconds than a line has
	s, ok := m.summary()
	if !ok || s.Sent != 248 || s.Fates[load.FateCommitted] != 120 || s.Latency.P99 != 1200 {
		t.Errorf("sent %d, committed %d, p99 %.0f; want 248, 120, 1200 (the highest)", s.Sent, s.Fates[load.FateCommitted], s.Latency.P99)
	}
	want := []load.Second{{Sent: 99}, {Sent: 99, Committed: 75}, {Sent: 50, Committed: 45}}
	if len(s.PerSecond) != len(want) {
		t.Fatalf("seconds %+v; want %+v", s.PerSecond, want)
	}
	for i := range want {
		if s.PerSecond[i] != want[i] {
			t.Errorf("second %d: %+v; want %+v", i, s.PerSecond[i], want[i])
		}
	}
}

// A generator's live line carries its last seconds only.
func TestLiveOf(t *testing.T) {
	s := load.Summary{Sent: 10, PerSecond: make([]load.Second, 7)}
	if g := liveOf(3, s); !g.Live || g.Index != 3 || g.From != 4 || len(g.Seconds) != liveSeconds {
		t.Errorf("%+v; want generator 3's seconds 4-6", g)
	}
}
