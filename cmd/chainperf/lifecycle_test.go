package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// patch is the CometBFT patch release the lifecycle tests run beside and
// upgrade to from the embedded v0.38.19, built from its Go module.
const patch = "module:github.com/cometbft/cometbft/cmd/cometbft@v0.38.26"

// TestMixedVersionsAndARollingUpgrade runs a mixed network (validator2
// and validator3 on v0.38.26, the rest on the embedded v0.38.19) under
// load while validator0 and validator1 are upgraded to v0.38.26 one at a
// time: each node says the version it started on and ends on, each
// upgrade is a fault whose node came back to the tip, and every tx sent
// is accounted for, none lost.
func TestMixedVersionsAndARollingUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("builds CometBFT v0.38.26 and starts real nodes")
	}
	code, out, r := runScenario(t, `name = "lifecycle"
[testnet]
validators = 4
full_nodes = 1
[[testnet.versions]]
binary = "embedded"
nodes = ["validator0", "validator1", "full0"]
[[testnet.versions]]
binary = "`+patch+`"
nodes = ["validator2", "validator3"]
[load]
rate = 100
duration = "30s"
[experiment]
kind = "steady"
warmup = "2s"
[[perturbation]]
kind = "upgrade"
to = "`+patch+`"
nodes = ["validator0", "validator1"]
at = "5s"
duration = "2s"
gap = "2s"
[criteria]
max_unresolved = 0
`)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	for _, want := range []string{"versions:   embedded: validator0, validator1 (said 0.38.19, then 0.38.26)",
		"versions:   embedded: full0 (said 0.38.19)", "versions:   " + patch + ": validator2, validator3 (said 0.38.26)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(r.Versions.Node, "upgraded to "+patch) {
		t.Errorf("node line %q does not say the upgrade", r.Versions.Node)
	}
	var upgrades []string
	for _, f := range r.Faults {
		if f.What != "upgrade" {
			continue
		}
		upgrades = append(upgrades, f.Nodes)
		if f.End.IsZero() || f.CatchUp < 0 {
			t.Errorf("upgrade of %s: ended %v, back at the tip after %v: it did not come back", f.Nodes, f.End, f.CatchUp)
		}
		if lasted := f.End.Sub(f.Begin).Seconds(); lasted > 5 {
			t.Errorf("upgrade of %s lasted %.1f s for 2 s down: the stop waited (a kill after the stop timeout?)", f.Nodes, lasted)
		}
	}
	if strings.Join(upgrades, ",") != "validator0,validator1" {
		t.Errorf("upgrades of %q; want validator0 then validator1", upgrades)
	}
	main := r.Main()
	if l := main.Ledger; !l.Balanced() || l.Sent != 3000 || l.Fates["committed"] != 3000 {
		t.Errorf("fates %v of %d sent: every tx must be committed across the upgrade", l.Fates, l.Sent)
	}
}

// TestStateSyncJoin: a fresh full node joins a loaded chain by state
// sync: it restores a snapshot the embedded kvstore took (at a multiple
// of the interval, not from genesis), block-syncs from there to the tip,
// and the rotations table says so.
func TestStateSyncJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real nodes")
	}
	code, out, r := runScenario(t, `name = "state-sync"
[testnet]
validators = 4
full_nodes = 1
snapshot_interval = 10
[load]
rate = 100
duration = "40s"
[experiment]
kind = "rotate"
rotations = 1
rotate_sync = "state"
catchup_timeout = "40s"
[criteria]
max_unresolved = 0
`)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	if len(r.Rotations) != 1 {
		t.Fatalf("rotations %+v", r.Rotations)
	}
	rot := r.Rotations[0]
	if !rot.CaughtUp || rot.Sync != "state" || rot.Snapshot < 10 || rot.Snapshot%10 != 0 || rot.Height < rot.Tip {
		t.Errorf("rotation %+v: want caught up by state sync from a snapshot at a multiple of 10", rot)
	}
	md, err := os.ReadFile(filepath.Join(r.ReportDir, "report.md"))
	if err != nil || !strings.Contains(string(md), "caught up by state sync from the snapshot at height") {
		t.Errorf("report.md does not say the join was by state sync (%v)", err)
	}
}
