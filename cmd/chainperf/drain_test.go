package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// A drain that ends while the chain still holds txs in a mempool says so:
// one validator making a block every 6 s, load for 3 s and a drain of
// 1 s leave most txs unresolved, and the run says how many of them the
// node's mempool still held (not lost), in the summary, report.md and the
// record. The record and the summary also say what chainperf's own parts
// took from the machine over the phase.
func TestDrainEndsWithTxsInAMempool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real CometBFT node")
	}
	t.Parallel()
	reg, tmp := t.TempDir(), t.TempDir()
	sc := filepath.Join(tmp, "slow.toml")
	if err := os.WriteFile(sc, []byte(`name = "slow-blocks"
[testnet]
validators = 1
full_nodes = 0
[testnet.config]
"consensus.timeout_commit" = "6s"
[load]
rate = 200
duration = "3s"
[experiment]
kind = "steady"
warmup = "0s"
cooldown = "0s"
drain_timeout = "1s"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	reports := filepath.Join(tmp, "reports")
	out, _ := cli(t, reg, "run", sc, "--db", filepath.Join(tmp, "runs.db"), "--report-dir", reports)
	m := regexp.MustCompile(`unresolved: (\d+) unresolved: (\d+) still in a node's mempool when the drain ended`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no unresolved line saying the mempool held them:\n%s", out)
	}
	unresolved, held := atoi(t, m[1]), atoi(t, m[2])
	if held < 1 || held > unresolved {
		t.Errorf("%d of %d unresolved in the mempool; want some, at most all", held, unresolved)
	}
	sums, _ := filepath.Glob(filepath.Join(reports, "*", "record.json"))
	if len(sums) != 1 {
		t.Fatalf("summaries: %v", sums)
	}
	var rec struct {
		Phases []struct {
			Drained      float64 `json:"drained_s"`
			InMempool    int64   `json:"in_mempool_at_end"`
			MempoolAtEnd int64   `json:"mempool_at_end"`
			Harness      *struct {
				CPU float64            `json:"cpu_s"`
				By  map[string]float64 `json:"by"`
			} `json:"harness"`
		}
	}
	if err := json.Unmarshal(mustRead(t, sums[0]), &rec); err != nil || len(rec.Phases) == 0 {
		t.Fatalf("record.json: %v", err)
	}
	p := rec.Phases[len(rec.Phases)-1]
	if p.InMempool != int64(held) || p.MempoolAtEnd < p.InMempool || p.Drained < 1 || p.Drained > 5 {
		t.Errorf("record %+v; want %d in the mempool, a drain of 1-5 s", p, held)
	}
	// What chainperf took over the phase, by component.
	// (Which part took how much is internal/selfcost's test: 150 txs
	// in 3 s may leave a part no profile sample at 100 Hz.)
	if h := p.Harness; h == nil || h.CPU <= 0 || len(h.By) == 0 {
		t.Errorf("harness %+v; want chainperf's CPU over the phase, by component", h)
	} else {
		var sum float64
		for _, v := range h.By {
			sum += v
		}
		if sum < 0.99*h.CPU || sum > 1.01*h.CPU {
			t.Errorf("harness %+v: the parts add to %.4f, not the whole", h, sum)
		}
	}
	if !regexp.MustCompile(`(?m)^  harness:    [\d.]+ cores over \d+ s: `).MatchString(out) {
		t.Errorf("no harness line in the summary:\n%s", out)
	}
	md, _ := filepath.Glob(filepath.Join(reports, "*", "report.md"))
	if len(md) != 1 || !regexp.MustCompile(`\| drain \| [\d.]+ s; at its end a node's mempool held \d+ txs at most`).Match(mustRead(t, md[0])) {
		t.Errorf("report.md has no drain row saying what the mempool held")
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
