package main

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/scenario"
)

// A workflow is the part of a GitHub Actions workflow the gate's test
// runs.
type workflow struct {
	Env  map[string]string `json:"env"`
	Jobs map[string]struct {
		Steps []struct {
			Name string            `json:"name"`
			ID   string            `json:"id"`
			Uses string            `json:"uses"`
			If   string            `json:"if"`
			Env  map[string]string `json:"env"`
			Run  string            `json:"run"`
		} `json:"steps"`
	} `json:"jobs"`
}

// TestGateWorkflowOnAThrowawayRepository runs the shipped pull-request
// gate (docs/ci/chainperf-gate.yml) step by step, as a runner would, on
// a git repository made here whose pull request plants a slowdown (its
// scenario's blocks 1.8 s later: consensus.timeout_commit 200 ms -> 2 s):
// chainperf installed from a pinned commit of this repository, each
// side's scenario from its own commit, both sides interleaved on real
// nodes, then the gate's exit. It must end 1 with latency p50 regressed,
// a verdict file and a JUnit report that fails, and every run knowing its
// place in the order. GitHub's own actions (checkout, setup-go, upload)
// and the comment (gh, GitHub's API) are the steps not run. Its size is
// TestABOnRealNodes's A/A session's: 4 s of load on two validators.
func TestGateWorkflowOnAThrowawayRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real CometBFT nodes")
	}
	self, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git clone of chainperf: %v", err)
	}
	ref, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(mustRead(t, "../../docs/ci/chainperf-gate.yml"), &wf); err != nil || len(wf.Jobs["gate"].Steps) == 0 {
		t.Fatalf("docs/ci/chainperf-gate.yml: %v", err)
	}
	repo, runner := t.TempDir(), t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	commit := func(timeoutCommit string) string {
		os.MkdirAll(filepath.Join(repo, "perf"), 0o755)
		os.WriteFile(filepath.Join(repo, "perf", "scenario.toml"), []byte(shortAB("gate", timeoutCommit)), 0o644)
		git("add", "-A")
		git("commit", "-q", "-m", "timeout_commit "+timeoutCommit)
		return git("rev-parse", "HEAD")
	}
	git("init", "-q")
	base, head := commit("200ms"), commit("2s")

	output, path := filepath.Join(runner, "output"), filepath.Join(runner, "path")
	vars := map[string]string{
		"github.event.pull_request.base.sha": base, "github.event.pull_request.head.sha": head,
		"github.event.pull_request.number": "1", "github.token": "",
	}
	wf.Env["CHAINPERF_REPO"], wf.Env["CHAINPERF_REF"] = strings.TrimSpace(string(self)), strings.TrimSpace(string(ref))
	// The session is about latency: 4 s runs hold too few blocks for the
	// other figures to be decided in a few rounds (a 200 ms -> 1 s change
	// took 5 rounds for latency p50, with committed tx/s ±8 % a round).
	wf.Env["AB_FLAGS"] = `--min-rounds 2 --max-rounds 6 --seed 7 --decide-on "latency p50"`
	expr := regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)
	exit, ran, abOut := -1, 0, ""
	for _, st := range wf.Jobs["gate"].Steps {
		if st.Uses != "" || strings.Contains(st.Run, "gh pr comment") {
			continue // GitHub's own: checkout (the repository is here), Go (this machine's), upload, the comment
		}
		if strings.Contains(st.Run, "steps.ab.outputs.code") {
			out := string(mustRead(t, output))
			m := regexp.MustCompile(`(?m)^code=(\d+)$`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("the ab step wrote no code to GITHUB_OUTPUT: %q", out)
			}
			vars["steps.ab.outputs.code"] = m[1]
		}
		sub := func(s string) string {
			return expr.ReplaceAllStringFunc(s, func(e string) string {
				v, ok := vars[expr.FindStringSubmatch(e)[1]]
				if !ok {
					t.Fatalf("step %q: no value for %s", st.Name, e)
				}
				return v
			})
		}
		cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", sub(st.Run))
		cmd.Dir = repo
		cmd.Env = append(registryEnv(t, repo), "GITHUB_OUTPUT="+output, "GITHUB_PATH="+path, "RUNNER_TEMP="+runner)
		if p, err := os.ReadFile(path); err == nil {
			cmd.Env = append(cmd.Env, "PATH="+strings.Join(strings.Fields(string(p)), ":")+":"+os.Getenv("PATH"))
		}
		for k, v := range wf.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		for k, v := range st.Env {
			cmd.Env = append(cmd.Env, k+"="+sub(v))
		}
		out, err := cmd.CombinedOutput()
		t.Logf("step %q:\n%s", st.Name, out)
		ran++
		if st.ID == "ab" {
			abOut = string(out)
		}
		if strings.HasPrefix(strings.TrimSpace(st.Run), "exit ") { // the gate itself
			exit = cmd.ProcessState.ExitCode()
			continue
		}
		if err != nil {
			t.Fatalf("step %q: %v", st.Name, err)
		}
	}
	if ran != 4 || exit != 1 {
		t.Fatalf("%d steps ran, the gate exits %d; want 4 steps, exit 1 (regressed)", ran, exit)
	}
	verdict := string(mustRead(t, filepath.Join(repo, "verdict.md")))
	if !regexp.MustCompile(`REGRESSED: .*latency p50`).MatchString(verdict) || !strings.Contains(verdict, "interleaved") {
		t.Errorf("verdict.md: want latency p50 regressed, judged round by round\n%s", verdict)
	}
	var suite struct {
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(mustRead(t, filepath.Join(repo, "verdict.xml")), &suite); err != nil || suite.Failures == 0 {
		t.Errorf("verdict.xml: %v, %d failures; want the regression as a failure", err, suite.Failures)
	}
	// Every run knows its place: the session's first run is round 1's.
	m := regexp.MustCompile(`round 1 (baseline|candidate) +run (\S+)`).FindStringSubmatch(abOut)
	if m == nil {
		t.Fatalf("no round-1 run in\n%s", abOut)
	}
	export, _ := cli(t, repo, "runs", "export", m[2], "--db", filepath.Join(repo, "runs.db"))
	if !regexp.MustCompile(`"trial":\s*\{\s*"session":\s*"[^"]+",\s*"round":\s*1,\s*"side":\s*"` + m[1] + `",\s*"seq":\s*1`).MatchString(export) {
		t.Errorf("run %s does not record its trial (round 1, %s, first):\n%.1500s", m[2], m[1], export)
	}
}

// The gate's scenario for an SDK chain's repository, filled as the
// workflow fills it, builds the application at that side's commit.
func TestGateScenarioForAnSDKChain(t *testing.T) {
	t.Parallel()
	const sha = "0123456789abcdef0123456789abcdef01234567"
	text := strings.ReplaceAll(string(mustRead(t, "../../docs/ci/scenario-sdk.toml")), "@REF@", sha)
	s, err := scenario.Parse("perf/scenario.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if b := cosmos.Of(s.Testnet).Build; b.Dir != "." || b.Ref != sha || b.Package != "./cmd/appd" {
		t.Errorf("build %+v; want dir ., ref %s, ./cmd/appd", b, sha)
	}
}

// --decide-on: the figures named alone set ab's exit code; the others
// are informative, a regressed or undecided one among them included.
func TestVerdictByTheFiguresDecidedOn(t *testing.T) {
	t.Parallel()
	res := &compare.Result{Rows: []compare.Row{{Figure: "latency p50", Verdict: compare.Unchanged, Gated: true},
		{Figure: "committed tx/s", Verdict: compare.Regressed, Gated: true}, {Figure: "latency p99", Verdict: compare.Inconclusive, Gated: true}},
		Regressed: []string{"committed tx/s"}, Inconclusive: []string{"latency p99"}}
	for _, c := range []struct {
		on   []string
		want error
	}{{nil, errFailed}, {[]string{"latency p50"}, nil}, {[]string{"latency p99"}, errInconclusive}, {[]string{"latency p50", "committed tx/s"}, errFailed}} {
		if got := verdictErr(res, c.on...); got != c.want {
			t.Errorf("decided on %q: %v; want %v", c.on, got, c.want)
		}
	}
}
