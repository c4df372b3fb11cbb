package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
)

// storeRun stores a finished steady run of 30 s whose per-second commits
// and latency are drawn around tps and p99 (2 % noise a second, and noise
// on p99, seeded).
func storeRun(t *testing.T, st *store.Store, id string, status results.Status, tps, p99, noise float64, seed uint64) {
	t.Helper()
	storeRunWith(t, st, id, status, tps, p99, noise, seed, nil)
}

// storeRunWith is storeRun with more set on the run (findings) by add
// before it is stored.
func storeRunWith(t *testing.T, st *store.Store, id string, status results.Status, tps, p99, noise float64, seed uint64, add func(*results.Run)) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	ph := &results.Phase{Name: "steady 1/1", Kind: "steady", Model: "constant 500 tx/s for 30s", Workload: "kvstore", Window: [2]float64{5, 28}, Followed: true}
	var committed int64
	for i := 0; i < 30; i++ {
		c := int64(tps * (1 + 0.02*r.NormFloat64()))
		committed += c
		ph.Ledger.PerSecond = append(ph.Ledger.PerSecond, load.Second{Sent: 500, Accepted: 500, Committed: c,
			LatencyP50: 900, LatencyP99: p99 * (1 + noise*r.NormFloat64())})
	}
	ph.Ledger.Sent = committed
	ph.Ledger.Fates = map[load.Fate]int64{load.FateCommitted: committed}
	ph.Ledger.WindowLatency = load.Percentiles{P50: 900, P99: p99}
	ph.Ledger.Latency = ph.Ledger.WindowLatency
	ph.Figures = results.Compute(ph)
	run := &results.Run{Record: results.Record{ID: id, Scenario: "default", Status: results.StatusRunning, Start: time.Now().UTC()},
		Setup: results.Setup{Nodes: []results.Node{{Name: "validator0", Role: "validator"}}}}
	ctx := context.Background()
	if err := st.Begin(ctx, run, store.Owner{PID: 1, Host: "test"}); err != nil {
		t.Fatal(err)
	}
	run.Phases, run.Status, run.End, run.Passed = []*results.Phase{ph}, status, time.Now().UTC(), true
	if add != nil {
		add(run)
	}
	if err := st.Finish(ctx, run); err != nil {
		t.Fatal(err)
	}
}

// TestCompareGate: the CI gate through the command. Three runs a side of
// a 10 % throughput drop exit 1 (the U test it replaced could not, at
// 3 vs 3); the same again exit 0; one run a side exits 3, saying it cannot
// show how runs differ; a NaN threshold is
// refused before -o's file is touched; an interrupted run needs --force.
func TestCompareGate(t *testing.T) {
	// No node, nothing timed: the beside tier.
	t.Parallel()
	tmp := t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		storeRun(t, st, fmt.Sprintf("base%d", i), results.StatusComplete, 500, 1800, 0.02, uint64(i))
		storeRun(t, st, fmt.Sprintf("slow%d", i), results.StatusComplete, 450, 1800, 0.02, uint64(10+i))
		storeRun(t, st, fmt.Sprintf("same%d", i), results.StatusComplete, 500, 1800, 0.02, uint64(20+i))
	}
	storeRun(t, st, "noisy", results.StatusComplete, 500, 1890, 0.3, 30)
	storeRun(t, st, "cut", results.StatusInterrupted, 500, 1800, 0.02, 31)
	st.Close()
	reg := t.TempDir()

	out, code := cli(t, reg, "compare", "--db", db, "base0,base1,base2", "slow0,slow1,slow2")
	if code != 1 || !strings.Contains(out, "REGRESSED: committed tx/s") {
		t.Errorf("-10 %% at 3+3: exit %d; want 1, committed tx/s regressed\n%s", code, out)
	}
	out, code = cli(t, reg, "compare", "--db", db, "base0,base1,base2", "same0,same1,same2")
	if code != 0 || !strings.Contains(out, "no gated figure regressed") {
		t.Errorf("no change at 3+3: exit %d; want 0\n%s", code, out)
	}
	// A run named three times a side is one run a side, not three: it
	// is refused, not decided on (the repeat made the spread zero and
	// called latency regressed).
	out, code = cli(t, reg, "compare", "--db", db, "base0,base0,base0", "slow0,slow0,slow0")
	if code != 2 || !strings.Contains(out, `run "base0" is named twice`) {
		t.Errorf("repeated IDs: exit %d; want 2 naming the repeat\n%s", code, out)
	}
	// A run on both sides is refused unless forced.
	out, code = cli(t, reg, "compare", "--db", db, "base0,base1", "base1,same1")
	if code != 2 || !strings.Contains(out, "run base1 is on both sides") || !strings.Contains(out, "--force") {
		t.Errorf("a run on both sides: exit %d; want 2 naming it\n%s", code, out)
	}
	if out, code = cli(t, reg, "compare", "--db", db, "--force", "base0,base1", "base1,same1"); code == 2 {
		t.Errorf("a run on both sides with --force: exit %d\n%s", code, out)
	}
	// p99 +5 % at 1+1: one run a side cannot show how runs differ.
	out, code = cli(t, reg, "compare", "--db", db, "base0", "noisy")
	if code != 3 || !strings.Contains(out, "INCONCLUSIVE: committed tx/s, latency p50, latency p99") || !strings.Contains(out, "1 vs 1: one run a side cannot show how runs differ") {
		t.Errorf("+5 %% p99 at 1+1: exit %d; want 3, inconclusive\n%s", code, out)
	}

	report := filepath.Join(tmp, "out.md")
	if err := os.WriteFile(report, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"nan", "inf", "-5", "0"} {
		out, code = cli(t, reg, "compare", "--db", db, "--threshold", bad, "-o", report, "base0", "same0")
		if code != 2 || !strings.Contains(out, "--threshold") {
			t.Errorf("--threshold %s: exit %d\n%s", bad, code, out)
		}
	}
	out, code = cli(t, reg, "compare", "--db", db, "--threshold-for", "latency p99=nan", "-o", report, "base0", "same0")
	if code != 2 {
		t.Errorf("--threshold-for NaN: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(report); string(b) != "kept" {
		t.Errorf("-o file changed by a refused compare: %q", b)
	}

	out, code = cli(t, reg, "compare", "--db", db, "base0", "cut")
	if code != 2 || !strings.Contains(out, "run cut is interrupted") {
		t.Errorf("interrupted candidate: exit %d; want 2 naming it\n%s", code, out)
	}
	if out, code = cli(t, reg, "compare", "--db", db, "--force", "-o", report, "base0,base1,base2", "slow0,slow1,slow2"); code != 1 {
		t.Errorf("--force -o: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(report); !strings.Contains(string(b), "REGRESSED") {
		t.Errorf("-o file: %q", b)
	}
}

// Read-only commands make no database; bad --db paths and a bogus status
// are clear errors (exit 2); exporting a run that is not there fails in
// both formats.
func TestReadOnlyCommandsAndBadDB(t *testing.T) {
	// No node, nothing timed: the beside tier.
	t.Parallel()
	tmp := t.TempDir()
	reg := t.TempDir()
	missing := filepath.Join(tmp, "none.db")
	for _, args := range [][]string{{"runs", "list"}, {"runs", "show", "x"}, {"compare", "a", "b"}, {"report", "x"}} {
		out, code := cli(t, reg, append(args, "--db", missing)...)
		if code != 2 || !strings.Contains(out, "no results database at") {
			t.Errorf("%v on a missing db: exit %d\n%s", args, code, out)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("a read-only command made a database")
	}
	for db, want := range map[string]string{tmp: "is a directory", "/dev/null": "is a device"} {
		if out, code := cli(t, reg, "runs", "list", "--db", db); code != 2 || !strings.Contains(out, want) {
			t.Errorf("--db %s: exit %d\n%s", db, code, out)
		}
	}
	db := filepath.Join(tmp, "runs.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	// Crafted rows: an ID that would put a report outside --report-dir,
	// and a scenario name with a terminal escape sequence.
	storeRun(t, st, "../../escaped", results.StatusComplete, 500, 1800, 0.02, 1)
	storeRun(t, st, "fine", results.StatusComplete, 500, 1800, 0.02, 2)
	st.Close()
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE runs SET scenario = ? WHERE id = 'fine'`, "evil\x1b]0;pwned\x07"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	reports := filepath.Join(tmp, "a", "b")
	if out, code := cli(t, reg, "report", "../../escaped", "--db", db, "--report-dir", reports); code != 2 || !strings.Contains(out, "is not one chainperf makes") {
		t.Errorf("report of a crafted ID: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "escaped")); err == nil {
		t.Error("a crafted run ID wrote a report outside --report-dir")
	}
	if out, _ := cli(t, reg, "runs", "list", "--db", db); strings.Contains(out, "\x1b]0") || !strings.Contains(out, `evil\x1b]0;pwned\x07`) {
		t.Errorf("runs list printed a stored escape sequence raw:\n%q", out)
	}
	if out, code := cli(t, reg, "runs", "list", "--status", "bogus", "--db", db); code != 2 || !strings.Contains(out, `--status "bogus"`) {
		t.Errorf("--status bogus: exit %d\n%s", code, out)
	}
	for _, format := range []string{"json", "csv", "series"} {
		if out, code := cli(t, reg, "runs", "export", "nope", "--format", format, "--db", db); code != 2 {
			t.Errorf("export of no run as %s: exit %d\n%s", format, code, out)
		}
	}
}

// TestTrendForNightlyCI: nine nightly runs whose committed tx/s drops
// 20 % from the sixth on: trend marks the new level there and exits 1
// while it is among the newest 5 runs, 0 when only the newest 3 count;
// a steady series exits 0.
func TestTrendForNightlyCI(t *testing.T) {
	// No node, nothing timed: the beside tier.
	t.Parallel()
	tmp := t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 9; i++ {
		tps := 500.0
		if i >= 5 {
			tps = 400
		}
		storeRun(t, st, fmt.Sprintf("night%d", i), results.StatusComplete, tps, 1800, 0.02, uint64(100+i))
	}
	st.Close()
	reg := t.TempDir()
	out, code := cli(t, reg, "trend", "--db", db, "scenario:default")
	if code != 1 || !regexp.MustCompile(`night5 .*<- new level: regressed -(19|20)\.\d %`).MatchString(out) || !strings.Contains(out, "9 runs, 1 change point(s)") {
		t.Errorf("trend: exit %d; want 1 with the new level at night5\n%s", code, out)
	}
	if out, code := cli(t, reg, "trend", "--db", db, "--recent", "3", "scenario:default"); code != 0 {
		t.Errorf("trend --recent 3: exit %d; want 0 (the level began 4 runs ago)\n%s", code, out)
	}
	if out, code := cli(t, reg, "trend", "--db", db, "scenario:default latest:5"); code != 0 || !strings.Contains(out, "0 change point(s)") {
		t.Errorf("trend of the newest 5 (one level): exit %d\n%s", code, out)
	}
	if out, code := cli(t, reg, "trend", "--db", db, "--figure", "latency p95", "scenario:default"); code != 2 || !strings.Contains(out, `has the figure "latency p95"`) {
		t.Errorf("trend of a figure no run has: exit %d\n%s", code, out)
	}
}

// TestDatabaseOnReadOnlyMedia: a results database on a read-only mount (a
// read-only bind mount of the dir that holds it, as a CD or a snapshot
// would be) is read by every reader, and a command that would write it
// says so in one line, naming the mount's error, before it starts
// anything. (SQLite opens such a file read-only without a word; the first
// write then failed as "out of memory (14)" and nothing could be listed.)
func TestDatabaseOnReadOnlyMedia(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("makes a read-only bind mount: needs root")
	}
	src, ro, reg := t.TempDir(), t.TempDir(), t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(src, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := "20261129-100000-aaaa", "20261129-100100-bbbb"
	storeRun(t, st, a, results.StatusComplete, 500, 1800, 0.02, 1)
	storeRun(t, st, b, results.StatusComplete, 500, 1800, 0.02, 2)
	st.Close()
	mount := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
			t.Fatalf("mount %v: %v\n%s", args, err, out)
		}
	}
	mount("--bind", src, ro)
	t.Cleanup(func() { _ = exec.Command("umount", ro).Run() })
	mount("-o", "remount,bind,ro", ro)
	db := filepath.Join(ro, "runs.db")

	for _, args := range [][]string{
		{"runs", "list"}, {"runs", "show", "latest"}, {"runs", "export", a},
		{"report", a, "--report-dir", filepath.Join(reg, "reports")}, {"compare", a, b},
	} {
		out, code := cli(t, reg, append(args, "--db", db)...)
		if code == 2 || strings.Contains(out, "results database") {
			t.Errorf("%v on a read-only mount: exit %d\n%s", args, code, out)
		}
		if args[1] == "list" && (!strings.Contains(out, a) || !strings.Contains(out, b)) {
			t.Errorf("runs list on a read-only mount lists not both runs:\n%s", out)
		}
	}
	if out, code := cli(t, reg, "runs", "delete", a, "--db", db); code != 2 || !strings.Contains(out, "is read-only here") || !strings.Contains(out, "read-only file system") {
		t.Errorf("runs delete on a read-only mount: exit %d; want 2, saying why\n%s", code, out)
	}
	scn := filepath.Join(reg, "s.toml")
	os.WriteFile(scn, []byte("[load]\nrate = 10\nduration = \"10s\"\n"), 0o644)
	if out, code := cli(t, reg, "run", scn, "--db", db, "--report-dir", filepath.Join(reg, "reports")); code != 2 ||
		!strings.Contains(out, "cannot be written by this process") || strings.Contains(out, "validator0") {
		t.Errorf("run into a read-only database: exit %d; want 2 before any node starts\n%s", code, out)
	}
}
