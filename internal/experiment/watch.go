package experiment

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/selfcost"
	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/live"
)

// watchNodes starts the metric scraper and process sampler over every node
// of net but the rotating ones; their samples go to the store as they
// come, and to tap (may be nil). The returned func stops them, waits and
// says how many samples were taken.
func watchNodes(ctx context.Context, net *live.Net, o scenario.Observe, rec *recorder, tap func([]observe.Sample)) func() int {
	if _, ok := net.Provider.(testnet.ProcessLister); !ok {
		// No /proc to read: the node's own process_* metrics say its CPU
		// and memory where it exports them.
		// Their network bytes likewise: in a pod, its own namespace's.
		o.Metrics = append(slices.Clone(o.Metrics), observe.SeriesCPU, observe.SeriesRSS, observe.SeriesNodeNetRx, observe.SeriesNodeNetTx)
	}
	if len(o.Metrics) > 0 {
		// The live view and the unresolved txs' explanation need these.
		o.Metrics = append(slices.Clone(o.Metrics), "cometbft_mempool_size", rejectedSeries, evictedSeries)
	}
	return watchTargets(ctx, net.Testnet.Standing(), net.Endpoint, net.PID, o, rec, tap)
}

// watchTargets is watchNodes over nodes, reached at endpoint, with their
// PIDs from pidOf (0: not known).
func watchTargets(ctx context.Context, nodes []*testnet.Node, endpoint func(*testnet.Node) testnet.Endpoint, pidOf func(*testnet.Node) int,
	o scenario.Observe, rec *recorder, tap func([]observe.Sample)) func() int {
	var targets []observe.Target
	for _, n := range nodes {
		targets = append(targets, observe.Target{Node: n.Name, Metrics: endpoint(n).Metrics, PID: func() int { return pidOf(n) }})
	}
	bg := context.WithoutCancel(ctx)
	count := 0
	w := &observe.Watcher{
		Targets: targets, Interval: o.Interval.D(), Keep: o.Metrics,
		Sink: func(s []observe.Sample) {
			count += len(s)
			if tap != nil {
				tap(s)
			}
			rec.write(func(st *store.Store) error { return st.Samples(bg, rec.runID, s) })
		},
		OnDrop: func(node, name string, dropped int) {
			rec.event("series_dropped", fmt.Sprintf("%s: %s: %d series over the %d kept of a name were not kept", node, name, dropped, observe.MaxSeriesPerName))
		},
		OnError: func(node string, err error) {
			if msg, over := nodehttp.OverCap(err); over {
				rec.event("node_answer", fmt.Sprintf("%s: %s", node, msg)) // the report says it
			} else if err != nil {
				rec.storeOnly("scrape_error", fmt.Sprintf("%s: %v", node, err))
			} else {
				rec.storeOnly("scrape_ok", node)
			}
		},
	}
	wctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go selfcost.Do(wctx, selfcost.Observer, func(ctx context.Context) { w.Run(ctx); close(done) })
	return func() int { cancel(); <-done; return count }
}

// captureProfiles takes the scenario's profiles, each `at` after start,
// into dir. A failed capture is an event, not the end of the run. The
// returned func cancels what has not run yet and returns what was taken.
func captureProfiles(ctx context.Context, net *live.Net, start time.Time, specs []scenario.Profile, dir string, rec *recorder) func() []observe.Profile {
	pctx, cancel := context.WithCancel(ctx)
	var (
		mu  sync.Mutex
		out []observe.Profile
		wg  sync.WaitGroup
	)
	for _, p := range specs {
		n := net.Testnet.Node(p.Node)
		if n == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-pctx.Done():
				return
			case <-time.After(time.Until(start.Add(p.At.D()))):
			}
			prof, err := observe.CaptureProfile(pctx, n.Name, net.Endpoint(n).Pprof, p.Kind, p.Seconds, filepath.Join(dir, "profiles"))
			if err != nil {
				if pctx.Err() == nil {
					rec.storeOnly("profile_error", err.Error())
				}
				return
			}
			rec.write(func(st *store.Store) error { return st.Profile(context.WithoutCancel(ctx), rec.runID, prof) })
			mu.Lock()
			out = append(out, *prof)
			mu.Unlock()
		}()
	}
	return func() []observe.Profile {
		cancel()
		wg.Wait()
		return out
	}
}

// A WatchReport says what watching a testnet cost chainperf.
type WatchReport struct {
	Wall    time.Duration
	CPU     float64 // CPU-seconds chainperf used
	RSS     float64 // bytes, at the end
	Blocks  int
	Samples int
	Nodes   int
}

// Watch runs the observers alone (block follower over every node, metric
// scraper, process sampler, samples written to st) on a running testnet
// for d: what they cost is what they add to every run.
func Watch(ctx context.Context, t *testnet.Testnet, o scenario.Observe, st *store.Store, d time.Duration) (*WatchReport, error) {
	var follow []string
	for _, n := range append(t.ByRole(testnet.RoleValidator), t.ByRole(testnet.RoleFull)...) {
		follow = append(follow, n.Endpoint().RPC)
	}
	h, err := observe.Latest(ctx, follow)
	if err != nil {
		return nil, err
	}
	r := &results.Run{Record: results.Record{ID: NewRunID(), Scenario: "watch", Status: results.StatusRunning, Start: time.Now().UTC()},
		Setup: results.Setup{Host: results.ReadHost()}}
	if err := st.Begin(ctx, r, harness(r.Host.Hostname)); err != nil {
		return nil, err
	}
	rep := &WatchReport{Nodes: len(t.Nodes)}
	cpu0, _, _ := observe.ProcessStat(os.Getpid())
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	rec := newRecorder(ctx, st, r.ID, slog.New(slog.DiscardHandler))
	stop := watchTargets(wctx, t.Standing(), (*testnet.Node).Endpoint, func(n *testnet.Node) int { return n.PID }, o, rec, nil)
	// A ledger, as in a real run: every tx of every block is hashed and
	// looked up (the load comes from another process, so none is found).
	f := observe.NewFollower(follow, h+1, load.NewLedger(start, true), func(b observe.Block) {
		rep.Blocks++
		rec.write(func(st *store.Store) error { return st.Block(context.WithoutCancel(ctx), r.ID, 0, b) })
	}, nil)
	f.OnProblem = rec.event
	_ = f.Run(wctx)
	rep.Samples = stop()
	rep.Wall = time.Since(start)
	cpu1, rss, _ := observe.ProcessStat(os.Getpid())
	rep.CPU, rep.RSS = cpu1-cpu0, rss
	r.Status, r.End = results.StatusComplete, time.Now().UTC()
	if ctx.Err() != nil {
		r.Status = results.StatusInterrupted
	}
	return rep, st.Finish(context.WithoutCancel(ctx), r)
}
