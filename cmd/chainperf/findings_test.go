package main

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/dashboard"
	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/report"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
)

// madeUp is a producer only this test has: two figures (one gated), a
// table and a summary line. No reader knows it.
func madeUp(verifyMS float64) finding.Finding {
	return finding.Finding{
		Source: "observer/made-up", Title: "Made-up verifier", Note: "A producer only the test knows.",
		Figures: []finding.Figure{
			{Name: "made-up verify ms", Unit: "ms", Value: verifyMS, SE: verifyMS / 200, DF: 7, Better: finding.Lower, Gate: true},
			{Name: "made-up cache hits", Unit: "share", Value: 0.25, Better: finding.Higher, Points: true},
		},
		Tables: []finding.Table{{Title: "Made-up per node", Columns: []string{"node", "verifications"},
			Rows: [][]string{{"validator0", "made-up-cell-4711"}}}},
		Summary: []finding.Line{{Label: "made-up", Text: "made-up summary line"}},
	}
}

// TestAnyFindingReachesEveryReader: a made-up finding from a test-only
// producer, stored with two runs, appears in report.md and report.html,
// `runs show`, the dashboard's run page, compare's table (its gated figure
// gating: doubled, it regresses and compare exits 1) and the run summary,
// with no change to any reader.
func TestAnyFindingReachesEveryReader(t *testing.T) {
	if err := (&finding.Finding{}).Check(); err == nil {
		t.Fatal("an empty finding passed its check")
	}
	if f := madeUp(100); f.Check() != nil {
		t.Fatal(f.Check())
	}
	tmp, reg := t.TempDir(), t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	// Two runs a side: one cannot show how runs differ.
	for i, id := range []string{"base", "cand", "base2", "cand2"} {
		storeRunWith(t, st, id, results.StatusComplete, 500, 1800, 0.02, uint64(i+1), func(r *results.Run) {
			r.SetFinding(madeUp(100 * float64(i%2+1)))
		})
	}
	want := []string{"Made-up verifier", "made-up verify ms", "made-up cache hits", "Made-up per node", "made-up-cell-4711"}
	has := func(where, text string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q", where, w)
			}
		}
	}

	out, code := cli(t, reg, "report", "cand", "--db", db, "--report-dir", tmp)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	for _, name := range []string{"report.md", "report.html"} {
		has(name, string(mustRead(t, filepath.Join(tmp, "cand", name))), want...)
	}
	out, _ = cli(t, reg, "runs", "show", "cand", "--db", db)
	has("runs show", out, want...)

	out, code = cli(t, reg, "compare", "base,base2", "cand,cand2", "--all", "--db", db)
	if code != 1 || !strings.Contains(out, "REGRESSED: made-up verify ms") {
		t.Errorf("compare of a doubled gated made-up figure: exit %d\n%s", code, out)
	}
	has("compare", out, "made-up verify ms", "made-up cache hits")

	srv, err := dashboard.New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/runs/cand")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("dashboard run page: %s\n%s", resp.Status, page)
	}
	has("dashboard run page", string(page), want...)

	r, err := st.Run(ctx, "cand")
	if err != nil {
		t.Fatal(err)
	}
	var sum bytes.Buffer
	report.Summary(&sum, r, []string{"report.md"})
	has("run summary", sum.String(), "  made-up:    made-up summary line")
	st.Close()
}

// TestRunsStoredBeforeFindings: a database the build before findings were
// data wrote (testdata/before-findings.db: two kvstore runs with repeats,
// two Cosmos runs with a message mix and an EVM run with native and ERC20
// txs, made with that build's `chainperf run`) opens, renders, exports
// and compares as it did. report.md is the one that build wrote
// (testdata/before-findings/ID.md) but for the chain's figures table, and
// the run summary is the one it printed (ID.summary).
func TestRunsStoredBeforeFindings(t *testing.T) {
	// No node, nothing timed: the beside tier.
	t.Parallel()
	tmp, reg := t.TempDir(), t.TempDir()
	db := filepath.Join(tmp, "old.db")
	if err := os.WriteFile(db, mustRead(t, "testdata/before-findings.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	const kv1, kv2, c1, c2, e1 = "20261125-080430-9cbe", "20261125-080502-f0db", "20261125-080536-d3ae", "20261125-080556-741d", "20261125-081030-4100"
	out, code := cli(t, reg, "runs", "list", "--db", db)
	if code != 0 || strings.Count(out, " pass ") != 5 {
		t.Fatalf("runs list: exit %d\n%s", code, out)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, id := range []string{kv1, c1, e1} {
		if out, code := cli(t, reg, "report", id, "--db", db, "--report-dir", tmp); code != 0 {
			t.Fatalf("report %s: exit %d\n%s", id, code, out)
		}
		got := withoutFigureTables(string(mustRead(t, filepath.Join(tmp, id, "report.md"))))
		if *updateDocs { // the readers' layout changed on purpose: review the diff
			os.WriteFile(filepath.Join("testdata/before-findings", id+".md"), []byte(got), 0o644)
		}
		if want := string(mustRead(t, filepath.Join("testdata/before-findings", id+".md"))); got != want {
			t.Errorf("report.md of %s differs from the one the build before wrote:\n--- got\n%s\n--- want\n%s", id, got, want)
		}
		r, err := st.Run(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var sum bytes.Buffer
		report.Summary(&sum, r, nil)
		got = strings.TrimSuffix(sum.String(), "report: \n")
		if want := string(mustRead(t, filepath.Join("testdata/before-findings", id+".summary"))); got != want {
			t.Errorf("run summary of %s differs from the one the build before printed:\n--- got\n%s\n--- want\n%s", id, got, want)
		}
	}
	md := string(mustRead(t, filepath.Join(tmp, c1, "report.md")))
	for _, w := range []string{"## Cosmos SDK chain: figures", "| msg/s send | 37.40 msg/s | higher | informs |",
		"| wallet funds not conserved (held + fees != funded) | 0 | lower | criterion <= 0 |"} {
		if !strings.Contains(md, w) {
			t.Errorf("report.md of a stored Cosmos run lacks %q\n%s", w, md)
		}
	}
	out, code = cli(t, reg, "runs", "export", c1, "--db", db)
	if code != 0 || !strings.Contains(out, `"source": "chain/cosmos"`) && !strings.Contains(out, `"source":"chain/cosmos"`) {
		t.Errorf("export: exit %d, no Cosmos finding\n%.2000s", code, out)
	}
	// Its node samples (a row a value then) export as they were stored.
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	var first string
	err = raw.QueryRow(`SELECT (SELECT COUNT(*) FROM node_series WHERE run_id = ?), MIN(at || ',' || node || ',' || series || ',' || value) FROM node_series WHERE run_id = ? AND at = (SELECT MIN(at) FROM node_series WHERE run_id = ?)`, kv1, kv1, kv1).Scan(&rows, &first)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, code = cli(t, reg, "runs", "export", kv1, "--format", "series", "--db", db)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || rows < 100 || len(lines) != rows+1 || lines[0] != "at,node,series,value" || !strings.Contains(out, first) {
		t.Errorf("export --format series: exit %d, %d lines; want a header and the %d stored, %q among them\n%.500s", code, len(lines), rows, first, out)
	}
	out, code = cli(t, reg, "compare", c1, c2, "--all", "--db", db)
	if code == 2 || !strings.Contains(out, "msg/s send") || !strings.Contains(out, "msg latency p99 multisend") || strings.Contains(out, "not conserved") {
		t.Errorf("compare of two stored Cosmos runs: exit %d\n%s", code, out)
	}
	out, code = cli(t, reg, "compare", kv1, kv2, "--db", db)
	if code == 2 || !strings.Contains(out, "committed tx/s") || strings.Contains(out, "msg/s") {
		t.Errorf("compare of two stored kvstore runs: exit %d\n%s", code, out)
	}
}

// withoutFigureTables is report.md less the sections "## TITLE: figures"
// that findings added.
func withoutFigureTables(md string) string {
	var out []string
	skip := false
	for _, l := range strings.SplitAfter(md, "\n") {
		if strings.HasPrefix(l, "## ") {
			skip = strings.HasSuffix(strings.TrimSpace(l), ": figures")
		}
		if !skip {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
