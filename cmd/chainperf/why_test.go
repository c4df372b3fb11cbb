package main

import (
	"testing"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/why"
)

// explained checks that a run on real nodes says where its time went: the
// node internals (bytes by what they carry, the parts of a block's time,
// the Go runtime), each height's timeline from the nodes' consensus
// events, and (profiles) the window profiles' top functions.
func explained(t *testing.T, r *results.Run, profiles bool) {
	t.Helper()
	in, ok := r.Finding(why.SourceInternals)
	if !ok {
		t.Fatalf("run %s: no node internals", r.ID)
	}
	for _, name := range []string{why.BlockTime, why.BlockTime + ": executing and committing", "p2p sent: block parts", "p2p sent: votes", "allocated"} {
		if x, ok := in.Figure(name); !ok || x.Value <= 0 {
			t.Errorf("run %s: internals figure %q = %+v; want it above 0", r.ID, name, x)
		}
	}
	tl, ok := r.Finding(why.SourceTimeline)
	if !ok {
		t.Fatalf("run %s: no timeline", r.ID)
	}
	if x, ok := tl.Figure("height time"); !ok || x.Value < 100 || len(tl.Charts) == 0 {
		t.Errorf("run %s: height time %+v, %d charts; want a height of at least 100 ms, drawn", r.ID, x, len(tl.Charts))
	}
	if !profiles {
		return
	}
	if p, ok := r.Finding(why.SourceProfiles); !ok || len(p.Tables) < 2 {
		t.Errorf("run %s: window profiles %+v; want the top functions of cpu and allocs", r.ID, p)
	}
}
