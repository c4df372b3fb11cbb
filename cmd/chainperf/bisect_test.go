package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// slowRepo makes a git repository holding the slownode program (a
// CometBFT kvstore node) with three commits on main, the last of which
// adds a 1 s sleep to FinalizeBlock (longer than the scenario's 200 ms
// timeout_commit, which would otherwise absorb it), and a branch "broken" whose
// commit does not compile. It returns the dir and main's commits.
func slowRepo(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	run := gitIn(t, dir)
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The node needs CometBFT and its dependencies at chainperf's own
	// versions: chainperf's go.mod and go.sum, another module name.
	mod, _ := os.ReadFile("../../go.mod")
	sum, _ := os.ReadFile("../../go.sum")
	write("go.mod", regexp.MustCompile(`(?m)^module .*$`).ReplaceAllString(string(mod), "module slownode"))
	write("go.sum", string(sum))
	main, _ := os.ReadFile("testdata/slownode/main.go")
	write("main.go", string(main))
	delay := func(d string) string { return "package main\n\nimport \"time\"\n\nconst delay = " + d + "\n" }
	write("delay.go", delay("0 * time.Millisecond"))
	run("init", "-q", "-b", "main")
	var commits []string
	commit := func(msg string) { commits = append(commits, commitAll(run, msg)) }
	commit("slownode: a kvstore node")
	write("README", "slownode\n")
	commit("docs: a readme")
	write("delay.go", delay("1000 * time.Millisecond"))
	commit("finalize: check every tx again")
	run("checkout", "-q", "-b", "broken")
	write("delay.go", "package main\n\nconst delay = nosuchthing\n")
	commit("broken: does not compile")
	run("checkout", "-q", "main")
	return dir, commits[:3]
}

// TestBisectFindsTheSlowdown: bisect names the commit that added the
// sleep, compare of before and after exits 1, a ref that does not exist
// and a build that fails are clear errors that store nothing.
func TestBisectFindsTheSlowdown(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs real CometBFT nodes")
	}
	repo, commits := slowRepo(t)
	tmp := t.TempDir()
	t.Setenv("CHAINPERF_BUILD_CACHE", filepath.Join(tmp, "builds"))
	reg, db := t.TempDir(), filepath.Join(tmp, "runs.db")
	scenarioFor := func(ref string) string {
		f := filepath.Join(tmp, "slow-"+strings.ReplaceAll(ref, "/", "_")+".toml")
		os.WriteFile(f, []byte(`name = "slow"
[testnet]
validators = 1
full_nodes = 0
[testnet.config]
"consensus.timeout_commit" = "200ms"
[testnet.build]
dir = "`+repo+`"
ref = "`+ref+`"
[load]
rate = 100
duration = "4s"
[experiment]
kind = "steady"
warmup = "1s"
cooldown = "1s"
drain_timeout = "10s"
`), 0o644)
		return f
	}
	// Two steps: main (bad, checked first), then the readme's commit
	// (good), which leaves the sleep's commit as the first bad one. Each
	// step runs the good commit and its own interleaved, 4 s runs,
	// until p50 is decided at a 50 % threshold (the sleep makes it
	// several times longer, +420-460 %: a block every 1.2 s or so against
	// one every 0.3 s; at 25 % the readme's step took 4 rounds to be
	// called unchanged, at 50 % 2). One validator, the least that makes
	// blocks; 4 s of load (a dozen blocks at the good commit), 1 s of
	// warm-up: 8 s runs and a 2 s sleep took 163 s in CI.
	out, code := cli(t, reg, "bisect", "--db", db, "--good", commits[0], "--bad", "main", "--scenario", scenarioFor("main"),
		"--figure", "latency p50", "--threshold", "50", "--report-dir", filepath.Join(tmp, "reports"))
	t.Logf("bisect:\n%s", out)
	if code != 0 {
		t.Fatalf("bisect: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "first bad commit: "+commits[2]+" finalize: check every tx again") {
		t.Errorf("bisect did not name %s:\n%s", commits[2], out)
	}
	// compare: before (the good commit's run) and after (main's) by commit query.
	out, code = cli(t, reg, "compare", "--db", db, "commit:"+commits[0][:10], "commit:"+commits[2][:10])
	if code != 1 || !regexp.MustCompile(`REGRESSED: .*latency p50`).MatchString(out) {
		t.Errorf("compare before/after: exit %d; want 1 with latency p50 regressed\n%s", code, out)
	}
	out, code = cli(t, reg, "runs", "list", "--db", db)
	stored := strings.Count(out, "\n")

	// A ref that does not exist, and a build that fails: exit 2, nothing stored.
	out, code = cli(t, reg, "bisect", "--db", db, "--good", "nosuchref", "--bad", "main", "--scenario", scenarioFor("main"), "--figure", "latency p50")
	if code != 2 || !strings.Contains(out, `--good: ref "nosuchref" does not name a commit`) {
		t.Errorf("bisect from a missing ref: exit %d\n%s", code, out)
	}
	out, code = cli(t, reg, "run", scenarioFor("broken"), "--db", db, "--report-dir", filepath.Join(tmp, "reports"))
	if code != 2 || !strings.Contains(out, "go build . at") || !strings.Contains(out, "undefined: nosuchthing") || strings.Contains(out, "stored in") {
		t.Errorf("run of a commit that does not build: exit %d; want 2 with the compiler's output\n%s", code, out)
	}
	if out, _ := cli(t, reg, "runs", "list", "--db", db); strings.Count(out, "\n") != stored {
		t.Errorf("a failed build stored a run:\n%s", out)
	}
	entries, _ := os.ReadDir(filepath.Join(tmp, "builds"))
	if len(entries) != 3 {
		t.Errorf("%d cached builds; want 3 (good, the readme's, main), each built once", len(entries))
	}
}

// gitIn returns a function that runs git in dir, failing the test on an
// error, with a committer of its own.
func gitIn(t *testing.T, dir string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}

// commitAll commits everything in the work tree and returns the commit.
func commitAll(git func(args ...string) string, msg string) string {
	git("add", "-A")
	git("commit", "-q", "-m", msg)
	return git("rev-parse", "HEAD")
}
