package store

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
)

// TestImport: a run recorded in one store (as a harness in a cluster
// records it) lands in another whole: its record, blocks, samples,
// events and profiles, the profiles' and report dir's paths renamed. A
// run not ended, or one already there, is refused and leaves nothing.
func TestImport(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	from, r := begun(t, filepath.Join(t.TempDir(), "pod.db"), "run-pod", start)
	for h := int64(1); h <= 3; h++ {
		must(t, from.Block(ctx, r.ID, 0, observe.Block{Height: h, Time: start.Add(time.Duration(h) * time.Second), Seen: start.Add(time.Duration(h) * time.Second), Txs: 5, Ours: 5, Proposer: "AB"}))
	}
	must(t, from.Event(ctx, r.ID, "phase", "steady 1/1"))
	must(t, from.Samples(ctx, r.ID, []observe.Sample{{At: start.Add(time.Second), Node: "validator0", Series: "cometbft_mempool_size", Value: 3}}))
	prof := observe.Profile{Node: "validator0", Kind: "cpu", At: start.Add(2 * time.Second), File: "/out/reports/run-pod/profiles/validator0-cpu.pb.gz", Value: "cpu", Top: []observe.TopFunc{{Func: "f", Flat: 1, Share: 1}}}
	must(t, from.Profile(ctx, r.ID, &prof))
	r.ReportDir = "/out/reports/run-pod"
	r.Profiles = []observe.Profile{prof}
	r.Phases = []*results.Phase{{Ledger: load.Summary{Sent: 15, Fates: map[load.Fate]int64{load.FateCommitted: 15}, PerSecond: []load.Second{{Sent: 15, Committed: 15}}}}}
	rename := func(p string) string { return strings.Replace(p, "/out/reports", "/home/me/reports", 1) }

	// Not ended yet: refused.
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			to, err := Open(ctx, dsn)
			must(t, err)
			defer to.Close()
			if err := to.Import(ctx, from, r.ID, rename); err == nil || !strings.Contains(err.Error(), "has not ended") {
				t.Errorf("import of a running run: %v", err)
			}
		})
	}
	r.Status, r.End, r.Passed = results.StatusComplete, start.Add(time.Minute), true
	must(t, from.Finish(ctx, r))
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			to, err := Open(ctx, dsn)
			must(t, err)
			defer to.Close()
			must(t, to.Import(ctx, from, r.ID, rename))
			got, err := to.Run(ctx, r.ID)
			must(t, err)
			if got.Status != results.StatusComplete || !got.Passed || got.ReportDir != "/home/me/reports/run-pod" || len(got.Phases) != 1 ||
				len(got.Phases[0].Blocks) != 3 || got.Phases[0].Ledger.Sent != 15 || got.Labels["branch"] != "main" {
				t.Errorf("imported run: status %s passed %v dir %s phases %d labels %v", got.Status, got.Passed, got.ReportDir, len(got.Phases), got.Labels)
			}
			if len(got.Profiles) != 1 || got.Profiles[0].File != "/home/me/reports/run-pod/profiles/validator0-cpu.pb.gz" {
				t.Errorf("record's profiles %+v", got.Profiles)
			}
			want, _ := from.Series(ctx, r.ID)
			if series, err := to.Series(ctx, r.ID); err != nil || !reflect.DeepEqual(series, want) {
				t.Errorf("series %+v, %v; want %+v", series, err, want)
			}
			wantEv, _ := from.Events(ctx, r.ID)
			if ev, err := to.Events(ctx, r.ID); err != nil || !reflect.DeepEqual(ev, wantEv) {
				t.Errorf("events %+v, %v; want %+v", ev, err, wantEv)
			}
			if profs, err := to.Profiles(ctx, r.ID); err != nil || len(profs) != 1 || profs[0].File != got.Profiles[0].File || profs[0].Top[0].Func != "f" {
				t.Errorf("profiles %+v, %v", profs, err)
			}
			var rows int
			must(t, to.SecondsCSV(ctx, r.ID, func([]string) error { rows++; return nil }))
			if rows != 2 {
				t.Errorf("%d rows of seconds; want header + 1", rows)
			}
			// Twice: refused, and the first stays whole.
			if err := to.Import(ctx, from, r.ID, rename); err == nil || !strings.Contains(err.Error(), "already") {
				t.Errorf("import twice: %v", err)
			}
			if again, err := to.Run(ctx, r.ID); err != nil || len(again.Phases[0].Blocks) != 3 {
				t.Errorf("after a refused import: %v", err)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
