package livemetrics

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/chainperf/chainperf/internal/load"
)

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	fams, err := (&expfmt.TextParser{}).TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func serve(t *testing.T, e *Exporter) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + l.Addr().String() + "/metrics"
}

func TestExportsTheRunsLiveFigures(t *testing.T) {
	var e Exporter
	url := serve(t, &e)
	if fams := scrape(t, url); fams["chainperf_target_tps"] != nil {
		t.Fatal("figures before the first progress report")
	}
	p := State{Run: "20261126-030000-abcd", Scenario: "default", Step: "load", Name: "steady 1/1", Elapsed: 10 * time.Second, Target: 300, Height: 42,
		Interval: 1500 * time.Millisecond, MempoolMax: 17}
	p.Ledger = load.Summary{Sent: 3000, Accepted: 2990, Rejected: 10,
		Fates:       map[load.Fate]int64{load.FateCommitted: 2500, load.FateRejected: 10},
		Latency:     load.Percentiles{Count: 2500, Mean: 800},
		Lag:         load.Percentiles{P99: 2},
		LatencyHist: []load.Bucket{{UpToMS: 500, Count: 1000}, {UpToMS: 1000, Count: 1400}, {UpToMS: 2000, Count: 100}}}
	for i := 0; i < 10; i++ {
		p.Ledger.PerSecond = append(p.Ledger.PerSecond, load.Second{Sent: 300, Committed: int64(200 + 10*i)})
	}
	e.Update(p)
	fams := scrape(t, url)
	gauge := func(name string) float64 {
		f := fams[name]
		if f == nil || len(f.Metric) != 1 {
			t.Fatalf("%s: %v", name, f)
		}
		if g := f.Metric[0].Gauge; g != nil {
			return g.GetValue()
		}
		return f.Metric[0].Counter.GetValue()
	}
	for name, want := range map[string]float64{
		"chainperf_target_tps": 300, "chainperf_sent_tps": 300, "chainperf_committed_tps": 270, // seconds 5-9: 250..290
		"chainperf_sent_total": 3000, "chainperf_height": 42, "chainperf_block_interval_seconds": 1.5,
		"chainperf_mempool_max": 17, "chainperf_schedule_lag_p99_seconds": 0.002, "chainperf_phase_elapsed_seconds": 10,
		"chainperf_txs_waiting": 490,
	} {
		if got := gauge(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	fates := map[string]float64{}
	for _, m := range fams["chainperf_txs_total"].Metric {
		fates[m.Label[0].GetValue()] = m.Counter.GetValue()
	}
	if fates["committed"] != 2500 || fates["rejected"] != 10 || fates["unresolved"] != 0 {
		t.Errorf("fates %v: want 2500 committed, 10 rejected, none unresolved yet (490 are waiting)", fates)
	}
	// Every series says whose it is.
	for name, f := range fams {
		if !strings.HasPrefix(name, "chainperf_") {
			continue
		}
		for _, m := range f.Metric {
			got := map[string]string{}
			for _, l := range m.Label {
				got[l.GetName()] = l.GetValue()
			}
			if got["run"] != p.Run || got["scenario"] != "default" || got["phase"] != "steady 1/1" {
				t.Errorf("%s labels %v: want the run, its scenario and the phase", name, got)
			}
		}
	}
	h := fams["chainperf_commit_latency_seconds"].Metric[0].Histogram
	if h.GetSampleCount() != 2500 || h.GetSampleSum() != 2000 {
		t.Errorf("histogram count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
	}
	cum := map[float64]uint64{}
	for _, b := range h.Bucket {
		cum[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	if cum[0.2] != 0 || cum[0.5] != 1000 || cum[1] != 2400 || cum[2] != 2500 || cum[100] != 2500 {
		t.Errorf("cumulative buckets %v", cum)
	}
	if fams["process_cpu_seconds_total"] == nil {
		t.Error("no process metrics of chainperf itself")
	}
}

// Counters only rise while a phase goes, as txs move from waiting to a
// fate; the next phase is a series of its own, not a reset.
func TestCountersOnlyRise(t *testing.T) {
	var e Exporter
	url := serve(t, &e)
	counters := func() map[string]float64 {
		out := map[string]float64{}
		for name, f := range scrape(t, url) {
			if f.GetType() != dto.MetricType_COUNTER || !strings.HasPrefix(name, "chainperf_") {
				continue
			}
			for _, m := range f.Metric {
				key := name
				for _, l := range m.Label {
					key += "," + l.GetName() + "=" + l.GetValue()
				}
				out[key] = m.Counter.GetValue()
			}
		}
		return out
	}
	st := func(phase string, sent, committed, unresolved int64) State {
		return State{Run: "r1", Scenario: "s", Name: phase, Step: "load", Ledger: load.Summary{Sent: sent, Accepted: sent,
			Fates: map[load.Fate]int64{load.FateCommitted: committed, load.FateUnresolved: unresolved}}}
	}
	steps := []State{st("steady 1/2", 100, 10, 0), st("steady 1/2", 200, 150, 0), st("steady 1/2", 200, 190, 10), st("steady 2/2", 50, 0, 0)}
	last := map[string]float64{}
	for i, s := range steps {
		e.Update(s)
		for k, v := range counters() {
			if prev, ok := last[k]; ok && v < prev {
				t.Errorf("step %d: %s went down from %v to %v", i, k, prev, v)
			}
			last[k] = v
		}
	}
	if last[`chainperf_sent_total,phase=steady 1/2,run=r1,scenario=s`] != 200 || last[`chainperf_sent_total,phase=steady 2/2,run=r1,scenario=s`] != 50 {
		t.Errorf("each phase's own series: %v", last)
	}
}

// TestGrafanaDashboardShowsWhatIsExported: every chainperf_ metric the
// dashboard JSON queries is one the exporter serves, so a rename here
// fails until the dashboard follows.
func TestGrafanaDashboardShowsWhatIsExported(t *testing.T) {
	raw, err := os.ReadFile("../../docs/grafana/chainperf.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
		Templating struct {
			List []struct{ Name string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	exported := map[string]bool{}
	descs := make(chan *prometheus.Desc, 64)
	go func() { (&Exporter{}).Describe(descs); close(descs) }()
	for d := range descs {
		exported[regexp.MustCompile(`fqName: "([^"]+)"`).FindStringSubmatch(d.String())[1]] = true
	}
	metric := regexp.MustCompile(`\b(chainperf_[a-z0-9_]+?)(_bucket|_sum|_count)?\b`)
	var cometbft, ours int
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			if strings.Contains(tg.Expr, "cometbft_") {
				cometbft++
			}
			for _, m := range metric.FindAllStringSubmatch(tg.Expr, -1) {
				ours++
				if !exported[m[1]] {
					t.Errorf("panel %q queries %s, which chainperf does not export", p.Title, m[1])
				}
			}
		}
	}
	// A team's Prometheus holds many runs and nodes: the board picks them.
	vars := map[string]bool{}
	for _, v := range dash.Templating.List {
		vars[v.Name] = true
	}
	for _, v := range []string{"job", "instance", "run", "nodes"} {
		if !vars[v] {
			t.Errorf("the dashboard has no $%s variable", v)
		}
	}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, m := range regexp.MustCompile(`chainperf_[a-z0-9_]+(\{[^}]*\})?`).FindAllStringSubmatch(tg.Expr, -1) {
				if !strings.Contains(m[1], `run=~"$run"`) {
					t.Errorf("panel %q: %s does not pick the run", p.Title, m[0])
				}
			}
		}
	}
	if ours == 0 || cometbft == 0 {
		t.Errorf("the dashboard should show chainperf's figures (%d queries) next to CometBFT's (%d)", ours, cometbft)
	}
}

// The same address serves chainperf's own heap profile (what bench/soak.sh
// reads), and no other method than GET.
func TestServesItsOwnHeapProfile(t *testing.T) {
	var e Exporter
	base := strings.TrimSuffix(serve(t, &e), "/metrics")
	resp, err := http.Get(base + "/debug/pprof/heap")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p, err := profile.Parse(resp.Body)
	if err != nil || len(p.SampleType) == 0 || p.SampleType[len(p.SampleType)-1].Type != "inuse_space" {
		t.Fatalf("heap profile: %v, %v", err, p)
	}
	post, err := http.Post(base+"/debug/pprof/heap", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	post.Body.Close()
	if post.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: HTTP %d; want 405", post.StatusCode)
	}
}
