package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/report"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
)

const shortScenario = `name = "short"
[testnet]
validators = 2
full_nodes = 1
[load]
rate = 200
duration = "8s"
[experiment]
kind = "steady"
warmup = "2s"
cooldown = "1s"
drain_timeout = "15s"
[criteria]
min_committed_tps = %s
max_unresolved = 0
[observe]
profiles = [{node = "full0", kind = "allocs", at = "2s"}]
window_profiles = [] # the one profile asked for, alone (TestWhyNamesPlantedCauses checks the window's)
# The follower reads validator0 first: restarting it mid-run must lose no
# block. (One of two validators down halts the chain for a few seconds,
# hence the low committed tx/s criterion.)
[[perturbation]]
kind = "restart"
nodes = ["validator0"]
at = "3s"
duration = "2s"
`

// TestRunStoresEverything runs a short scenario end to end on real nodes
// and checks the report against the database: every height present, the
// blocks' tx counts add up to the ledger's committed count, the
// conservation law holds; then a criterion it cannot meet exits 1.
func TestRunStoresEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	tmp := t.TempDir()
	reg, db := t.TempDir(), filepath.Join(tmp, "runs.db")
	scn := filepath.Join(tmp, "short.toml")
	os.WriteFile(scn, []byte(strings.Replace(shortScenario, "%s", "10", 1)), 0o644)
	out, code := cli(t, reg, "run", scn, "--db", db, "--report-dir", filepath.Join(tmp, "reports"), "--label", "branch=test")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.List(ctx, store.Filter{Labels: map[string]string{"branch": "test"}})
	if err != nil || len(runs) != 1 {
		t.Fatalf("stored runs = %v, %v; want 1 labelled branch=test", runs, err)
	}
	r, err := st.Run(ctx, runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != results.StatusComplete || !r.Passed {
		t.Errorf("run status %s passed %v; want complete and passed", r.Status, r.Passed)
	}
	// The end-of-run block again, by a unique start of the run's ID.
	i, j := strings.Index(out, "\nrun "+r.ID+": "), strings.Index(out, "\nstored in ")
	if i < 0 || j < i {
		t.Errorf("no end-of-run block in\n%s", out)
	} else {
		block := out[i+1 : j+1+strings.IndexByte(out[j+1:], '\n')+1]
		again, code := cli(t, reg, "runs", "show", r.ID[:len(r.ID)-2], "--summary", "--db", db)
		if code != 0 || again != block {
			t.Errorf("runs show --summary: exit %d\n%s\nwant the end-of-run block:\n%s", code, again, block)
		}
	}
	// Each node's log, kept after its temp dir went.
	logs, code := cli(t, reg, "runs", "logs", "latest", "--node", "validator0", "--grep", "commit", "--db", db)
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	if code != 0 || len(lines) < 5 {
		t.Errorf("runs logs --node validator0 --grep commit: exit %d, %d lines\n%.2000s", code, len(lines), logs)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "validator0 | ") || !strings.Contains(l, "commit") {
			t.Errorf("runs logs: line %q is not validator0's or has no \"commit\"", l)
			break
		}
	}
	// The per-second CSV: wall-clock time, latency, and the committed
	// txs counted from blocks too (the same txs, by block time).
	csvOut, code := cli(t, reg, "runs", "export", "latest", "--format", "csv", "--db", db)
	recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if code != 0 || err != nil || len(recs) < 10 || strings.Join(recs[0], ",") != strings.Join(results.SecondsHeader, ",") {
		t.Fatalf("runs export --format csv: exit %d, %v\n%.1000s", code, err, csvOut)
	}
	var committed, inBlocks int
	for _, rec := range recs[1:] {
		c, _ := strconv.Atoi(rec[6])
		b, _ := strconv.Atoi(rec[12])
		committed, inBlocks = committed+c, inBlocks+b
		if _, err := time.Parse(time.RFC3339, rec[7]); err != nil || c > 0 && rec[10] == "" {
			t.Errorf("csv row %v: want a time and, with commits, a latency", rec)
		}
	}
	if committed == 0 || inBlocks < committed*95/100 || inBlocks > committed {
		t.Errorf("csv: %d committed by the ledger, %d in blocks; want about the same", committed, inBlocks)
	}
	// By time and level: the first 2 s of the run hold some of its lines,
	// not all; from an hour after its start none; errors alone are fewer.
	count := func(args ...string) int {
		out, code := cli(t, reg, append([]string{"runs", "logs", "latest", "--node", "validator0", "--db", db}, args...)...)
		if code != 0 {
			t.Fatalf("runs logs %v: exit %d\n%.2000s", args, code, out)
		}
		return strings.Count(out, "\n")
	}
	if all, early, late, errs := count(), count("--until", "2s"), count("--since", "1h"), count("--level", "error"); early == 0 || early >= all || late != 0 || errs >= all {
		t.Errorf("runs logs: %d lines, %d in the first 2 s, %d an hour on, %d at error level: want some, none, fewer", all, early, late, errs)
	}
	if out, code := cli(t, reg, "runs", "logs", "latest", "--level", "loud", "--db", db); code != 2 || !strings.Contains(out, "warn") {
		t.Errorf("runs logs --level loud: exit %d\n%s", code, out)
	}
	if out, code := cli(t, reg, "runs", "logs", "latest", "--node", "validator9", "--db", db); code != 2 || !strings.Contains(out, "full0") {
		t.Errorf("runs logs of a node the run did not have: exit %d\n%s", code, out)
	}
	p := r.Main()
	if p == nil || len(p.Blocks) == 0 {
		t.Fatal("no blocks stored")
	}
	ours := 0
	for i, b := range p.Blocks {
		ours += b.Ours
		if i > 0 && b.Height != p.Blocks[i-1].Height+1 {
			t.Errorf("height %d follows %d: a block is missing", b.Height, p.Blocks[i-1].Height)
		}
	}
	s := p.Ledger
	if int64(ours) != s.Fates[load.FateCommitted]+s.Fates[load.FateCommittedFailed] {
		t.Errorf("blocks hold %d of our txs; ledger says %d committed", ours, s.Fates[load.FateCommitted])
	}
	if s.Sent != 1600 || !s.Balanced() || s.Fates[load.FateCommitted] != 1600 {
		t.Errorf("sent %d, fates %v; want 1600 sent and committed", s.Sent, s.Fates)
	}
	if s.Latency.Count == 0 || s.Latency.P99 <= 0 {
		t.Errorf("latency percentiles missing: %+v", s.Latency)
	}
	// The window's figures and per-second samples, the load's verdict and
	// the unresolved txs' explanation from the target node's metrics.
	if s.WindowLatency.Count == 0 || s.WindowLatency.Count >= s.Latency.Count || p.Figures.LatencyP99 != s.WindowLatency.P99 {
		t.Errorf("window latency %+v of %d txs; want the window's txs only", s.WindowLatency, s.Latency.Count)
	}
	if p.Generator.Due != 1600 || p.Generator.OnTime < 1584 || p.Generator.Bound {
		t.Errorf("generator %+v; want 1600 due, on time, not bound", p.Generator)
	}
	if u := p.Unresolved; u == nil || u.Unresolved != 0 || u.MempoolRefused < u.FullAnswers {
		t.Errorf("unresolved explained %+v; want the target node's refused count read", u)
	}
	// Every node has its Prometheus and process series; the profile was
	// taken and ranked.
	series, err := st.Series(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]int{}
	for _, x := range series {
		have[x.Node+" "+x.Series]++
	}
	for _, n := range []string{"validator0", "validator1", "full0"} {
		for _, name := range []string{"cometbft_mempool_size", "cometbft_p2p_peers", "process_resident_memory_bytes", "process_cpu_seconds_total"} {
			if have[n+" "+name] < 5 {
				t.Errorf("%s %s: %d samples; want one a second", n, name, have[n+" "+name])
			}
		}
	}
	if have["machine machine_load1"] < 5 {
		t.Errorf("machine load1: %d samples", have["machine machine_load1"])
	}
	profs, err := st.Profiles(ctx, r.ID)
	if err != nil || len(profs) != 1 || len(profs[0].Top) == 0 || profs[0].Value != "alloc_space (bytes)" {
		t.Fatalf("profiles = %+v, %v; want one allocs profile with its top list", profs, err)
	}
	if _, err := os.Stat(profs[0].File); err != nil {
		t.Errorf("profile file: %v", err)
	}
	events, _ := st.Events(ctx, r.ID)
	var perturbations []string
	for _, e := range events {
		if e.Kind == "perturbation" {
			perturbations = append(perturbations, e.Detail)
		}
	}
	if len(perturbations) < 2 || strings.Join(perturbations[:2], ";") != "stop validator0;start validator0" {
		t.Errorf("perturbation events %q; want stop then start of validator0", perturbations)
	}
	// The restarted validator was back at the tip while the phase lasted.
	if len(r.Faults) != 1 || r.Faults[0].CatchUp <= 0 || r.Faults[0].Recovery < 0 {
		t.Errorf("faults %+v; want the restart with its catch-up time and recovery", r.Faults)
	}
	// The report's record.json says what the database says, and its
	// summary.json the headline.
	var sum results.Run
	data, err := os.ReadFile(filepath.Join(tmp, "reports", r.ID, "record.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &sum)
	if sum.Main() == nil || sum.Main().Ledger.Sent != s.Sent || sum.Main().Figures.CommittedTPS != p.Figures.CommittedTPS {
		t.Errorf("record.json disagrees with the database")
	}
	// The nodes' logs beside the report, which links them.
	html, _ := os.ReadFile(filepath.Join(tmp, "reports", r.ID, "report.html"))
	if fi, err := os.Stat(filepath.Join(tmp, "reports", r.ID, "logs", "validator0.log.gz")); err != nil || fi.Size() == 0 ||
		!strings.Contains(string(html), `href="logs/validator0.log.gz"`) {
		t.Errorf("validator0's log beside the report (%v) or its link in report.html missing", err)
	}
	var head report.Headline
	data, err = os.ReadFile(filepath.Join(tmp, "reports", r.ID, "summary.json"))
	if err != nil || json.Unmarshal(data, &head) != nil || head.ID != r.ID || head.Verdict != report.Verdict(r) ||
		len(head.Phases) != len(r.Phases) || head.Phases[len(head.Phases)-1].Sent != r.Phases[len(r.Phases)-1].Ledger.Sent {
		t.Errorf("summary.json %+v (%v) is not the run's headline", head, err)
	}

	os.WriteFile(scn, []byte(strings.Replace(shortScenario, "%s", "100000", 1)), 0o644)
	out, code = cli(t, reg, "run", scn, "--db", db, "--report-dir", filepath.Join(tmp, "reports"))
	if code != 1 || !strings.Contains(out, "failed:     committed tx/s") {
		t.Errorf("run with an unmeetable criterion: exit %d; want 1 naming the criterion\n%s", code, out)
	}
}

// TestKilledRunIsInterrupted: SIGKILL of the harness mid-run leaves a
// readable database; the next chainperf marks the run interrupted and
// keeps the blocks it had.
func TestKilledRunIsInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	t.Parallel()
	tmp := t.TempDir()
	reg, db := t.TempDir(), filepath.Join(tmp, "runs.db")
	scn := filepath.Join(tmp, "long.toml")
	os.WriteFile(scn, []byte("name = \"long\"\n[testnet]\nvalidators = 2\nfull_nodes = 0\n[load]\nrate = 100\nduration = \"60s\"\n"), 0o644)
	// startAndWait starts the run and waits until a few blocks are stored.
	startAndWait := func(db string) (*exec.Cmd, *bytes.Buffer) {
		var out bytes.Buffer
		cmd := exec.Command(binary, "run", scn, "--db", db, "--report-dir", filepath.Join(tmp, "reports"))
		cmd.Env = registryEnv(t, reg)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for storedBlocks(t, db) < 3 {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("no blocks stored within 60s")
			}
			time.Sleep(500 * time.Millisecond)
		}
		return cmd, &out
	}
	// Ctrl-C: the run ends interrupted, and its summary and report are
	// still written from what was stored.
	cmd, out := startAndWait(filepath.Join(tmp, "ctrlc.db"))
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if !regexp.MustCompile(`run \S+: INTERRUPTED in`).MatchString(out.String()) || !strings.Contains(out.String(), "report: ") || !strings.Contains(out.String(), "interrupted") {
		t.Errorf("Ctrl-C: no summary or report of the interrupted run:\n%s", out)
	}
	// SIGKILL: the next chainperf marks it interrupted.
	cmd, _ = startAndWait(db)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if out, code := cli(t, reg, "clean"); code != 0 {
		t.Fatalf("clean: exit %d\n%s", code, out)
	}
	list, code := cli(t, reg, "runs", "list", "--db", db)
	if code != 0 || !strings.Contains(list, "interrupted") {
		t.Fatalf("runs list after a kill: exit %d; want the run interrupted\n%s", code, list)
	}
	if n := storedBlocks(t, db); n < 3 {
		t.Errorf("interrupted run keeps %d blocks; want the 3+ it had", n)
	}
}

func storedBlocks(t *testing.T, db string) int {
	t.Helper()
	if _, err := os.Stat(db); err != nil {
		return 0
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		return 0
	}
	defer st.Close()
	runs, err := st.List(ctx, store.Filter{})
	if err != nil || len(runs) == 0 {
		return 0
	}
	blocks, _ := st.Blocks(ctx, runs[0].ID)
	return len(blocks[0])
}

// TestFindMaxAndRotate runs a find-max and a rotate phase on real nodes:
// find-max gives a positive rate inside its confidence interval, every
// rotating node catches up to a tip that grows from one to the next, and
// the stored run holds both results.
func TestFindMaxAndRotate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	tmp := t.TempDir()
	reg, db := t.TempDir(), filepath.Join(tmp, "runs.db")
	scn := filepath.Join(tmp, "fmr.toml")
	os.WriteFile(scn, []byte(`name = "fmr"
[testnet]
validators = 2
full_nodes = 1
[load]
rate = 100
duration = "16s"
[load.pid]
start_rate = 200
[experiment]
kind = ["find-max", "rotate"]
find_max_duration = "24s"
find_max_settle = "8s"
rotations = 2
catchup_timeout = "30s"
pause = "1s"
drain_timeout = "10s"
`), 0o644)
	out, code := cli(t, reg, "run", scn, "--db", db, "--report-dir", filepath.Join(tmp, "reports"))
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "find-max:") || !strings.Contains(out, "2 of 2 rotating nodes caught up") {
		t.Errorf("summary lacks the find-max or rotate line:\n%s", out)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.List(ctx, store.Filter{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	r, err := st.Run(ctx, runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	fm := r.FindMax
	if fm == nil || fm.MaxTPS <= 0 || fm.Low > fm.MaxTPS || fm.High < fm.MaxTPS || fm.Batches < 1 || fm.Hold != "latency" {
		t.Errorf("find-max result %+v; want a positive rate inside its interval", fm)
	}
	if len(r.Phases) != 2 || r.Phases[0].Name != "find-max" || r.Phases[1].Name != "rotate" {
		t.Fatalf("phases %d; want find-max then rotate", len(r.Phases))
	}
	if !strings.HasPrefix(r.Phases[0].Model, "pid holding block latency under 3s") {
		t.Errorf("find-max model %q", r.Phases[0].Model)
	}
	if len(r.Rotations) != 2 {
		t.Fatalf("rotations %+v; want 2", r.Rotations)
	}
	for i, rot := range r.Rotations {
		if !rot.CaughtUp || rot.Height < rot.Tip || rot.CatchUp <= 0 {
			t.Errorf("rotation %d: %+v; want caught up", i, rot)
		}
	}
	if r.Rotations[1].Tip <= r.Rotations[0].Tip {
		t.Errorf("tips %d then %d: the second rotation should start higher", r.Rotations[0].Tip, r.Rotations[1].Tip)
	}
	// The rotating nodes were stopped: nothing answers at their RPC.
	rotating := 0
	for _, n := range r.Nodes {
		if n.Role != "rotating" {
			continue
		}
		rotating++
		if resp, err := http.Get(n.RPC + "/status"); err == nil {
			resp.Body.Close()
			t.Errorf("%s still answers at %s", n.Name, n.RPC)
		}
	}
	if rotating != 2 {
		t.Errorf("%d rotating nodes in the run's node list; want 2", rotating)
	}
}

// `run --rate --duration --validators` changes the scenario for this run,
// files it under the scenario's name with the changes and labels it; a
// value the scenario would refuse is refused with the flag's words.
// It is also the fast tier's one real-node run (it runs under -short): a
// validator and a full node, 4 s of load, every tx committed, about 15 s.
func TestRunOverrides(t *testing.T) {
	reg, tmp := t.TempDir(), t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	scn := filepath.Join(tmp, "short.toml")
	os.WriteFile(scn, []byte("name = \"short\"\n[experiment]\nkind = \"steady\"\n"), 0o644)
	if out, code := cli(t, reg, "run", scn, "--rate", "0", "--db", db); code != 2 || !strings.Contains(out, "with rate=0") || !strings.Contains(out, "load.rate") {
		t.Errorf("--rate 0: exit %d; want 2 naming the override\n%s", code, out)
	}
	out, code := cli(t, reg, "run", scn, "--rate", "40", "--duration", "4s", "--validators", "1", "--db", db, "--report-dir", filepath.Join(tmp, "reports"))
	if code != 0 || !strings.Contains(out, "scenario short [rate=40 duration=4s validators=1]: 1 validator +") || !strings.Contains(out, "160 sent = 160 committed") {
		t.Fatalf("run with overrides: exit %d\n%s", code, out)
	}
	list, _ := cli(t, reg, "runs", "list", "--db", db, "--label", "overrides=rate=40 duration=4s validators=1")
	if !strings.Contains(list, "short [rate=40 duration=4s validators=1]") {
		t.Errorf("runs list by the overrides label:\n%s", list)
	}
}
