package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/results"
)

// netnsState lists what of chainperf's emulated networks exists now:
// namespaces named cpXXXXXX-N and links named cpXXXXXX*.
func netnsState(t *testing.T) []string {
	t.Helper()
	var out []string
	ns, _ := exec.Command("ip", "netns", "list").Output()
	links, _ := exec.Command("ip", "-o", "link", "show").Output()
	for _, line := range strings.Split(string(ns)+string(links), "\n") {
		for _, f := range strings.Fields(line) {
			f = strings.TrimSuffix(strings.Split(f, "@")[0], ":")
			if len(f) >= 8 && strings.HasPrefix(f, "cp") && !strings.ContainsAny(f[:8], "/.") {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// readSummary reads the record.json of the one run under reports.
func readSummary(t *testing.T, reports string) results.Run {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(reports, "*", "record.json"))
	if len(dirs) != 1 {
		t.Fatalf("%d summaries under %s; want 1", len(dirs), reports)
	}
	data, _ := os.ReadFile(dirs[0])
	var r results.Run
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func needRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no iproute2")
	}
}

// TestNetnsPartitionAndDisconnect: 4 validators as emulated hosts; a 2|2
// partition stops the chain until it heals, a disconnected validator
// (1 of 4) does not; every tx keeps its fate, and nothing of the network
// is left after the run.
func TestNetnsPartitionAndDisconnect(t *testing.T) {
	needRoot(t)
	before := netnsState(t)
	tmp := t.TempDir()
	reg, db := t.TempDir(), filepath.Join(tmp, "runs.db")
	scn := filepath.Join(tmp, "netns.toml")
	os.WriteFile(scn, []byte(`name = "netns"
[testnet]
provider = "netns"
validators = 4
full_nodes = 0
[load]
rate = 100
duration = "34s"
[experiment]
kind = "steady"
warmup = "1s"
drain_timeout = "30s"
[criteria]
max_unresolved = 0
[[perturbation]]
kind = "partition"
groups = [["validator0", "validator1"], ["validator2", "validator3"]]
at = "6s"
duration = "10s"
[[perturbation]]
kind = "disconnect"
nodes = ["validator3"]
at = "22s"
duration = "6s"
`), 0o644)
	out, code := cli(t, reg, "run", scn, "--db", db, "--report-dir", filepath.Join(tmp, "reports"))
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	r := readSummary(t, filepath.Join(tmp, "reports"))
	at := map[string]time.Time{}
	for _, e := range r.Events {
		what, _, _ := strings.Cut(e.Detail, " ")
		at[what] = e.At
	}
	for _, want := range []string{"partition", "heal", "disconnect", "reconnect"} {
		if at[want].IsZero() {
			t.Fatalf("events %+v; want partition, heal, disconnect, reconnect", r.Events)
		}
	}
	p := r.Main()
	var inSplit, afterHeal, whileCut int
	for _, b := range p.Blocks {
		switch {
		// A block already being read when the split came may still land.
		case b.Seen.After(at["partition"].Add(2*time.Second)) && b.Seen.Before(at["heal"]):
			inSplit++
		case b.Seen.After(at["heal"]) && b.Seen.Before(at["disconnect"]):
			afterHeal++
		case b.Seen.After(at["disconnect"]) && b.Seen.Before(at["reconnect"]):
			whileCut++
		}
	}
	if inSplit != 0 || afterHeal == 0 || whileCut == 0 {
		t.Errorf("blocks: %d during the 2|2 split (want 0), %d after heal, %d while 1 of 4 was cut (want some)", inSplit, afterHeal, whileCut)
	}
	// The run's fault table says the same: the split stopped the chain
	// for about its 10 s, and blocks came again after the heal.
	if len(r.Faults) != 2 || r.Faults[0].What != "partition" || r.Faults[0].LongestGap < 9 || r.Faults[0].Recovery < 0 {
		t.Fatalf("faults %+v; want the partition with a gap of 9 s or more and a recovery", r.Faults)
	}
	// The reconnected validator was seen back at the tip (in the phase).
	if c := r.Faults[1].CatchUp; c <= 0 {
		t.Errorf("disconnect's catch-up %.1f s; want it measured", c)
	}
	if s := p.Ledger; !s.Balanced() || s.Sent != 3400 {
		t.Errorf("ledger: sent %d, balanced %v", s.Sent, s.Balanced())
	}
	if now := netnsState(t); len(now) != len(before) {
		t.Errorf("after the run: %v; before: %v", now, before)
	}
}

// TestNetnsCleanup: Ctrl-C of a foreground netns testnet removes its
// namespaces, links and processes; after a SIGKILL, `chainperf clean`
// does; a testnet whose nodes die at start (a failure) leaves nothing.
func TestNetnsCleanup(t *testing.T) {
	needRoot(t)
	t.Run("failure", func(t *testing.T) {
		before := netnsState(t)
		scn := filepath.Join(t.TempDir(), "s.toml")
		os.WriteFile(scn, []byte("[testnet]\nprovider = \"netns\"\nvalidators = 2\nfull_nodes = 0\nbinary = \"/bin/false\"\n"), 0o644)
		out, code := cli(t, t.TempDir(), "testnet", "up", "-f", scn)
		if code != 2 || !strings.Contains(out, "exited") {
			t.Errorf("nodes that die: exit %d\n%s", code, out)
		}
		if now := netnsState(t); len(now) != len(before) {
			t.Errorf("left behind: %v (before: %v)", now, before)
		}
	})
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			before := netnsState(t)
			reg := t.TempDir()
			cmd, dir := upForeground(t, reg, "[testnet]\nprovider = \"netns\"\nvalidators = 2\nfull_nodes = 0\n")
			if now := netnsState(t); len(now) <= len(before) {
				t.Fatalf("no namespaces while the testnet runs: %v", now)
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			if sig == syscall.SIGKILL {
				if out, code := cli(t, reg, "clean"); code != 0 || !strings.Contains(out, "removed testnet") {
					t.Errorf("clean: exit %d\n%s", code, out)
				}
			}
			waitNoProcs(t, dir)
			now := netnsState(t)
			for i := 0; i < 50 && len(now) != len(before); i++ {
				time.Sleep(100 * time.Millisecond) // the kernel frees namespaces asynchronously
				now = netnsState(t)
			}
			if len(now) != len(before) {
				t.Errorf("left behind: %v (before: %v)", now, before)
			}
		})
	}
}

// TestNetnsWANSlowsBlocks: 4 validators in 4 regions of the built-in
// table make blocks more slowly than the same testnet with the delays
// scaled to 0 (a latency perturbation), in one run; the run records the
// WAN and its backend.
func TestNetnsWANSlowsBlocks(t *testing.T) {
	needRoot(t)
	tmp := t.TempDir()
	reg, db := t.TempDir(), filepath.Join(tmp, "runs.db")
	scn := filepath.Join(tmp, "wan.toml")
	os.WriteFile(scn, []byte(`name = "wan"
[testnet]
provider = "netns"
validators = 4
full_nodes = 0
zones = ["n-virginia", "frankfurt", "tokyo", "sydney"]
[load]
rate = 50
duration = "44s"
[experiment]
kind = "steady"
warmup = "1s"
drain_timeout = "40s"
[[perturbation]]
kind = "latency"
scale = 0.0
at = "22s"
duration = "20s"
`), 0o644)
	out, code := cli(t, reg, "run", scn, "--db", db, "--report-dir", filepath.Join(tmp, "reports"))
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	r := readSummary(t, filepath.Join(tmp, "reports"))
	if r.WAN == nil || r.WAN.Backend == "" || r.WAN.Zones["validator2"] != "tokyo" {
		t.Fatalf("run's WAN %+v", r.WAN)
	}
	if len(r.Faults) != 1 || !strings.HasPrefix(r.Faults[0].What, "latency x0") {
		t.Fatalf("faults %+v", r.Faults)
	}
	f := r.Faults[0]
	p := r.Main()
	wan, lan := 0, 0
	for _, b := range p.Blocks {
		switch {
		case b.Seen.Before(f.Begin) && b.Seen.After(p.Start):
			wan++
		case b.Seen.After(f.Begin) && b.Seen.Before(f.End):
			lan++
		}
	}
	wanRate := float64(wan) / f.Begin.Sub(p.Start).Seconds()
	lanRate := float64(lan) / f.End.Sub(f.Begin).Seconds()
	t.Logf("blocks/s with the WAN %.2f (%d blocks), without %.2f (%d blocks); backend %s", wanRate, wan, lanRate, lan, r.WAN.Backend)
	if lan < 5 || wanRate > 0.75*lanRate {
		t.Errorf("blocks/s with the WAN %.2f, without %.2f: want the WAN clearly slower", wanRate, lanRate)
	}
	if !p.Ledger.Balanced() {
		t.Error("conservation law broken")
	}
}

// TestNetnsNeedsRoot: as an unprivileged user the netns provider stops
// with a message that says what to do, and leaves nothing.
func TestNetnsNeedsRoot(t *testing.T) {
	needRoot(t)
	dir, err := os.MkdirTemp("", "chainperf-noroot-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	exe := filepath.Join(dir, "chainperf")
	data, _ := os.ReadFile(binary)
	os.WriteFile(exe, data, 0o755)
	scn := filepath.Join(dir, "s.toml")
	os.WriteFile(scn, []byte("[testnet]\nprovider = \"netns\"\nvalidators = 1\nfull_nodes = 0\n"), 0o644)
	cmd := exec.Command(exe, "testnet", "up", "-f", scn)
	cmd.Env = append(registryEnv(t, filepath.Join(dir, "reg")), "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), "needs root: run chainperf as root, or use [testnet] provider = \"process\"") {
		t.Errorf("as nobody: exit %d, %v\n%s", code, err, out)
	}
}
