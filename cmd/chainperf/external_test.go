package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet"
)

// TestExternalNetwork: a detached local testnet plays someone else's
// network, reached only by URLs. A scenario with the external provider
// runs steady on it and is stored and reported with the nodes' own process
// metrics; `chainperf load` stores its run too (and not with --no-store);
// the two compare; a fault and a target off this machine are refused.
func TestExternalNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	t.Parallel()
	reg, tmp := t.TempDir(), t.TempDir()
	dir := filepath.Join(tmp, "net")
	if out, code := cli(t, reg, "testnet", "up", "--detach", "--dir", dir); code != 0 {
		t.Fatalf("testnet up: exit %d\n%s", code, out)
	}
	t.Cleanup(func() { cli(t, reg, "testnet", "down", "--dir", dir) })
	st, err := testnet.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	var nodes strings.Builder
	var fullRPC string
	for _, n := range st.Nodes {
		e := n.Endpoint()
		fmt.Fprintf(&nodes, "[[testnet.node]]\nname = %q\nrole = %q\nrpc = %q\nmetrics = %q\n", n.Name, n.Role, e.RPC, e.Metrics)
		if n.Role == testnet.RoleFull {
			fullRPC = e.RPC
		}
	}
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	db, reports := filepath.Join(tmp, "runs.db"), filepath.Join(tmp, "reports")
	// besideOthers: the subject is the external network, not the load's
	// timing (a CI run beside the other tiers' tests saw a p99 lag of 52 ms).
	ext := write("ext.toml", besideOthers(`name = "ext"
[testnet]
provider = "external"
[load]
rate = 100
duration = "8s"
[experiment]
kind = "steady"
warmup = "2s"
cooldown = "1s"
[observe]
interval = "500ms"
`+nodes.String()))
	out, code := cli(t, reg, "run", ext, "--db", db, "--report-dir", reports)
	if code != 0 {
		t.Fatalf("run on the external network: exit %d\n%s", code, out)
	}
	runID := regexp.MustCompile(`run (\d{8}-\d{6}-[0-9a-f]{4}): PASS`).FindStringSubmatch(out)
	if runID == nil || !strings.Contains(out, "800 sent = 800 committed") {
		t.Fatalf("run output lacks a passed run with 800 committed:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(reports, runID[1], "report.html")); err != nil {
		t.Errorf("no report: %v", err)
	}
	if show, _ := cli(t, reg, "runs", "show", runID[1], "--db", db); !strings.Contains(show, "external network") {
		t.Errorf("the stored run does not say it ran on an external network:\n%s", show)
	}
	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	series, err := sdb.Series(context.Background(), runID[1])
	sdb.Close()
	seen := map[string]bool{} // series + node
	for _, s := range series {
		if (s.Series == observe.SeriesRSS || s.Series == observe.SeriesCPU) && s.Value > 0 {
			seen[s.Series+" "+s.Node] = true
		}
	}
	for _, n := range st.Nodes {
		for _, series := range []string{observe.SeriesRSS, observe.SeriesCPU} {
			if err != nil || !seen[series+" "+n.Name] {
				t.Errorf("no %s of %s from its own metrics (%v)", series, n.Name, err)
			}
		}
	}

	// chainperf load stores its run and names it.
	out, code = cli(t, reg, "load", "--rpc", fullRPC, "--rate", "100", "--duration", "4s", "--db", db, "--report-dir", reports)
	if code != 0 {
		t.Fatalf("load: exit %d\n%s", code, out)
	}
	loadID := regexp.MustCompile(`run (\d{8}-\d{6}-[0-9a-f]{4}): PASS`).FindStringSubmatch(out)
	if loadID == nil || !strings.Contains(out, "stored in") {
		t.Fatalf("load output names no stored run:\n%s", out)
	}
	if list, _ := cli(t, reg, "runs", "list", "--db", db); !strings.Contains(list, loadID[1]) || !strings.Contains(list, runID[1]) {
		t.Errorf("runs list lacks the runs:\n%s", list)
	}
	// Filed as a load run, not among the default scenario's runs.
	if ids, _ := cli(t, reg, "runs", "list", "--db", db, "--scenario", "load"); !strings.Contains(ids, loadID[1]) {
		t.Errorf("the load run is not filed under scenario load:\n%s", ids)
	}
	// One 4 s run a side has too short a window for per-second batches:
	// compare says it cannot decide (exit 3), not "unchanged".
	if out, code := cli(t, reg, "compare", "--force", loadID[1], loadID[1], "--db", db); code != 3 || !strings.Contains(out, "committed") || !strings.Contains(out, "INCONCLUSIVE") {
		t.Errorf("compare of a load run: exit %d; want 3, inconclusive\n%s", code, out)
	}
	out, code = cli(t, reg, "load", "--rpc", fullRPC, "--rate", "50", "--duration", "2s", "--no-store", "--db", db)
	if code != 0 || !strings.Contains(out, "not stored (--no-store)") {
		t.Errorf("load --no-store: exit %d\n%s", code, out)
	}

	// A recorded workload replayed: kvstore txs in hex and base64, each
	// found in a block afterwards; a load that needs more txs than the
	// file holds is refused before it starts.
	var rec strings.Builder
	rec.WriteString("# recorded by hand\n")
	var replayed []string
	for i := range 150 {
		tx := fmt.Sprintf("replay%d-%d=v", time.Now().UnixNano(), i)
		replayed = append(replayed, tx)
		if i%2 == 0 {
			fmt.Fprintf(&rec, "%x\n", tx)
		} else {
			fmt.Fprintf(&rec, "%s\n", base64.StdEncoding.EncodeToString([]byte(tx)))
		}
	}
	txFile := filepath.Join(t.TempDir(), "txs.txt")
	if err := os.WriteFile(txFile, []byte(rec.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = cli(t, reg, "load", "--rpc", fullRPC, "--txs", txFile, "--rate", "50", "--duration", "2s", "--no-store", "--db", db)
	if code != 0 || !strings.Contains(out, "replay of "+txFile) {
		t.Fatalf("load --txs: exit %d\n%s", code, out)
	}
	for _, i := range []int{0, 1, 99} {
		var r struct {
			Result *struct {
				Height string `json:"height"`
			} `json:"result"`
		}
		if err := getJSON(fmt.Sprintf("%s/tx?hash=0x%X", fullRPC, sha256.Sum256([]byte(replayed[i]))), &r); err != nil || r.Result == nil {
			t.Errorf("replayed tx %d (%q) is in no block: %v", i, replayed[i], err)
		}
	}
	out, code = cli(t, reg, "load", "--rpc", fullRPC, "--txs", txFile, "--rate", "100", "--duration", "2s", "--no-store", "--db", db)
	if code == 0 || !strings.Contains(out, "has 150 left of 150") {
		t.Errorf("a load past the file's txs: exit %d\n%s", code, out)
	}

	// A load at the sink is stored too, marked as such, with no block followed.
	ln, sinkURL, err := load.ListenSink("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stopSink := context.WithCancel(context.Background())
	defer stopSink()
	go (&load.Sink{}).Serve(sctx, ln)
	out, code = cli(t, reg, "load", "--rpc", sinkURL, "--rate", "200", "--duration", "1s", "--db", db, "--report-dir", reports)
	sinkID := regexp.MustCompile(`run (\d{8}-\d{6}-[0-9a-f]{4}): `).FindStringSubmatch(out)
	if code != 0 || sinkID == nil || !strings.Contains(out, "stored in") {
		t.Fatalf("load at the sink: exit %d\n%s", code, out)
	}
	list, _ := cli(t, reg, "runs", "list", "--db", db)
	marked := false
	for _, line := range strings.Split(list, "\n") {
		marked = marked || strings.Contains(line, sinkID[1]) && strings.Contains(line, "target=sink")
	}
	if !marked {
		t.Errorf("the sink run %s is not marked target=sink:\n%s", sinkID[1], list)
	}

	// What an external network cannot do, or may not be sent, is refused.
	for _, tc := range []struct {
		name, text, want string
	}{
		{"fault", "[[perturbation]]\nkind = \"kill\"\nnodes = [\"validator3\"]\nat = \"2s\"\nduration = \"2s\"\n",
			`kill needs provider "process" or "netns" or "kubernetes": the "external" provider cannot kill nodes`},
		{"off this machine", "", `is not on this machine: load a network only if it is yours`},
	} {
		text := strings.Replace(string(mustRead(t, ext)), nodes.String(), "", 1) + tc.text
		if tc.name == "off this machine" {
			text += "[[testnet.node]]\nrole = \"full\"\nrpc = \"http://user:secret@192.0.2.7:26657\"\n"
		} else {
			text += nodes.String()
		}
		out, code := cli(t, reg, "scenario", "check", write(tc.name+".toml", text))
		if code != 2 || !strings.Contains(out, tc.want) || strings.Contains(out, "secret") {
			t.Errorf("%s: exit %d, %q; want exit 2 with %q and no password", tc.name, code, out, tc.want)
		}
	}
	if out, code := cli(t, reg, "load", "--rpc", "http://192.0.2.7:26657", "--duration", "1s", "--db", db); code != 2 || !strings.Contains(out, "--target-is-mine") {
		t.Errorf("load to a node off this machine: exit %d, %q; want it refused", code, out)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// externalNodes is the [[testnet.node]] list of the detached testnet in
// dir, as a team would write it for its own network.
func externalNodes(t *testing.T, dir string) string {
	t.Helper()
	st, err := testnet.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	var nodes strings.Builder
	for _, n := range st.Nodes {
		e := n.Endpoint()
		fmt.Fprintf(&nodes, "[[testnet.node]]\nname = %q\nrole = %q\nrpc = %q\nmetrics = %q\n", n.Name, n.Role, e.RPC, e.Metrics)
	}
	return nodes.String()
}

// TestExternalFindMaxAndRegression: on a network chainperf did not start
// for the run, a find-max run is stored and reported, and when the
// network's operators make its blocks slower (timeout_commit 100 ms to
// 1 s: the same network shape at the same URLs' kind), compare of the
// steady runs before and after (two a side) finds the latency regression
// (exit 1).
func TestExternalFindMaxAndRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	reg, tmp := t.TempDir(), t.TempDir()
	db, reports := filepath.Join(tmp, "runs.db"), filepath.Join(tmp, "reports")
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	idRE := regexp.MustCompile(`run (\d{8}-\d{6}-[0-9a-f]{4}): PASS`)
	network := func(name, commit string) string {
		dir := filepath.Join(tmp, name)
		up := write(name+"-up.toml", "[testnet]\nvalidators = 2\nfull_nodes = 1\n[testnet.config]\n\"consensus.timeout_commit\" = \""+commit+"\"\n")
		if out, code := cli(t, reg, "testnet", "up", "-f", up, "--detach", "--dir", dir); code != 0 {
			t.Fatalf("testnet up: exit %d\n%s", code, out)
		}
		t.Cleanup(func() { cli(t, reg, "testnet", "down", "--dir", dir) })
		return dir
	}
	run := func(name, experiment, nodes string) string {
		t.Helper()
		out, code := cli(t, reg, "run", write(name+".toml", "name = \"ext\"\n[testnet]\nprovider = \"external\"\n"+experiment+nodes), "--db", db, "--report-dir", reports)
		id := idRE.FindStringSubmatch(out)
		if code != 0 || id == nil {
			t.Fatalf("%s: exit %d\n%s", name, code, out)
		}
		if _, err := os.Stat(filepath.Join(reports, id[1], "report.html")); err != nil {
			t.Errorf("%s: no report: %v", name, err)
		}
		return id[1]
	}
	// 5 s a run: blocks every 100 ms against every 1 s, a tenfold change
	// in latency, shows in a 3 s window (8 s runs gave the same verdict).
	steady := "[load]\nrate = 100\nduration = \"5s\"\n[experiment]\nkind = \"steady\"\nwarmup = \"1s\"\ncooldown = \"1s\"\n"

	fast := network("fast", "100ms")
	nodes := externalNodes(t, fast)
	// Two runs a side: one cannot show how runs differ.
	before := run("before", steady, nodes) + "," + run("before2", steady, nodes)
	// Find-max drives the nodes into their backpressure: its load is not
	// delivered as asked by design, and a full mempool drops some txs
	// after CheckTx said OK (CI saw 0.68 % of the txs end so, every one
	// explained by those drops): load_delivered is off and up to 5 %
	// unresolved is taken here; the test is about storing and reporting
	// the run.
	findMax := run("find-max", "[load.pid]\nstart_rate = 300\n[experiment]\nkind = \"find-max\"\nfind_max_duration = \"12s\"\nfind_max_settle = \"5s\"\n[criteria]\nload_delivered = false\nmax_unresolved_share = 0.05\n", nodes)
	show, _ := cli(t, reg, "runs", "show", findMax, "--db", db)
	if !strings.Contains(show, "max sustainable") || !strings.Contains(show, "external network") {
		t.Errorf("the find-max run does not show its max sustainable rate on an external network:\n%s", show)
	}
	cli(t, reg, "testnet", "down", "--dir", fast)

	slow := network("slow", "1s")
	slowNodes := externalNodes(t, slow)
	after := run("after", steady, slowNodes) + "," + run("after2", steady, slowNodes)
	out, code := cli(t, reg, "compare", before, after, "--db", db)
	t.Logf("compare before after:\n%s", out)
	if code != 1 || !regexp.MustCompile(`REGRESSED: latency p50`).MatchString(out) {
		t.Errorf("compare before/after a 10x slower commit: exit %d; want 1 with latency p50 regressed\n%s", code, out)
	}
	if out, code := cli(t, reg, "compare", before, before, "--db", db); code != 2 || !strings.Contains(out, "on both sides") {
		t.Errorf("a run compared with itself: exit %d; want 2, refused\n%s", code, out)
	}
	if out, code := cli(t, reg, "compare", "--force", before, before, "--db", db); code == 1 {
		t.Errorf("a run compared with itself regressed:\n%s", out)
	}
}

// getJSON decodes the JSON answer of a GET of url into v.
func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}
