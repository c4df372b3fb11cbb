package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/scenario/scenariotest"
	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/clean"
	"github.com/chainperf/chainperf/internal/testnet/live"
	"github.com/chainperf/chainperf/internal/testnet/process"
	"github.com/google/pprof/profile"
)

// binary is the chainperf binary built once for the tests in this package.
var binary string

func TestMain(m *testing.M) {
	// CHAINPERF_TEST_BINARY runs the tests against another build (a
	// benchmark comparing builds, bench/hostile-memory.sh).
	if b := os.Getenv("CHAINPERF_TEST_BINARY"); b != "" {
		binary = b
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "chainperf-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "chainperf")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build chainperf: %v\n%s", err, out)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// lanes gives each registry a range of ports of its own
// (CHAINPERF_FIRST_PORT): the tests that call t.Parallel start testnets at
// once, each harness with its own registry and so its own port lock. A
// range is held until the test that first used the registry ends, so two
// registries in use at once never share one. The ranges lie below Linux's
// ephemeral ports (32768 up: a CI run had an outgoing connection take a
// node's port between the probe and the bind) and above the local
// cluster's kubelet ports (10248-10259): 11000-26500 unless
// CHAINPERF_TEST_PORTS=FIRST-END gives this process a part of it (.ci/run
// runs two of these test processes at once).
var lanes struct {
	sync.Mutex
	of   map[string]int
	used []bool
}

const laneWidth = 500

// portSpan is this process's part of the test ports.
func portSpan(t *testing.T) (first, count int) {
	first, end := 11000, 26500
	if v := os.Getenv("CHAINPERF_TEST_PORTS"); v != "" {
		a, b, _ := strings.Cut(v, "-")
		var err1, err2 error
		first, err1 = strconv.Atoi(a)
		end, err2 = strconv.Atoi(b)
		if err1 != nil || err2 != nil || first < 1024 || end > 32000 || end-first < laneWidth {
			t.Fatalf("CHAINPERF_TEST_PORTS=%q: want FIRST-END, from 1024 to 32000, %d ports at least", v, laneWidth)
		}
	}
	return first, (end - first) / laneWidth
}

// registryEnv is this process's environment with registry reg and its
// port range, taken for t's lifetime when t is reg's first user.
func registryEnv(t *testing.T, reg string) []string {
	t.Helper()
	first, count := portSpan(t)
	lanes.Lock()
	defer lanes.Unlock()
	if lanes.of == nil {
		lanes.of, lanes.used = map[string]int{}, make([]bool, count)
	}
	k, ok := lanes.of[reg]
	if !ok {
		k = slices.Index(lanes.used, false)
		if k < 0 {
			t.Fatalf("all %d port ranges are in use: more registries at once than the tests were laid out for", count)
		}
		lanes.used[k], lanes.of[reg] = true, k
		t.Cleanup(func() {
			lanes.Lock()
			defer lanes.Unlock()
			lanes.used[k] = false
			delete(lanes.of, reg)
		})
	}
	return append(os.Environ(), "CHAINPERF_REGISTRY="+reg, fmt.Sprintf("CHAINPERF_FIRST_PORT=%d", first+k*laneWidth))
}

// storedRun reads run id back from the results database db.
func storedRun(t *testing.T, db, id string) *results.Run {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Run(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// cli runs chainperf with a registry of the test's own and returns
// combined output and exit code.
func cli(t *testing.T, registry string, args ...string) (string, int) {
	t.Helper()
	out, code, _ := cliState(t, registry, args...)
	return out, code
}

// cliWith is cli with variables set (or, as "NAME=", emptied) in
// chainperf's environment alone: a test that calls t.Parallel cannot
// t.Setenv.
func cliWith(t *testing.T, registry string, env []string, args ...string) (string, int) {
	t.Helper()
	out, code, _ := cliEnvState(t, registry, env, args...)
	return out, code
}

// cliState is cli that also gives the ended process's state (its
// resource use).
func cliState(t *testing.T, registry string, args ...string) (string, int, *os.ProcessState) {
	t.Helper()
	return cliEnvState(t, registry, nil, args...)
}

func cliEnvState(t *testing.T, registry string, env []string, args ...string) (string, int, *os.ProcessState) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(registryEnv(t, registry), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run chainperf %v: %v", args, err)
	}
	return string(out), code, cmd.ProcessState
}

// upForeground starts `chainperf testnet up` on the scenario text with
// registry reg, waits until it follows heights and returns it with its
// testnet dir; its output is drained from then on, and it is killed when
// the test ends.
func upForeground(t *testing.T, reg, scenarioText string) (*exec.Cmd, string) {
	t.Helper()
	scn := filepath.Join(t.TempDir(), "s.toml")
	os.WriteFile(scn, []byte(scenarioText), 0o644)
	cmd := exec.Command(binary, "testnet", "up", "-f", scn)
	cmd.Env = registryEnv(t, reg)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var dir string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "testnet ") && strings.Contains(line, " in ") {
			dir = strings.TrimSuffix(strings.Fields(line)[3], ",")
		}
		if strings.HasPrefix(line, "following heights") {
			break
		}
	}
	if dir == "" {
		t.Fatal("harness never printed its testnet dir")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return cmd, dir
}

// nodeProcs lists the live processes whose command line mentions dir.
func nodeProcs(t *testing.T, dir string) []int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(dir)) || !bytes.Contains(cmdline, []byte("node")) {
			continue
		}
		if st, err := process.StartTime(pid); err == nil && process.Alive(pid, st) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitProcs fails the test unless want node processes run in dir within
// 10 s: Up returns once they are started, and a process in the middle of
// its exec (nice, then chainperf) can read as no process for an instant.
func waitProcs(t *testing.T, dir string, want int) {
	t.Helper()
	n := 0
	for i := 0; i < 100; i++ {
		if n = len(nodeProcs(t, dir)); n == want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%d node processes; want %d", n, want)
}

func waitNoProcs(t *testing.T, dir string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if len(nodeProcs(t, dir)) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("node processes survive: %v", nodeProcs(t, dir))
}

func portOpen(host string, port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// TestDetachedTestnet brings up 4 validators + 1 full node, checks every
// node reaches height 5 with RPC and Prometheus answering, then takes it
// down and checks no process and no open port is left.
func TestDetachedTestnet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	reg := t.TempDir()
	dir := filepath.Join(t.TempDir(), "net")
	out, code := cli(t, reg, "testnet", "up", "--detach", "--dir", dir)
	if code != 0 {
		t.Fatalf("testnet up: exit %d\n%s", code, out)
	}
	t.Cleanup(func() { cli(t, reg, "testnet", "down", "--dir", dir) })
	st, err := testnet.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Nodes) != 5 {
		t.Fatalf("state has %d nodes; want 5", len(st.Nodes))
	}
	for _, n := range st.Nodes {
		waitHeight(t, n.Name, n.Endpoint().RPC, 5)
		resp, err := http.Get(n.Endpoint().Metrics)
		if err != nil {
			t.Fatalf("%s metrics: %v", n.Name, err)
		}
		body := new(bytes.Buffer)
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		if !strings.Contains(body.String(), "cometbft_consensus_height") {
			t.Errorf("%s metrics lack cometbft_consensus_height", n.Name)
		}
		if resp, err := http.Get(n.Endpoint().Pprof + "/"); err != nil || resp.StatusCode != 200 {
			t.Errorf("%s pprof does not answer: %v", n.Name, err)
		} else {
			resp.Body.Close()
		}
	}
	if out, code := cli(t, reg, "testnet", "status", "--dir", dir); code != 0 || strings.Count(out, "running") != 5 {
		t.Errorf("status: exit %d, want 5 running nodes:\n%s", code, out)
	}
	// A second testnet in the same dir is refused, and leaves the first alone.
	if out, code := cli(t, reg, "testnet", "up", "--detach", "--dir", dir); code != 2 || !strings.Contains(out, "already holds testnet "+st.ID) {
		t.Errorf("second up in the same dir: exit %d, %q; want exit 2 naming %s", code, out, st.ID)
	}
	if out, code := cli(t, reg, "testnet", "down", "--dir", dir); code != 0 {
		t.Fatalf("down: exit %d\n%s", code, out)
	}
	waitNoProcs(t, dir)
	for _, n := range st.Nodes {
		for _, p := range []int{n.Ports.P2P, n.Ports.RPC, n.Ports.Metrics, n.Ports.Pprof} {
			if portOpen(n.Host, p) {
				t.Errorf("port %d of %s still open after down", p, n.Name)
			}
		}
	}
	if _, err := testnet.ReadState(dir); err == nil {
		t.Error("state file survives down")
	}
}

// TestForegroundInterruptAndKill: Ctrl-C (and SIGHUP, a closed terminal)
// of a foreground harness takes its nodes down; a SIGKILLed harness leaves
// nothing once `clean` has run. (A second Ctrl-C: TestSecondSignal; the
// orderly teardown here takes ~20 ms, too short to signal into.)
func TestForegroundInterruptAndKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			reg := t.TempDir()
			cmd, dir := upForeground(t, reg, "[testnet]\nvalidators = 2\nfull_nodes = 0\n")
			if n := len(nodeProcs(t, dir)); n != 2 {
				t.Fatalf("%d node processes running; want 2", n)
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			if sig == syscall.SIGKILL {
				out, code := cli(t, reg, "clean")
				if code != 0 || !strings.Contains(out, "removed testnet") {
					t.Errorf("clean: exit %d\n%s", code, out)
				}
			}
			waitNoProcs(t, dir)
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("temp dir %s survives", dir)
			}
			if states, _ := registered(reg); len(states) != 0 {
				t.Errorf("registry keeps %d entries", len(states))
			}
		})
	}
}

func registered(reg string) ([]string, error) {
	return filepath.Glob(filepath.Join(reg, "*.json"))
}

// TestBadInput: each mistake is one clear error, exit code 2, and nothing
// is left behind.
func TestBadInput(t *testing.T) {
	reg := t.TempDir()
	tmp := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	fifo := filepath.Join(tmp, "fifo.toml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	roDir := filepath.Join(tmp, "ro")
	os.Mkdir(roDir, 0o555)
	unwritable := filepath.Join(roDir, "net")
	if os.Geteuid() == 0 {
		// root writes anywhere; a path under a regular file cannot be made.
		unwritable = filepath.Join(write("file", "x"), "net")
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"zero validators", []string{"testnet", "up", "-f", write("zero.toml", "[testnet]\nvalidators = 0\n")},
			"zero.toml:2: testnet.validators: 0: a testnet needs at least 1 validator"},
		{"negative count", []string{"testnet", "up", "-f", write("neg.toml", "[testnet]\nfull_nodes = -1\n")},
			"neg.toml:2: testnet.full_nodes: -1: cannot be negative"},
		{"port in use", []string{"testnet", "up", "-f", write("port.toml", fmt.Sprintf("[testnet]\nvalidators = 1\nfull_nodes = 0\nbase_port = %d\n", busyPort))},
			fmt.Sprintf("port %d on 127.0.0.1 is in use", busyPort)},
		{"unwritable dir", []string{"testnet", "up", "--dir", unwritable},
			"cannot be created"},
		{"unknown config key", []string{"testnet", "up", "-f", write("cfg.toml", "[testnet.config]\n\"mempool.sise\" = 10\n")},
			`cfg.toml:2: testnet.config.mempool.sise: unknown CometBFT config key "mempool.sise" (did you mean "mempool.size"?)`},
		{"missing binary", []string{"testnet", "up", "-f", write("bin.toml", "[testnet]\nbinary = \"/opt/none/cometbft\"\n")},
			"bin.toml:2: testnet.binary: node binary /opt/none/cometbft not found"},
		{"unknown key", []string{"scenario", "check", write("key.toml", "[testnet]\nvalidator = 4\n")},
			`key.toml:2: unknown key "testnet.validator" (did you mean "testnet.validators"?)`},
		{"fault the provider cannot do", []string{"scenario", "check", write("part.toml", "[[perturbation]]\nkind = \"partition\"\ngroups = [[\"validator0\", \"validator1\"], [\"validator2\", \"validator3\"]]\nat = \"5s\"\nduration = \"5s\"\n")},
			`part.toml:2: perturbation[0].kind: partition needs provider "netns" or "kubernetes": the "process" provider cannot partition nodes`},
		{"fault refused at up", []string{"testnet", "up", "-f", write("disc.toml", "[[perturbation]]\nkind = \"disconnect\"\nnodes = [\"full0\"]\nat = \"5s\"\nduration = \"5s\"\n")},
			`disc.toml:2: perturbation[0].kind: disconnect needs provider "netns"`},
		{"missing file", []string{"scenario", "check", filepath.Join(tmp, "nope.toml")},
			"no such file"},
		{"down of nothing", []string{"testnet", "down", "--dir", tmp},
			"no testnet state"},
		// Files that are no scenario, numbers that are no numbers, and
		// addresses that are no database: one line, exit 2, nothing made.
		{"scenario from /dev/zero", []string{"scenario", "check", "/dev/zero"}, "/dev/zero is a device"},
		{"scenario from a FIFO", []string{"scenario", "check", fifo}, "is a named pipe"},
		{"scenario nested deep", []string{"scenario", "check", write("deep.toml", "[testnet]\nargs = "+strings.Repeat("[", 100)+strings.Repeat("]", 100)+"\n")}, "deep.toml:2: nested more than 16"},
		{"rate flag nan", []string{"load", "--rpc", "http://127.0.0.1:1", "--rate", "nan", "--no-store"}, "load.rate: NaN: not a finite number"},
		{"drain flag negative", []string{"load", "--rpc", "http://127.0.0.1:1", "--drain", "-5s", "--no-store"}, "experiment.drain_timeout: -5s: cannot be negative"},
		{"label with a line break", []string{"load", "--rpc", "http://127.0.0.1:1", "--label", "who=me\nwhat=cut", "--no-store"}, `label "who=me\nwhat=cut" holds a line break`},
		{"threshold inf", []string{"compare", "a", "b", "--threshold", "inf", "--db", filepath.Join(tmp, "none.db")}, "--threshold +Inf"},
		{"keyword dsn", []string{"runs", "list", "--db", "host=db password=s3cret"}, "a keyword DSN"},
		{"unknown db scheme", []string{"runs", "list", "--db", "mysql://u:s3cret@db/x"}, `unknown URL scheme "mysql"`},
		{"db a directory", []string{"runs", "list", "--db", tmp}, "is a directory"},
		{"unknown example", []string{"scenario", "example", "find-mx"}, `no example "find-mx" (did you mean "find-max"?)`},
		{"unknown subcommand", []string{"runs", "lst"}, `unknown command "lst" for "chainperf runs" (did you mean "list"?)`},
		{"validators overflow", []string{"scenario", "check", write("big.toml", "[testnet]\nvalidators = 9223372036854775807\nfull_nodes = 1\n")}, "big.toml:2: testnet.validators: 9223372036854775807: at most 200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inputs := listing(tmp)
			out, code := cliLeavesNothing(t, reg, tc.args...)
			if after := listing(tmp); after != inputs {
				t.Errorf("the inputs' folder changed:\nbefore %s\nafter  %s", inputs, after)
			}
			if code != 2 {
				t.Errorf("exit code %d; want 2\n%s", code, out)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output %q; want it to contain %q", out, tc.want)
			}
			if lines := strings.Count(strings.TrimSpace(out), "\n") + 1; lines != 1 {
				t.Errorf("error takes %d lines; want 1:\n%s", lines, out)
			}
			if strings.Contains(out, "s3cret") {
				t.Errorf("a password reached the output:\n%s", out)
			}
		})
	}
	if entries, _ := registered(reg); len(entries) != 0 {
		t.Errorf("bad input left %d registry entries", len(entries))
	}
	if dbs, _ := filepath.Glob(filepath.Join(tmp, "*.db")); len(dbs) != 0 {
		t.Errorf("bad input made databases: %v", dbs)
	}
}

// cliLeavesNothing runs chainperf like cli, in a working dir and a
// TMPDIR of its own, and fails the test if it left anything there, a
// network namespace or a process.
func cliLeavesNothing(t *testing.T, reg string, args ...string) (string, int) {
	t.Helper()
	cwd, tmpdir := t.TempDir(), t.TempDir()
	netns := listing("/run/netns")
	cmd := exec.Command(binary, args...)
	cmd.Dir = cwd
	cmd.Env = append(registryEnv(t, reg), "TMPDIR="+tmpdir)
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("run chainperf %v: %v", args, err)
	}
	for _, dir := range []string{cwd, tmpdir} {
		if left := listing(dir); left != "" {
			t.Errorf("left in %s: %s", dir, left)
		}
	}
	if after := listing("/run/netns"); after != netns {
		t.Errorf("network namespaces changed:\nbefore %s\nafter  %s", netns, after)
	}
	if procs := processesUnder(cwd, tmpdir); len(procs) > 0 {
		t.Errorf("processes left running: %v", procs)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// TestBadScenariosThroughRun: every bad scenario of the parser's table,
// given to `chainperf run`, exits 2 with its error (file:line) on one
// line and leaves nothing behind.
func TestBadScenariosThroughRun(t *testing.T) {
	reg := t.TempDir()
	for _, tc := range scenariotest.Bads {
		t.Run(tc.Name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "f.toml")
			os.WriteFile(f, []byte(tc.Doc), 0o644)
			out, code := cliLeavesNothing(t, reg, "run", f, "--db", filepath.Join(dir, "runs.db"))
			if code != 2 || !strings.Contains(out, tc.Want) {
				t.Errorf("exit %d, %q; want 2 and %q", code, out, tc.Want)
			}
			if listing(dir) != "f.toml" {
				t.Errorf("left beside the scenario: %s", listing(dir))
			}
		})
	}
	if entries, _ := registered(reg); len(entries) != 0 {
		t.Errorf("bad scenarios left %d registry entries", len(entries))
	}
}

// listing names what a folder holds ("" for nothing or no folder).
func listing(dir string) string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// processesUnder lists the processes whose command line or working dir
// names one of dirs (a node's home is under them).
func processesUnder(dirs ...string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		cwd, _ := os.Readlink(filepath.Join(p, "cwd"))
		for _, d := range dirs {
			if strings.Contains(string(cmdline), d) || strings.HasPrefix(cwd, d) {
				out = append(out, filepath.Base(p)+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
			}
		}
	}
	return out
}

func height(rpc string) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", rpc+"/status", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	s := buf.String()
	i := strings.Index(s, `"latest_block_height":"`)
	if i < 0 {
		return 0
	}
	s = s[i+len(`"latest_block_height":"`):]
	h, _ := strconv.ParseInt(s[:strings.IndexByte(s, '"')], 10, 64)
	return h
}

// TestExternalBinary runs a testnet on a plain `cometbft` binary (built from
// the pinned module) instead of the embedded node.
func TestExternalBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	// Beside the other tests: it times nothing (heights that rise
	// within a minute).
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "cometbft")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/cometbft/cometbft/cmd/cometbft").CombinedOutput(); err != nil {
		t.Fatalf("build cometbft: %v\n%s", err, out)
	}
	reg := t.TempDir()
	dir := filepath.Join(t.TempDir(), "net")
	scn := filepath.Join(t.TempDir(), "ext.toml")
	os.WriteFile(scn, []byte(fmt.Sprintf("[testnet]\nvalidators = 2\nfull_nodes = 1\nbinary = %q\n", bin)), 0o644)
	out, code := cli(t, reg, "testnet", "up", "-f", scn, "--detach", "--dir", dir)
	t.Cleanup(func() { cli(t, reg, "testnet", "down", "--dir", dir) })
	if code != 0 {
		t.Fatalf("up: exit %d\n%s", code, out)
	}
	st, err := testnet.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range st.Nodes {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", n.PID))
		if !bytes.HasPrefix(cmdline, []byte(bin)) {
			t.Errorf("%s runs %q; want %s", n.Name, cmdline, bin)
		}
		waitHeight(t, n.Name, n.Endpoint().RPC, 3)
	}
	if out, code := cli(t, reg, "testnet", "down", "--dir", dir); code != 0 {
		t.Fatalf("down: exit %d\n%s", code, out)
	}
	waitNoProcs(t, dir)
}

// waitHeight fails the test when the node is not at height h within 60 s.
func waitHeight(t *testing.T, name, rpc string, h int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := height(rpc)
		if got >= h {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s at height %d after 60s; want %d", name, got, h)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestSecondSignal: the first signal cancels the command, the second
// quits at once; the quick teardown (clean.Mine) stops this harness's own
// testnet: nodes, temp dir, registry entry.
func TestSecondSignal(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	ctx, cancel := context.WithCancel(context.Background())
	quit := make(chan struct{})
	go onSignals(sigs, cancel, func() { close(quit) })
	sigs <- syscall.SIGINT
	<-ctx.Done()
	select {
	case <-quit:
		t.Fatal("quit after one signal")
	case <-time.After(50 * time.Millisecond):
	}
	sigs <- syscall.SIGINT
	select {
	case <-quit:
	case <-time.After(time.Second):
		t.Fatal("no quit after a second signal")
	}
	if testing.Short() {
		return
	}
	reg := t.TempDir()
	t.Setenv("CHAINPERF_REGISTRY", reg)
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 2\nfull_nodes = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	net, err := live.Up(context.Background(), s.Testnet, live.UpOptions{Exe: binary})
	if err != nil {
		t.Fatal(err)
	}
	dir := net.Testnet.Dir
	waitProcs(t, dir, 2)
	if n := clean.Mine(context.Background()); n != 1 {
		t.Errorf("Mine tore down %d testnets; want 1", n)
	}
	waitNoProcs(t, dir)
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("temp dir %s survives", dir)
	}
	if states, _ := registered(reg); len(states) != 0 {
		t.Errorf("registry keeps %d entries", len(states))
	}
}

// scenario check says when the scale profile will apply: from 16
// validators by itself, never when it is off.
func TestScenarioCheckNamesTheScaleProfile(t *testing.T) {
	// No node, nothing timed: the beside tier.
	t.Parallel()
	reg := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"[testnet]\nvalidators = 20\n", true},
		{"[testnet]\nvalidators = 4\n", false},
		{"[testnet]\nvalidators = 20\nscale_profile = \"off\"\n", false},
	} {
		out, code := cli(t, reg, "scenario", "check", write("s.toml", tc.text))
		if code != 0 || strings.Contains(out, "scale profile peers,procs,log,timeouts,gossip") != tc.want {
			t.Errorf("%q: exit %d, %q; want the scale profile named: %v", tc.text, code, out, tc.want)
		}
	}
}

// TestCPUProfileIsTheHarnessOnly: CHAINPERF_CPUPROFILE profiles the harness
// only. Node processes are chainperf too: they must not inherit it (each
// would start a profile into the same file, and a node's pprof endpoint
// would answer "cpu profiling already in use").
func TestCPUProfileIsTheHarnessOnly(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	t.Setenv("CHAINPERF_CPUPROFILE", prof)
	cmd, dir := upForeground(t, t.TempDir(), "[testnet]\nvalidators = 2\nfull_nodes = 0\n")
	pids := nodeProcs(t, dir)
	if len(pids) != 2 {
		t.Fatalf("%d node processes, want 2", len(pids))
	}
	for _, pid := range pids {
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(env, []byte("CHAINPERF_CPUPROFILE=")) {
			t.Errorf("node process %d inherited CHAINPERF_CPUPROFILE", pid)
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	waitNoProcs(t, dir)
	f, err := os.Open(prof)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil || len(p.SampleType) == 0 || p.SampleType[0].Type != "samples" {
		t.Errorf("the harness's profile: %v, %+v", err, p)
	}
}

// TestScenarioCheckSaysThePlan: scenario check says what will run (an
// external network's own nodes, find-max's own length), not the default
// shape and the [load] section.
func TestScenarioCheckSaysThePlan(t *testing.T) {
	// No node, nothing timed: the beside tier.
	t.Parallel()
	p := filepath.Join(t.TempDir(), "s.toml")
	text := "[testnet]\nprovider = \"external\"\n[[testnet.node]]\nrole = \"full\"\nrpc = \"http://127.0.0.1:26657\"\n[[testnet.node]]\nrole = \"validator\"\nrpc = \"http://127.0.0.1:26660\"\n[experiment]\nkind = \"find-max\"\nfind_max_duration = \"90s\"\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := cli(t, t.TempDir(), "scenario", "check", p)
	if code != 0 || !strings.Contains(out, "will run 2 nodes of an external network, find-max for 1m30s") {
		t.Errorf("exit %d: %q; want the plan", code, out)
	}
}
