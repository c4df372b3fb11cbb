package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/browser/browsertest"
	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
)

const dashScenario = `name = "dash"
[testnet]
validators = 2
full_nodes = 1
[load]
rate = 150
duration = "20s"
[experiment]
kind = "steady"
warmup = "2s"
cooldown = "1s"
[[perturbation]]
kind = "pause"
nodes = ["full0"]
at = "4s"
duration = "3s"
`

// freePort returns a loopback address nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestDashboardOnRealRuns runs the scenario on real nodes, serves the
// database with `chainperf serve`, and opens every page in Chromium: the
// numbers shown are the stored ones, the charts are drawn, no console
// error; a second run's page updates while that run writes, and its
// live Prometheus figures answer. CHAINPERF_SCREENSHOTS=DIR saves each
// page (the README's pictures come from there).
func TestDashboardOnRealRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	t.Parallel()
	b := browsertest.Start(t)
	tmp := t.TempDir()
	reg, db := t.TempDir(), filepath.Join(tmp, "runs.db")
	scn := filepath.Join(tmp, "dash.toml")
	os.WriteFile(scn, []byte(dashScenario), 0o644)
	reports := filepath.Join(tmp, "reports")
	if out, code := cli(t, reg, "run", scn, "--db", db, "--report-dir", reports, "--label", "branch=main"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}

	addr := freePort(t)
	serve := exec.Command(binary, "serve", "--db", db, "--addr", addr)
	var serveOut bytes.Buffer
	serve.Stdout, serve.Stderr = &serveOut, &serveOut
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		serve.Process.Signal(syscall.SIGINT)
		serve.Wait()
	}()
	base := "http://" + addr
	for i := 0; ; i++ {
		if resp, err := http.Get(base + "/"); err == nil {
			resp.Body.Close()
			break
		}
		if i > 100 {
			t.Fatalf("serve did not answer:\n%s", serveOut.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	shots := os.Getenv("CHAINPERF_SCREENSHOTS")
	look := func(path, name string, charts int) {
		t.Helper()
		if _, err := b.Open(base+path, 30*time.Second); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		painted, err := b.Painted()
		if err != nil {
			t.Fatal(err)
		}
		blank := 0
		for _, n := range painted {
			if n == 0 {
				blank++
			}
		}
		if len(painted) < charts || blank > 0 {
			t.Errorf("%s: %d charts, %d blank; want at least %d drawn", path, len(painted), blank, charts)
		}
		if errs := b.Errors(); len(errs) > 0 {
			t.Errorf("%s: console errors %v", path, errs)
		}
		if shots != "" {
			if err := b.Screenshot(filepath.Join(shots, name+".png")); err != nil {
				t.Error(err)
			}
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := b.Text(sel)
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return s
	}

	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	idx, err := st.Index(ctx)
	if err != nil || len(idx) != 1 {
		t.Fatalf("index %v %v", idx, err)
	}
	first, err := st.Run(ctx, idx[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	main := first.Main()

	look("/", "runs", 0)
	row := fmt.Sprintf(`tr[data-run=%q] `, first.ID)
	if got, want := text(row+"td.committed"), compare.Num(main.Figures.CommittedTPS); got != want {
		t.Errorf("runs list: committed tx/s %q, stored %q", got, want)
	}
	if got, want := text(row+"td.p99"), compare.Num(main.Figures.LatencyP99); got != want {
		t.Errorf("runs list: p99 %q, stored %q", got, want)
	}
	look("/runs/"+first.ID, "run", 9)
	if shots != "" { // the README's picture: the run page's first charts
		if err := b.ScreenshotAt("#charts", filepath.Join(shots, "run-charts.png")); err != nil {
			t.Error(err)
		}
	}
	if got := text("#status"); !strings.HasPrefix(got, "complete") {
		t.Errorf("run page status %q", got)
	}
	if got, want := text("#phases tbody tr td:nth-child(4)"), compare.Num(main.Figures.CommittedTPS); got != want {
		t.Errorf("run page: committed tx/s %q, stored %q", got, want)
	}
	if got, want := text("#fates tbody tr:first-child td.num"), strconv.FormatInt(main.Ledger.Fates["committed"], 10); got != want {
		t.Errorf("run page: committed txs %q, stored %q", got, want)
	}
	// Its report files are linked (the folder holds its summary.json).
	if got := text(`dd a[href$="/files/report.html"]`); got != "report.html" {
		t.Errorf("run page links %q, want report.html", got)
	}
	if got := text("#faults tbody td"); got != "pause" {
		t.Errorf("faults table shows %q", got)
	}

	// A second run, watched live: its page changes while it writes.
	maddr := freePort(t)
	var runOut bytes.Buffer
	second := exec.Command(binary, "run", scn, "--db", db, "--report-dir", reports, "--label", "branch=main", "--metrics-addr", maddr)
	second.Env = registryEnv(t, reg)
	second.Stdout, second.Stderr = &runOut, &runOut
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	defer second.Process.Kill()
	var liveID string
	for deadline := time.Now().Add(90 * time.Second); liveID == ""; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the second run stored no blocks:\n%s", runOut.String())
		}
		if idx, err := st.Index(ctx); err == nil && len(idx) == 2 && idx[0].Status == results.StatusRunning {
			if bs, _ := st.Blocks(ctx, idx[0].ID); len(bs[0]) >= 2 {
				liveID = idx[0].ID
			}
		}
	}
	look("/runs/"+liveID, "live", 2)
	before := text("#live-blocks")
	changed := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		if s, err := b.Text("#live-blocks"); err == nil && s != before {
			changed = true
			break
		}
	}
	if !changed {
		t.Errorf("the live page still shows %s blocks after 20 s of the run", before)
	}
	resp, err := http.Get("http://" + maddr + "/metrics")
	if err != nil {
		t.Fatalf("live metrics: %v", err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(metrics), "chainperf_sent_total") || !strings.Contains(string(metrics), "chainperf_commit_latency_seconds_bucket") {
		t.Errorf("live metrics lack the run's figures:\n%.2000s", metrics)
	}
	if err := second.Wait(); err != nil {
		t.Fatalf("second run: %v\n%s", err, runOut.String())
	}
	// The page reloads itself when the run ends.
	ended := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		if s, err := b.Text("#status"); err == nil && strings.HasPrefix(s, "complete") {
			ended = true
			break
		}
	}
	if !ended {
		t.Error("the live page did not show the run complete after it ended")
	}
	b.Errors() // the reload may cut a poll short

	look("/compare?base="+first.ID+"&cand="+liveID, "compare", 3)
	if got := text("#compare tbody tr:first-child td"); !strings.HasPrefix(got, "committed tx/s") {
		t.Errorf("compare table starts with %q", got)
	}
	if got := text("#verdict"); got == "" {
		t.Error("no verdict on the compare page")
	}
	look("/trends?scenario=dash&label=branch%3Dmain", "trends", 1)
	if got := text("#trend-count"); !strings.HasPrefix(got, "2 runs") {
		t.Errorf("trends: %q", got)
	}
	// An unknown run: a page that says so (the browser logs the 404).
	if _, err := b.Open(base+"/runs/nosuch", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	b.Errors()
	if got := text("#error"); !strings.Contains(got, "no such run") {
		t.Errorf("404 page says %q", got)
	}
}
