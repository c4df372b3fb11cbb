package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestABOnRealNodes is the short calibration CI runs (bench/calibrate.sh
// is the long one): an interleaved A/A session of one scenario on real
// nodes, ended by Ctrl-C in its third round, gives the verdict on the two
// rounds that completed, with no regressed or improved gated figure; a
// planted change (blocks 800 ms later: consensus.timeout_commit 200 ms ->
// 1 s) is called regressed on latency, exit 1, with a JUnit report that fails
// and every run stored with its place in the order. Its size: 4 s of load
// on two validators, short commits so the window still holds blocks (a
// dozen against four); a 1 s -> 2 s change over 8 s runs took 5 rounds
// and 199 s in CI.
func TestABOnRealNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real CometBFT nodes")
	}
	reg, tmp := t.TempDir(), t.TempDir()
	db, reports := filepath.Join(tmp, "runs.db"), filepath.Join(tmp, "reports")
	write := func(name, commit string) string {
		p := filepath.Join(tmp, name)
		text := `name = "ab"
[testnet]
validators = 2
full_nodes = 0
[testnet.config]
"consensus.timeout_commit" = "` + commit + `"
[load]
rate = 200
duration = "4s"
[experiment]
kind = "steady"
warmup = "1s"
cooldown = "1s"
`
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base, slow := write("base.toml", "200ms"), write("slow.toml", "1s")
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
	if i := strings.Index(out, "{"); i >= 0 {
		aa("A/A interrupted", []byte(out[i:]), out)
	} else {
		t.Errorf("Ctrl-C in round 3: no verdict\n%s", out)
	}

	junit := filepath.Join(tmp, "junit.xml")
	out, code := cli(t, reg, "ab", base, slow, "--db", db, "--report-dir", reports, "--min-rounds", "2", "--max-rounds", "6", "--junit", junit, "--seed", "7",
		"--threshold-for", "committed tx/s=30") // 4 s runs: ±8 % a round; decided unchanged by round 3-4, not kept undecided to round 6
	t.Logf("planted:\n%s", out)
	if code != 1 || !regexp.MustCompile(`REGRESSED: .*latency p50`).MatchString(out) || !strings.Contains(out, "interleaved:") {
		t.Errorf("blocks a second later: exit %d; want 1 with latency p50 regressed, judged round by round\n%s", code, out)
	}
	var suite struct {
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(mustRead(t, junit), &suite); err != nil || suite.Failures == 0 {
		t.Errorf("junit: %v, %d failures; want the regression as a failure", err, suite.Failures)
	}
	// Every run knows its place: the planted session's runs, in order.
	m := regexp.MustCompile(`round 1 (baseline|candidate) +run (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no round-1 run in\n%s", out)
	}
	export, _ := cli(t, reg, "runs", "export", m[2], "--db", db)
	if !regexp.MustCompile(`"trial":\s*\{\s*"session":\s*"[^"]+",\s*"round":\s*1,\s*"side":\s*"` + m[1] + `",\s*"seq":\s*1`).MatchString(export) {
		t.Errorf("run %s does not record its trial (round 1, %s, first):\n%.1500s", m[2], m[1], export)
	}
}
