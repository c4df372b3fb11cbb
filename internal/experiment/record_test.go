package experiment

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/selfcost"
	"github.com/chainperf/chainperf/internal/store"
)

// parked is what the test's goroutine runs, named so its stack can be
// found in a goroutine profile.
func parked(started, release chan struct{}) { close(started); <-release }

// A store write counts as the store's, and leaves the goroutine that
// asked for it in its own component: a goroutine it starts afterwards is
// still the observer's. (pprof.Do on the recorder's context left the
// caller's goroutine with no label at all, and the follower's and the
// observer's later goroutines counted as "other".)
func TestStoreWriteKeepsTheCallersComponent(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rc := newRecorder(ctx, st, "r", slog.New(slog.NewTextHandler(io.Discard, nil)))
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	wrote := false
	selfcost.Do(ctx, selfcost.Observer, func(context.Context) {
		rc.write(func(*store.Store) error { wrote = true; return nil })
		go parked(started, release)
	})
	<-started
	if !wrote {
		t.Fatal("the write did not run")
	}
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		t.Fatal(err)
	}
	for _, g := range strings.Split(b.String(), "\n\n") {
		if !strings.Contains(g, "experiment.parked+") {
			continue
		}
		if !strings.Contains(g, `"chainperf":"observer"`) {
			t.Fatalf("the goroutine started after a store write is not the observer's:\n%s", g)
		}
		return
	}
	t.Fatalf("no parked goroutine in the profile:\n%s", b.String())
}

// A relayer's pause says in the faults table when the packets it held up
// were through, or that they were not by the run's end.
func TestRelayerPauseCatchUp(t *testing.T) {
	rec := newRecorder(context.Background(), nil, "r", slog.New(slog.DiscardHandler))
	first := rec.began("pause", "relayer", false)
	rec.ended(first, "continue")
	second := rec.began("pause", "relayer", false)
	rec.ended(second, "continue")
	rec.caughtUp(first, 1500*time.Millisecond)
	rec.notCaughtUp(second)
	var r results.Run
	rec.into(&r)
	if len(r.Faults) != 2 || r.Faults[0].CatchUp != 1.5 || r.Faults[1].CatchUp != -1 {
		t.Fatalf("faults %+v", r.Faults)
	}
	var rows []string
	for _, row := range results.FaultsFinding(r.Faults).Tables[0].Rows {
		rows = append(rows, strings.Join(row, " | "))
	}
	all := strings.Join(rows, "\n")
	if !strings.Contains(all, "1.5 s after its end") || !strings.Contains(all, "not seen") {
		t.Errorf("faults table:\n%s", all)
	}
}
