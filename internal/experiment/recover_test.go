package experiment

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet/process"
)

// TestRecoverKnowsAReboot: a run whose harness process is alive stays
// running, one whose harness ended is interrupted, and one written in
// another boot is interrupted even though its PID and start time match a
// live process now (after a reboot they may be someone else's).
func TestRecoverKnowsAReboot(t *testing.T) {
	if BootID() == "" {
		t.Skip("no /proc/sys/kernel/random/boot_id")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	start, err := process.StartTime(live.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	dead.Run()
	deadStart := uint64(1)
	host := results.ReadHost().Hostname
	owners := map[string]store.Owner{
		"alive":        {PID: live.Process.Pid, Start: start, Host: host, Boot: BootID()},
		"alive-noboot": {PID: live.Process.Pid, Start: start, Host: host}, // stored before boot IDs
		"ended":        {PID: dead.Process.Pid, Start: deadStart, Host: host, Boot: BootID()},
		"other-boot":   {PID: live.Process.Pid, Start: start, Host: host, Boot: "00000000-0000-0000-0000-000000000000"},
	}
	for id, o := range owners {
		r := &results.Run{Record: results.Record{ID: id, Scenario: "s", Status: results.StatusRunning, Start: time.Now()}}
		if err := st.Begin(ctx, r, o); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := Recover(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, id := range ids {
		got[id] = true
	}
	want := map[string]bool{"ended": true, "other-boot": true}
	for id := range owners {
		if got[id] != want[id] {
			t.Errorf("run %s interrupted: %v, want %v", id, got[id], want[id])
		}
	}
	r, err := st.Run(ctx, "other-boot")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != results.StatusInterrupted || r.Error == "" {
		t.Errorf("other-boot: %s %q", r.Status, r.Error)
	}
}
