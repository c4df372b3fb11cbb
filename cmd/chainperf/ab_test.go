package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/chainperf/chainperf/internal/compare"
)

// TestABOnRealNodes is the short calibration CI runs (bench/calibrate.sh
// is the long one): an interleaved A/A session of one scenario on real
// nodes, ended by Ctrl-C in its third round, gives the verdict on the two
// rounds that completed, with no regressed or improved gated figure. The
// planted change (blocks 1.8 s later) is the pull request of
// TestGateWorkflowOnAThrowawayRepository, through the shipped workflow.
// Its size: 4 s of load on two validators, short commits so the window
// still holds blocks (a dozen against four).
func TestABOnRealNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real CometBFT nodes")
	}
	reg, tmp := t.TempDir(), t.TempDir()
	db, reports := filepath.Join(tmp, "runs.db"), filepath.Join(tmp, "reports")
	base := filepath.Join(tmp, "base.toml")
	if err := os.WriteFile(base, []byte(shortAB("ab", "200ms")), 0o644); err != nil {
		t.Fatal(err)
	}
	aa := func(name string, res []byte, out string) {
		t.Helper()
		var got struct {
			Figures []struct {
				Figure, Verdict string
				Gated           bool
				Rounds          int
			}
		}
		if err := json.Unmarshal(res, &got); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		for _, f := range got.Figures {
			if f.Gated && (f.Verdict == "regressed" || f.Verdict == "improved" || f.Rounds != 2) {
				t.Errorf("%s: %s %s over %d rounds; want no change decided, over 2 rounds\n%s", name, f.Figure, f.Verdict, f.Rounds, out)
			}
		}
	}
	// Ctrl-C in round 3 of an A/A session: the verdict on rounds 1-2, the
	// A/A check itself (a session run to its end would judge the same two
	// rounds again: four runs more for nothing new).
	cmd := exec.Command(binary, "ab", base, "--db", db, "--report-dir", reports, "--min-rounds", "5", "--max-rounds", "5", "--format", "json")
	cmd.Env = registryEnv(t, reg)
	pipe, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		text.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "  round 3 ") { // round 3's first run is done; its second is under way
			cmd.Process.Signal(syscall.SIGINT)
		}
	}
	cmd.Wait()
	out := text.String()
	if !strings.Contains(out, "2 round(s), 5 runs: interrupted: the verdict is on the rounds that completed") || !strings.Contains(out, "left out") {
		t.Errorf("Ctrl-C in round 3: want the verdict on 2 rounds, round 3's lone run left out\n%s", out)
	}
	// Before its first run, the session says what calibrates it: here,
	// nothing yet (the database is new).
	if !strings.Contains(out, `calibration: no A/A session of scenario "ab" is stored here`) {
		t.Errorf("the first session in a new database: want it to say no A/A session calibrates it\n%s", out)
	}
	if i := strings.Index(out, "{"); i >= 0 {
		aa("A/A interrupted", []byte(out[i:]), out)
	} else {
		t.Errorf("Ctrl-C in round 3: no verdict\n%s", out)
	}
}

// shortAB is the A/B tests' scenario: 4 s of load on two validators,
// commits timeoutCommit apart.
func shortAB(name, timeoutCommit string) string {
	return `name = "` + name + `"
[testnet]
validators = 2
full_nodes = 0
[testnet.config]
"consensus.timeout_commit" = "` + timeoutCommit + `"
[load]
rate = 200
duration = "4s"
[experiment]
kind = "steady"
warmup = "1s"
cooldown = "1s"
`
}

// A session decided on some figures writes them as its gated ones, and
// lists only them as regressed or inconclusive: what it prints says what
// its exit code says.
func TestFocusOnTheDecidedFigures(t *testing.T) {
	res := &compare.Result{Rows: []compare.Row{
		{Figure: "latency p50", Gated: true, Verdict: compare.Inconclusive},
		{Figure: "height time", Verdict: compare.Regressed},
		{Figure: "committed tx/s", Gated: true, Verdict: compare.Regressed},
	}, Regressed: []string{"committed tx/s"}, Inconclusive: []string{"latency p50"}}
	focus(res, []string{"height time"})
	if !res.Rows[1].Gated || res.Rows[0].Gated || res.Rows[2].Gated || !slices.Equal(res.Regressed, []string{"height time"}) || len(res.Inconclusive) != 0 {
		t.Errorf("%+v", res)
	}
	if err := verdictErr(res, "height time"); err != errFailed {
		t.Errorf("exit: %v", err)
	}
	before := len(res.Rows)
	focus(res, nil)
	if len(res.Rows) != before || !res.Rows[1].Gated {
		t.Error("no --decide-on changed the result")
	}
}
