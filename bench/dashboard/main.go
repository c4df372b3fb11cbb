// Command dashboard measures chainperf's dashboard: the runs list over a
// database of many runs and the page of one long run, as server time
// (the handler's answer, cold and warm) and page-ready time (Chromium
// loads the page, fetches its data and draws every chart).
//
//	go run ./bench/dashboard                      # 10,000 runs and a 30-minute run
//	go run ./bench/dashboard -runs 1000 -minutes 5
//	go run ./bench/dashboard -db runs.db -shots docs/dashboard   # screenshots of real runs
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/browser"
	"github.com/chainperf/chainperf/internal/dashboard"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
)

func main() {
	runs := flag.Int("runs", 10000, "runs in the synthetic database")
	minutes := flag.Int("minutes", 30, "length of the long run")
	nodes := flag.Int("nodes", 5, "nodes of the long run")
	db := flag.String("db", "", "measure this database instead of a synthetic one (and take screenshots with -shots)")
	shots := flag.String("shots", "", "save a screenshot of each page here")
	reps := flag.Int("reps", 5, "repetitions of each measurement")
	flag.Parse()
	if err := run(*runs, *minutes, *nodes, *db, *shots, *reps); err != nil {
		fmt.Fprintln(os.Stderr, "dashboard bench:", err)
		os.Exit(1)
	}
}

func run(runs, minutes, nodes int, db, shots string, reps int) error {
	ctx := context.Background()
	var pages []string
	if db == "" {
		dir, err := os.MkdirTemp("", "chainperf-dashboard-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		db = filepath.Join(dir, "runs.db")
		t0 := time.Now()
		if err := fill(ctx, db, runs, minutes, nodes); err != nil {
			return err
		}
		fmt.Printf("synthetic database: %d runs of 2 minutes + 1 run of %d minutes on %d nodes, written in %.1f s\n", runs, minutes, nodes, time.Since(t0).Seconds())
		pages = []string{"/", "/?sort=committed&dir=asc&page=100", "/runs/long", "/api/runs/long"}
	}
	st, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := dashboard.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	if len(pages) == 0 {
		// A real database: its newest run, a comparison and the trend.
		idx, err := st.Index(ctx)
		if err != nil || len(idx) == 0 {
			return fmt.Errorf("no runs in %s (%v)", db, err)
		}
		pages = []string{"/", "/runs/" + idx[0].ID}
		for _, e := range idx[1:] { // the run of the same scenario before it
			if e.Scenario == idx[0].Scenario {
				pages = append(pages, "/compare?base="+e.ID+"&cand="+idx[0].ID)
				break
			}
		}
		pages = append(pages, "/trends?scenario="+url.QueryEscape(idx[0].Scenario))
	}

	fmt.Printf("\n%-40s %12s %12s %10s\n", "page", "server cold", "server warm", "bytes")
	for _, p := range pages {
		var times []time.Duration
		var size int
		for i := 0; i <= reps; i++ {
			t0 := time.Now()
			resp, err := http.Get(ts.URL + p)
			if err != nil {
				return err
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				return fmt.Errorf("%s: %d %s", p, resp.StatusCode, b)
			}
			times, size = append(times, time.Since(t0)), len(b)
		}
		fmt.Printf("%-40s %9.1f ms %9.1f ms %10d\n", p, ms(times[0]), ms(median(times[1:])), size)
	}

	b, err := browser.Start(ctx)
	if errors.Is(err, browser.ErrNoChromium) {
		fmt.Println("\npage-ready times skipped:", err)
		return nil
	}
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Printf("\n%-40s %12s %8s\n", "page (Chromium)", "ready", "charts")
	for _, p := range pages {
		if strings.HasPrefix(p, "/api/") {
			continue
		}
		var times []time.Duration
		for r := 0; r < reps; r++ {
			d, err := b.Open(ts.URL+p, 2*time.Minute)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			times = append(times, d)
		}
		painted, _ := b.Painted()
		if errs := b.Errors(); len(errs) > 0 {
			return fmt.Errorf("%s: console errors: %v", p, errs)
		}
		fmt.Printf("%-40s %9.0f ms %8d\n", p, ms(median(times)), len(painted))
		if shots != "" {
			if err := os.MkdirAll(shots, 0o755); err != nil {
				return err
			}
			name := "runs.png"
			for prefix, n := range map[string]string{"/runs/": "run.png", "/compare": "compare.png", "/trends": "trends.png"} {
				if strings.HasPrefix(p, prefix) {
					name = n
				}
			}
			if err := b.Screenshot(filepath.Join(shots, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// fill writes runs two-minute runs (their records as a default run's:
// 130 seconds of ledger) and one long run with its blocks (one a second)
// and node samples (four series a node a second).
func fill(ctx context.Context, db string, runs, minutes, nodes int) error {
	st, err := store.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now().Add(-time.Duration(runs) * time.Hour)
	for i := 0; i < runs; i++ {
		r := synthetic(fmt.Sprintf("run-%05d", i), start.Add(time.Duration(i)*time.Hour), 130, 500+float64(i%97))
		r.Labels = map[string]string{"branch": []string{"main", "dev"}[i%2]}
		if err := st.Begin(ctx, r, store.Owner{}); err != nil {
			return err
		}
		if err := st.Finish(ctx, r); err != nil {
			return err
		}
	}
	secs := minutes * 60
	r := synthetic("long", time.Now().Add(-time.Duration(secs)*time.Second), secs, 800)
	if err := st.Begin(ctx, r, store.Owner{}); err != nil {
		return err
	}
	p := r.Phases[0]
	for h := 1; h <= secs; h++ {
		at := p.Start.Add(time.Duration(h) * time.Second)
		if err := st.Block(ctx, r.ID, 0, observe.Block{Height: int64(h), Time: at, Seen: at.Add(80 * time.Millisecond), Txs: 800, Ours: 800,
			Bytes: 800 * 250, Proposer: "validator0", LatencyMean: 900 + float64(h%50), LatencyMax: 1500 + float64(h%70)}); err != nil {
			return err
		}
	}
	for s := 0; s < secs; s++ {
		at := p.Start.Add(time.Duration(s) * time.Second)
		var samples []observe.Sample
		for n := 0; n < nodes; n++ {
			name := fmt.Sprintf("validator%d", n)
			samples = append(samples,
				observe.Sample{At: at, Node: name, Series: "cometbft_mempool_size", Value: float64(1000 + (s*7+n*13)%500)},
				observe.Sample{At: at, Node: name, Series: "cometbft_p2p_peers", Value: float64(nodes - 1)},
				observe.Sample{At: at, Node: name, Series: observe.SeriesCPU, Value: 0.3 * float64(s)},
				observe.Sample{At: at, Node: name, Series: observe.SeriesRSS, Value: float64(200<<20 + s*1024)})
		}
		if err := st.Samples(ctx, r.ID, samples); err != nil {
			return err
		}
	}
	return st.Finish(ctx, r)
}

func synthetic(id string, start time.Time, secs int, tps float64) *results.Run {
	r := &results.Run{}
	r.ID, r.Scenario, r.Text, r.Start = id, "default", `name = "default"`, start
	p := &results.Phase{Name: "steady 1/1", Kind: "steady", Start: start, End: start.Add(time.Duration(secs) * time.Second)}
	p.Ledger.Fates = map[load.Fate]int64{load.FateCommitted: int64(tps) * int64(secs)}
	for s := 0; s < secs; s++ {
		p.Ledger.PerSecond = append(p.Ledger.PerSecond, load.Second{Sent: int64(tps), Accepted: int64(tps), Committed: int64(tps) + int64(s%5) - 2,
			LatencyP50: 1000 + float64(s%30), LatencyP99: 1800 + float64(s%40)})
	}
	p.Figures = results.Figures{OfferedTPS: tps, SentTPS: tps, CommittedTPS: tps, LatencyP50: 1000, LatencyP99: 1800, Blocks: secs}
	r.Phases = []*results.Phase{p}
	r.Checks = []results.Check{{Name: "min committed tx/s", Op: ">=", Limit: 100, Value: tps, Pass: true}}
	r.Passed, r.Status, r.End = true, results.StatusComplete, p.End
	return r
}
