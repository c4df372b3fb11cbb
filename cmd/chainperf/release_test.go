package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
)

// release is the released CometBFT the QA tests build from its module.
const release = "module:github.com/cometbft/cometbft/cmd/cometbft@v1.0.1"

// A 2x2 QA grid on CometBFT v1.0.1 built from its Go module: the light
// column holds, the heavy one (far past what two validators on this
// machine commit) does not; expected counts are c*r*(T-warmup), the
// saturation cell is the lightest column's c=2, and the report prints
// the table with it marked. The nodes ran v1's own config: a key only
// v1 has ([storage] compact) is set, and refused for the embedded v0.38.
func TestQAGridOnARelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds CometBFT v1.0.1 and starts real nodes")
	}
	// The release comes from the build cache CI keeps by version (built
	// the first time); TestReleaseRefusals builds it in a cache of its own.
	tmp := t.TempDir()
	reg, db := t.TempDir(), filepath.Join(tmp, "runs.db")
	text := `name = "qa-grid"
[testnet]
validators = 2
full_nodes = 1
binary = "` + release + `"
[testnet.config]
"storage.compact" = false
"consensus.timeout_commit" = "500ms"
[experiment]
kind = "qa"
pause = "1s"
drain_timeout = "10s"
[experiment.qa]
connections = [1, 2]
rates = [40, 20000]
cell_duration = "4s"
warmup = "1s"
steady_duration = "10s"
[criteria]
load_delivered = false
`
	scn := filepath.Join(tmp, "qa.toml")
	os.WriteFile(scn, []byte(text), 0o644)
	out, code := cli(t, reg, "run", scn, "--db", db, "--report-dir", filepath.Join(tmp, "reports"))
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.List(ctx, store.Filter{Labels: map[string]string{"release": "v1.0.1"}})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs labelled release=v1.0.1: %v, %v", runs, err)
	}
	r, err := st.Run(ctx, runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Versions.Node, "cometbft 1.0.1") {
		t.Errorf("node version %q; want the release's own", r.Versions.Node)
	}
	explained(t, r, false) // v1's metric names; a QA phase takes no window profiles
	sw := r.Sweep
	if sw == nil || len(sw.Cells) != 4 {
		t.Fatalf("grid %+v; want 4 cells", sw)
	}
	want := map[[2]float64]int64{{1, 40}: 120, {1, 20000}: 60000, {2, 40}: 240, {2, 20000}: 120000}
	for _, c := range sw.Cells {
		key := [2]float64{float64(c.Connections), c.Rate}
		if c.Expected != want[key] {
			t.Errorf("cell c=%d r=%g expects %d; want c*r*(4s-1s) = %d", c.Connections, c.Rate, c.Expected, want[key])
		}
		if heavy := c.Rate == 20000; c.Saturated != heavy {
			t.Errorf("cell c=%d r=%g saturated=%v (processed %d of %d)", c.Connections, c.Rate, c.Saturated, c.Committed, c.Expected)
		}
	}
	if sw.At == nil || sw.At.Connections != 2 || sw.At.Rate != 40 || sw.Saturation != 80 {
		t.Errorf("saturation %+v at %.0f tx/s; want cell c=2 r=40, 80 tx/s", sw.At, sw.Saturation)
	}
	last := r.Phases[len(r.Phases)-1]
	if last.Name != "qa steady c=2 r=40" || last.Ledger.Sent != 800 {
		t.Errorf("last phase %q sent %d; want the steady run at the saturation cell, 800 txs", last.Name, last.Ledger.Sent)
	}
	md, err := os.ReadFile(filepath.Join(r.ReportDir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := ""
	for _, l := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(l, "| c=2 | ") {
			row = l
		}
	}
	if !strings.Contains(row, " / 240 <- saturation |") || !strings.Contains(row, " / 120000 (saturated) |") {
		t.Errorf("report.md lacks the QA table with the saturation cell:\n%s", md)
	}
	// The v1-only key is not the embedded node's.
	embedded := filepath.Join(tmp, "embedded.toml")
	os.WriteFile(embedded, []byte(strings.Replace(text, `binary = "`+release+`"`, "", 1)), 0o644)
	if out, code := cli(t, reg, "scenario", "check", embedded); code != 2 || !strings.Contains(out, "storage.compact") {
		t.Errorf("storage.compact for the embedded v0.38: exit %d\n%s", code, out)
	}
}

// What cannot run is refused before anything starts, with the reason: a
// version the module proxy does not serve, a module binary with no
// kvstore app, a config key of the wrong type for that release, and a
// version that is not a release.
func TestReleaseRefusals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go install")
	}
	// Beside the other tests: it times nothing (it only builds and is
	// refused). Its own build cache, and its own TMPDIR, so that the
	// testnet dirs it counts are its own and not the other tests'.
	t.Parallel()
	tmp, tmpdir := t.TempDir(), t.TempDir()
	env := []string{"CHAINPERF_BUILD_CACHE=" + filepath.Join(tmp, "builds"), "TMPDIR=" + tmpdir}
	reg, db := t.TempDir(), filepath.Join(tmp, "runs.db")
	base := "name = \"refuse\"\n[testnet]\nvalidators = 1\nbinary = \"%s\"\n%s[load]\nrate = 10\nduration = \"10s\"\n[experiment]\nkind = \"steady\"\n"
	for _, c := range []struct {
		name, binary, extra, want string
		exit                      int
	}{
		{"unserved version", "module:github.com/cometbft/cometbft/cmd/cometbft@v0.38.999", "", "does the Go module proxy serve that version", 2},
		{"no kvstore app", "module:github.com/cometbft/cometbft/test/loadtime/cmd/load@v0.38.19", "", "not a CometBFT node binary", 2},
		{"wrong type for the release", release, "[testnet.config]\n\"storage.compact\" = \"yes\"\n", "storage.compact: want true or false", 2},
		{"unknown key for the release", release, "[testnet.config]\n\"storage.compaction\" = true\n", `did you mean "storage.compact"`, 2},
		{"not a release", "module:github.com/cometbft/cometbft/cmd/cometbft@main", "", "is not a released version", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			scn := filepath.Join(tmp, "s.toml")
			os.WriteFile(scn, []byte(strings.Replace(strings.Replace(base, "%s", c.binary, 1), "%s", c.extra, 1)), 0o644)
			before, _ := filepath.Glob(filepath.Join(tmpdir, "chainperf-testnet-*"))
			out, code := cliWith(t, reg, env, "run", scn, "--db", db, "--report-dir", filepath.Join(tmp, "reports"))
			if code != c.exit || !strings.Contains(out, c.want) {
				t.Fatalf("exit %d; want %d and %q in\n%s", code, c.exit, c.want, out)
			}
			if strings.Contains(out, "testnet up") {
				t.Errorf("a testnet was started:\n%s", out)
			}
			after, _ := filepath.Glob(filepath.Join(tmpdir, "chainperf-testnet-*"))
			if len(after) > len(before) {
				t.Errorf("testnet dirs %v after, %v before", after, before)
			}
		})
	}
	// --binary puts the same scenario on another node, checked the same way.
	scn := filepath.Join(tmp, "embedded.toml")
	os.WriteFile(scn, []byte(strings.Replace(strings.Replace(base, "binary = \"%s\"\n", "", 1), "%s", "", 1)), 0o644)
	out, code := cliWith(t, reg, env, "run", scn, "--db", db, "--report-dir", filepath.Join(tmp, "reports"), "--binary", "module:github.com/cometbft/cometbft/cmd/cometbft@main")
	if code != 2 || !strings.Contains(out, "--binary: ") || !strings.Contains(out, "is not a released version") {
		t.Errorf("--binary @main: exit %d\n%s", code, out)
	}
	ctx := context.Background()
	if st, err := store.Open(ctx, db); err == nil {
		defer st.Close()
		runs, _ := st.List(ctx, store.Filter{})
		for _, l := range runs {
			if l.Status == results.StatusComplete {
				t.Errorf("run %s completed", l.ID)
			}
		}
	}
}
