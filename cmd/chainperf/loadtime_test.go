package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet"
)

// TestCometBFTReportReadsALoadtimeRun: after a run of the loadtime
// workload, CometBFT's own `report` tool (test/loadtime/cmd/report, built
// from the pinned CometBFT module) reads a node's block store and finds
// every committed tx, none invalid, with latencies (block H+1's time - the
// payload's time) whose median and max agree with chainperf's QA inclusion
// latency (block H+1's time - intended send time) within 1 %.
func TestCometBFTReportReadsALoadtimeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	t.Parallel()
	tmp := t.TempDir()
	report := filepath.Join(tmp, "cometbft-report")
	if out, err := exec.Command("go", "build", "-o", report, "github.com/cometbft/cometbft/test/loadtime/cmd/report").CombinedOutput(); err != nil {
		t.Fatalf("build CometBFT's report tool: %v\n%s", err, out)
	}
	reg, dir := t.TempDir(), filepath.Join(tmp, "net")
	up := filepath.Join(tmp, "up.toml")
	os.WriteFile(up, []byte("[testnet]\nvalidators = 1\nfull_nodes = 1\n"), 0o644)
	if out, code := cli(t, reg, "testnet", "up", "-f", up, "--detach", "--dir", dir); code != 0 {
		t.Fatalf("testnet up: exit %d\n%s", code, out)
	}
	t.Cleanup(func() { cli(t, reg, "testnet", "down", "--dir", dir) })
	scn := filepath.Join(tmp, "lt.toml")
	// Beside other testnets (a CI run: its load not delivered as asked):
	// the subject is what CometBFT's tool reads, not the schedule.
	os.WriteFile(scn, []byte(besideOthers(`name = "loadtime"
[testnet]
provider = "external"
[workload]
kind = "loadtime"
tx_size = 200
[load]
rate = 150
duration = "8s"
[experiment]
kind = "steady"
warmup = "0s"
cooldown = "0s"
`+externalNodes(t, dir))), 0o644)
	db := filepath.Join(tmp, "runs.db")
	out, code := cli(t, reg, "run", scn, "--db", db, "--report-dir", filepath.Join(tmp, "reports"))
	id := regexp.MustCompile(`run (\d{8}-\d{6}-[0-9a-f]{4}): PASS`).FindStringSubmatch(out)
	if code != 0 || id == nil || !strings.Contains(out, "1200 sent = 1200 committed") {
		t.Fatalf("loadtime run: exit %d\n%s", code, out)
	}
	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sdb.Run(context.Background(), id[1])
	blocks, _ := sdb.Blocks(context.Background(), id[1])
	sdb.Close()
	// chainperf timed the txs of every block whose next block it read;
	// the report those of every block but the store's last two.
	var lastTxs, lastSeen int64
	var seenUntil time.Time
	for _, b := range blocks[0] {
		if b.Txs > 0 {
			lastTxs = max(lastTxs, b.Height)
		}
		if b.Height > lastSeen {
			lastSeen, seenUntil = b.Height, b.Time
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	ours := r.Phases[0].Ledger.Inclusion

	// The report tool opens the block store, which the node holds locked:
	// stop the validator (a process this test's testnet started).
	st, err := testnet.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := st.Nodes[0]
	if v.Role != testnet.RoleValidator || v.PID == 0 {
		t.Fatalf("node 0 is %s %s, pid %d", v.Name, v.Role, v.PID)
	}
	for deadline := time.Now().Add(30 * time.Second); nodeHeight(t, v.Endpoint().RPC) < lastTxs+2; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not reach height %d", v.Name, lastTxs+2)
		}
	}
	syscall.Kill(v.PID, syscall.SIGTERM)
	for deadline := time.Now().Add(20 * time.Second); syscall.Kill(v.PID, 0) == nil; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not stop", v.Name)
		}
	}
	data := filepath.Join(v.Home, "data")
	text, err := exec.Command(report, "--database-type", "goleveldb", "--data-dir", data).CombinedOutput()
	if err != nil {
		t.Fatalf("report: %v\n%s", err, text)
	}
	t.Logf("CometBFT's report:\n%s", text)
	if !strings.Contains(string(text), "Total Invalid Tx: 0") || !strings.Contains(string(text), "Rate: 150") {
		t.Errorf("report found invalid txs or not the run's rate")
	}
	csvPath := filepath.Join(tmp, "latencies.csv")
	if out, err := exec.Command(report, "--database-type", "goleveldb", "--data-dir", data, "--csv", csvPath).CombinedOutput(); err != nil {
		t.Fatalf("report --csv: %v\n%s", err, out)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) < 2 || rows[0][2] != "duration_ns" {
		t.Fatalf("csv: %v, %d rows", err, len(rows))
	}
	var ms []float64
	all := len(rows) - 1
	for _, row := range rows[1:] {
		if bt, err := strconv.ParseInt(row[1], 10, 64); err != nil || bt > seenUntil.UnixNano() {
			continue // its block's successor came after chainperf stopped reading
		}
		ns, err := strconv.ParseInt(row[2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, float64(ns)/1e6)
	}
	sort.Float64s(ms)
	if all != 1200 || int64(len(ms)) != ours.Count {
		t.Errorf("report read %d of the 1200 txs; %d of them in blocks up to %d, which chainperf timed %d of", all, len(ms), lastSeen, ours.Count)
	}
	if len(ms) == 0 {
		t.FailNow()
	}
	p50 := ms[int(math.Ceil(0.5*float64(len(ms))))-1]
	max := ms[len(ms)-1]
	t.Logf("median: report %.2f ms, chainperf %.2f ms; max: report %.2f ms, chainperf %.2f ms (%d vs %d txs)", p50, ours.P50, max, ours.Max, len(ms), ours.Count)
	for _, c := range []struct {
		what         string
		theirs, ours float64
	}{{"median", p50, ours.P50}, {"max", max, ours.Max}} {
		if math.Abs(c.ours-c.theirs) > 0.01*c.theirs {
			t.Errorf("%s latency: CometBFT's report %.2f ms, chainperf %.2f ms: more than 1 %% apart", c.what, c.theirs, c.ours)
		}
	}
}

// nodeHeight is the latest height of the node at rpc (0 when it does not
// answer).
func nodeHeight(t *testing.T, rpc string) int64 {
	t.Helper()
	resp, err := http.Get(rpc + "/status")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var st struct {
		Result struct {
			SyncInfo struct {
				Height string `json:"latest_block_height"`
			} `json:"sync_info"`
		} `json:"result"`
	}
	json.NewDecoder(resp.Body).Decode(&st)
	h, _ := strconv.ParseInt(st.Result.SyncInfo.Height, 10, 64)
	return h
}
