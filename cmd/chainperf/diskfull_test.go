package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/testnet/providertest"
)

// smallDisk mounts a tmpfs of size MiB for the test and returns it.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	needRoot(t)
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// fill writes into dir until its disk is full.
func fill(t *testing.T, dir string) {
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !strings.Contains(err.Error(), "no space left") {
				t.Fatalf("fill: %v", err)
			}
			return
		}
	}
}

// loadInBackground starts `chainperf load` at the fake chain and returns
// a func that waits for it and gives its output and exit code.
func loadInBackground(t *testing.T, rpc, db, reports string) func() (string, int) {
	var out bytes.Buffer
	cmd := exec.Command(binary, "load", "--rpc", rpc, "--rate", "100", "--duration", "8s", "--drain", "3s", "--db", db, "--report-dir", reports)
	cmd.Env = registryEnv(t, t.TempDir())
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Ended before the disk is unmounted, whatever the test does.
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return func() (string, int) {
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return out.String(), code
	}
}

// A disk that fills during a run: the run ends failed with that reason,
// its end is still recorded (chainperf kept room for it), the reports it
// names are whole, and a later `runs list` calls it failed, not
// interrupted. A disk that cannot be written at all at the end: no
// "stored in" line is printed for a run whose end was not recorded.
func TestDiskFullDuringARun(t *testing.T) {
	if testing.Short() {
		t.Skip("a run")
	}
	t.Parallel()
	rpc := fakeChain(t, providertest.Config{Interval: 200 * time.Millisecond})

	t.Run("fills", func(t *testing.T) {
		disk := smallDisk(t, "24m")
		db, reports := filepath.Join(disk, "runs.db"), filepath.Join(disk, "reports")
		wait := loadInBackground(t, rpc, db, reports)
		time.Sleep(3 * time.Second)
		fill(t, disk)
		out, code := wait()
		t.Logf("exit %d\n%s", code, out)
		if code != 2 || !strings.Contains(out, "disk filled during the run") {
			t.Errorf("exit %d; want 2 and the reason (the disk filled)", code)
		}
		id := regexp.MustCompile(`run (\d{8}-\d{6}-[0-9a-f]{4})`).FindStringSubmatch(out)
		if id == nil || !strings.Contains(out, "stored in "+db) {
			t.Fatalf("no run stored with its end")
		}
		if m := regexp.MustCompile(`report: (\S+summary\.json)`).FindStringSubmatch(out); m != nil {
			var r map[string]any
			if err := json.Unmarshal(mustRead(t, m[1]), &r); err != nil {
				t.Errorf("a report it named is not whole: %v", err)
			}
		}
		os.Remove(filepath.Join(disk, "filler"))
		list, code := cli(t, t.TempDir(), "runs", "list", "--db", db)
		if code != 0 || !regexp.MustCompile(id[1]+`\s+\S+\s+failed`).MatchString(list) {
			t.Errorf("runs list after the disk filled: exit %d\n%s", code, list)
		}
		if leftovers, _ := filepath.Glob(db + "-reserve-*"); len(leftovers) > 0 {
			t.Errorf("the room kept for the run's end is left: %v", leftovers)
		}
	})

	t.Run("no room left at the end", func(t *testing.T) {
		disk := smallDisk(t, "24m")
		db, reports := filepath.Join(disk, "runs.db"), filepath.Join(t.TempDir(), "reports")
		wait := loadInBackground(t, rpc, db, reports)
		time.Sleep(3 * time.Second)
		// The room chainperf kept is taken too (by someone else's file).
		kept, _ := filepath.Glob(db + "-reserve-*")
		for _, k := range kept {
			os.Remove(k)
		}
		fill(t, disk)
		out, code := wait()
		t.Logf("exit %d\n%s", code, out)
		if len(kept) != 1 {
			t.Errorf("room kept for the run's end: %v; want one file", kept)
		}
		if code != 2 || !strings.Contains(out, "could not record the run's end") {
			t.Errorf("exit %d; want 2 and that the run's end was not recorded", code)
		}
		if strings.Contains(out, "stored in") {
			t.Errorf("said \"stored in\" for a run whose end was not recorded")
		}
	})
}
