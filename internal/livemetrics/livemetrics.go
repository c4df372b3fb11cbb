// Package livemetrics exposes a run's live figures in the Prometheus text
// format while it goes (`chainperf run --metrics-addr`), so that a team's
// Prometheus and Grafana show chainperf's view next to the nodes' own
// CometBFT metrics (docs/grafana/chainperf.json).
//
// The figures are the run's phase being driven. Every series carries the
// run's ID, its scenario and the phase, so that runs and phases never
// share a series: a counter only ever rises (a new phase is a new series,
// not a reset), and txs waiting for a block are a gauge, not a fate.
package livemetrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/chainperf/chainperf/internal/load"
)

// latencyBounds are the histogram's upper bounds in seconds: the ledger's
// 1-2-5 series from 1 ms to 100 s (the bounds must not change between
// scrapes).
var latencyBounds = func() []float64 {
	var out []float64
	for decade := 0.001; decade < 200; decade *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if b := decade * m; b <= 100.0001 {
				out = append(out, b)
			}
		}
	}
	return out
}()

// State is what a run reports about the phase it drives, once a second.
type State struct {
	Run        string // the run's ID
	Scenario   string // its scenario's name
	Name       string // the experiment phase: "steady 1/1", "find-max"
	Step       string // "load" or "drain"
	Elapsed    time.Duration
	Target     float64 // tx/s the rate model wants now
	Ledger     load.Summary
	Height     int64
	Interval   time.Duration // the last block's
	MempoolMax float64       // -1: not known
	// LatencyHist reads the latency's buckets when scraped (nil:
	// Ledger.LatencyHist's).
	LatencyHist func() []load.Bucket
}

// An Exporter holds the last state and turns it into metrics at each
// scrape.
type Exporter struct {
	mu   sync.Mutex
	last *State
	at   time.Time
}

// Update keeps p.
func (e *Exporter) Update(p State) {
	e.mu.Lock()
	e.last, e.at = &p, time.Now()
	e.mu.Unlock()
}

// runLabels are on every series of a run.
var runLabels = []string{"run", "scenario", "phase"}

var (
	descTarget    = prometheus.NewDesc("chainperf_target_tps", "Tx/s the rate model asks for now.", runLabels, nil)
	descSent      = prometheus.NewDesc("chainperf_sent_tps", "Tx/s sent, mean of the last 5 whole seconds.", runLabels, nil)
	descCommitted = prometheus.NewDesc("chainperf_committed_tps", "Tx/s of the run's txs seen committed (code 0), mean of the last 5 whole seconds.", runLabels, nil)
	descSentTotal = prometheus.NewDesc("chainperf_sent_total", "Txs sent in this phase.", runLabels, nil)
	descAccepted  = prometheus.NewDesc("chainperf_accepted_total", "Sends the node accepted in this phase.", runLabels, nil)
	descFates     = prometheus.NewDesc("chainperf_txs_total", "Txs of this phase by final fate so far (unresolved: still not in a block when the phase ended).", append(runLabels, "fate"), nil)
	descWaiting   = prometheus.NewDesc("chainperf_txs_waiting", "Txs of this phase the node accepted that no block holds yet.", runLabels, nil)
	descLatency   = prometheus.NewDesc("chainperf_commit_latency_seconds", "Commit latency (first seen in a block - intended send time) of this phase's txs.", runLabels, nil)
	descLagP99    = prometheus.NewDesc("chainperf_schedule_lag_p99_seconds", "p99 of how late the generator sent txs after their intended time.", runLabels, nil)
	descHeight    = prometheus.NewDesc("chainperf_height", "Height of the last block the follower read.", runLabels, nil)
	descInterval  = prometheus.NewDesc("chainperf_block_interval_seconds", "Interval of the last block (header times).", runLabels, nil)
	descMempool   = prometheus.NewDesc("chainperf_mempool_max", "Largest mempool of any node at the last scrape (txs).", runLabels, nil)
	descPhase     = prometheus.NewDesc("chainperf_phase_info", "The phase being driven (1).", append(runLabels, "step"), nil)
	descElapsed   = prometheus.NewDesc("chainperf_phase_elapsed_seconds", "Time since the phase's load started.", runLabels, nil)
	descUpdated   = prometheus.NewDesc("chainperf_last_update_timestamp_seconds", "When chainperf last updated these figures (unix time).", runLabels, nil)
)

// Describe implements prometheus.Collector.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descTarget, descSent, descCommitted, descSentTotal, descAccepted, descFates, descWaiting, descLatency,
		descLagP99, descHeight, descInterval, descMempool, descPhase, descElapsed, descUpdated} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: nothing before the first
// progress report.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	p, at := e.last, e.at
	e.mu.Unlock()
	if p == nil {
		return
	}
	s := p.Ledger
	sent, committed := Recent(s, p.Elapsed, 5)
	run := []string{p.Run, p.Scenario, p.Name}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append(run, labels...)...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, append(run, labels...)...)
	}
	gauge(descTarget, p.Target)
	gauge(descSent, sent)
	gauge(descCommitted, committed)
	counter(descSentTotal, float64(s.Sent))
	counter(descAccepted, float64(s.Accepted))
	for _, f := range []load.Fate{load.FateCommitted, load.FateCommittedFailed, load.FateRejected, load.FateSendError, load.FateUnresolved} {
		counter(descFates, float64(s.Fates[f]), string(f))
	}
	// Accepted txs not yet in a block: a gauge (they leave it for a fate).
	gauge(descWaiting, float64(max(0, s.Accepted-s.Fates[load.FateCommitted]-s.Fates[load.FateCommittedFailed]-s.Fates[load.FateUnresolved])))
	buckets := map[float64]uint64{}
	var count uint64
	hist := s.LatencyHist
	if p.LatencyHist != nil {
		hist = p.LatencyHist()
	}
	for _, b := range hist {
		count += uint64(b.Count)
		for _, bound := range latencyBounds {
			if b.UpToMS/1000 <= bound*1.0001 {
				buckets[bound] += uint64(b.Count)
			}
		}
	}
	ch <- prometheus.MustNewConstHistogram(descLatency, count, s.Latency.Mean/1000*float64(s.Latency.Count), buckets, run...)
	gauge(descLagP99, s.Lag.P99/1000)
	gauge(descHeight, float64(p.Height))
	gauge(descInterval, p.Interval.Seconds())
	if p.MempoolMax >= 0 {
		gauge(descMempool, p.MempoolMax)
	}
	gauge(descPhase, 1, p.Step)
	gauge(descElapsed, p.Elapsed.Seconds())
	gauge(descUpdated, float64(at.UnixNano())/1e9)
}

// Recent returns the mean sent and committed tx/s over the last n whole
// seconds before elapsed (commits come a block at a time: one second says
// little).
func Recent(s load.Summary, elapsed time.Duration, n int) (sent, committed float64) {
	end := min(int(elapsed.Seconds()), len(s.PerSecond))
	from := max(0, end-n)
	if end <= from {
		return 0, 0
	}
	for _, sec := range s.PerSecond[from:end] {
		sent += float64(sec.Sent)
		committed += float64(sec.Committed)
	}
	k := float64(end - from)
	return sent / k, committed / k
}

// Serve serves /metrics on l (the exporter's figures and chainperf's own
// process and Go runtime) and chainperf's own pprof profiles under
// /debug/pprof/ (bench/soak.sh reads its heap there) until ctx ends.
// While a load phase runs, chainperf profiles its own CPU to say what its
// parts took (internal/selfcost), and Go runs one CPU profile at a time:
// /debug/pprof/profile then answers that profiling is in use
// (CHAINPERF_CPUPROFILE profiles the whole run instead).
func (e *Exporter) Serve(ctx context.Context, l net.Listener) error {
	reg := prometheus.NewRegistry()
	reg.MustRegister(e, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector())
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
