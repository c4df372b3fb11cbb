package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/why"
)

// TestCachePoolKnownAnswer is the seeds' story as a known answer: a real
// code change whose effect is known. chainperf's SDK test chain built
// from this repository with cosmossdk.io/store and the SDK's baseapp as
// released, and built again with a per-transaction cache pool patched into
// local copies of both (testdata/cachekv-pool, through
// [testnet.cosmos.replace], as bench/cachekv-pool.sh prepares them; CI
// builds both beforehand). One short run of each at the same load: the
// pooled chain's validators allocate less per committed tx, cachekv.NewStore
// is among the released chain's top allocators and not the pooled one's,
// and compare's why names it. bench/cachekv-pool.sh runs the interleaved ab.
func TestCachePoolKnownAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the SDK test chain twice and runs both")
	}
	t.Parallel()
	dir := t.TempDir()
	if out, err := exec.Command("bash", "../../bench/cachekv-pool.sh", "prepare", dir, "200", "12s").CombinedOutput(); err != nil {
		t.Fatalf("prepare: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "runs.db")
	run := func(side string) results.Run {
		t.Helper()
		text, err := os.ReadFile(filepath.Join(dir, side+".toml"))
		if err != nil {
			t.Fatal(err)
		}
		scn := filepath.Join(dir, side+"-beside.toml")
		os.WriteFile(scn, []byte(besideOthers(string(text))), 0o644)
		reports := filepath.Join(dir, side+"-reports")
		out, code := cli(t, t.TempDir(), "run", scn, "--db", db, "--report-dir", reports)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", side, code, out)
		}
		return readSummary(t, reports)
	}
	released, pooled := run("released"), run("pooled")
	perTx := func(r results.Run) float64 {
		t.Helper()
		for _, f := range r.AllFindings() {
			if x, ok := f.Figure(why.AllocPerTx); ok && f.Source == why.SourceInternals {
				return x.Value
			}
		}
		t.Fatalf("run %s has no %s", r.ID, why.AllocPerTx)
		return 0
	}
	a, b := perTx(released), perTx(pooled)
	t.Logf("allocated per committed tx: released %.1f kB, pooled %.1f kB (%+.1f %%)", a, b, 100*(b/a-1))
	if b > 0.9*a {
		t.Errorf("the pool should cut the validators' allocation per tx: %.1f -> %.1f kB", a, b)
	}
	top := func(r results.Run) string {
		for _, f := range r.AllFindings() {
			for _, tb := range f.Tables {
				if strings.HasPrefix(tb.Title, "Top functions: allocs, validator") {
					var names []string
					for _, row := range tb.Rows {
						names = append(names, row[0])
					}
					return strings.Join(names, ", ")
				}
			}
		}
		return ""
	}
	if ta, tb := top(released), top(pooled); !strings.Contains(ta, "cachekv.NewStore") || strings.Contains(tb, "cachekv.NewStore") {
		t.Errorf("top allocators: released %q, pooled %q; want cachekv.NewStore in the first alone", ta, tb)
	}
	out, _ := cli(t, t.TempDir(), "compare", "--db", db, released.ID, pooled.ID)
	if !strings.Contains(out, "cachekv.NewStore") || !strings.Contains(out, why.AllocPerTx) {
		t.Errorf("compare's why does not name the pool's effect:\n%s", out)
	}
}
