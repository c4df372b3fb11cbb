package experiment

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/chainperf/chainperf/internal/nodelog"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/selfcost"
	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet"
)

// A recorder keeps what happens to a run as it happens: events (shown as
// text, written to the store at once) and faults (typed, measured against
// the blocks at the end). Store write errors are logged and counted in
// the run, never dropped.
type recorder struct {
	ctx   context.Context // not cancelled: the last events of a Ctrl-C still go in
	store *store.Store    // nil: nothing written
	log   *slog.Logger
	runID string
	now   func() time.Time

	mu       sync.Mutex
	events   []results.Event
	faults   []results.Fault
	errs     int
	firstErr error
	restarts []restart
	logs     []nodelog.Counts // what the kept logs said: the run's nodes, then the counterparty's
}

// A restart is a moment the harness stopped nodes' processes (a kill, a
// restart, an upgrade): their mempools went with them.
type restart struct {
	at    time.Time
	nodes []string
}

// restarted records that nodes' processes were stopped at this moment.
func (rc *recorder) restarted(nodes []*testnet.Node) {
	r := restart{at: time.Now()}
	for _, n := range nodes {
		r.nodes = append(r.nodes, n.Name)
	}
	rc.mu.Lock()
	rc.restarts = append(rc.restarts, r)
	rc.mu.Unlock()
}

// stoppedAll lists the moments every one of nodes was stopped at once:
// the txs their mempools held then were lost.
func (rc *recorder) stoppedAll(nodes []string) []time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []time.Time
	for _, r := range rc.restarts {
		all := len(nodes) > 0
		for _, n := range nodes {
			all = all && slices.Contains(r.nodes, n)
		}
		if all {
			out = append(out, r.at)
		}
	}
	return out
}

func newRecorder(ctx context.Context, st *store.Store, runID string, log *slog.Logger) *recorder {
	return &recorder{ctx: context.WithoutCancel(ctx), store: st, runID: runID, log: log, now: func() time.Time { return time.Now().UTC() }}
}

// event records something done to or seen in the testnet.
func (rc *recorder) event(kind, detail string) {
	rc.mu.Lock()
	rc.events = append(rc.events, results.Event{At: rc.now(), Kind: kind, Detail: detail})
	rc.mu.Unlock()
	rc.write(func(st *store.Store) error { return st.Event(rc.ctx, rc.runID, kind, detail) })
}

// eventAt records an event that happened at at (a node's log line's time).
func (rc *recorder) eventAt(at time.Time, kind, detail string) {
	rc.mu.Lock()
	rc.events = append(rc.events, results.Event{At: at, Kind: kind, Detail: detail})
	rc.mu.Unlock()
	rc.write(func(st *store.Store) error { return st.EventAt(rc.ctx, rc.runID, at, kind, detail) })
}

// storeOnly writes an event to the store but not to the run's events
// (phase changes, scrape errors: the report does not list them).
func (rc *recorder) storeOnly(kind, detail string) {
	rc.write(func(st *store.Store) error { return st.Event(rc.ctx, rc.runID, kind, detail) })
}

// write does one store write, counting and logging a failure.
func (rc *recorder) write(w func(*store.Store) error) {
	if rc.store == nil {
		return
	}
	// In a goroutine of its own: pprof.Do would leave the caller's
	// goroutine with rc.ctx's labels (none) after it, and every goroutine
	// the caller started from then on would count as "other".
	var err error
	done := make(chan struct{})
	go selfcost.Do(rc.ctx, selfcost.Store, func(context.Context) { err = w(rc.store); close(done) })
	<-done
	if err != nil {
		rc.mu.Lock()
		rc.errs++
		n := rc.errs
		if rc.firstErr == nil {
			rc.firstErr = err
		}
		rc.mu.Unlock()
		if n <= 3 {
			rc.log.Warn("results store write failed", "run", rc.runID, "err", err)
		}
	}
}

// began records the beginning of a fault and returns its handle.
func (rc *recorder) began(what, nodes string, stopsNodes bool) int {
	f := results.Fault{What: what, Nodes: nodes, Begin: rc.now()}
	if stopsNodes {
		f.CatchUp = -1
	}
	rc.event("perturbation", what+" "+nodes)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.faults = append(rc.faults, f)
	return len(rc.faults) - 1
}

// ended records the end of fault i (what undid it: "start", "heal").
func (rc *recorder) ended(i int, what string) {
	rc.mu.Lock()
	rc.faults[i].End = rc.now()
	nodes := rc.faults[i].Nodes
	rc.mu.Unlock()
	rc.event("perturbation", what+" "+nodes)
}

// endedFaults are the faults of nodes that have ended, by handle, with
// their ends.
func (rc *recorder) endedFaults(what, nodes string) map[int]time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := map[int]time.Time{}
	for i, f := range rc.faults {
		if f.What == what && f.Nodes == nodes && !f.End.IsZero() {
			out[i] = f.End
		}
	}
	return out
}

// caughtUp records that the nodes fault i hit were at the tip again d
// after its end.
func (rc *recorder) caughtUp(i int, d time.Duration) {
	rc.mu.Lock()
	rc.faults[i].CatchUp = d.Seconds()
	nodes := rc.faults[i].Nodes
	rc.mu.Unlock()
	rc.event("perturbation", "caught-up "+formatSeconds(d)+" "+nodes)
}

// notCaughtUp records that what fault i held up was not through by the
// run's end (the faults table says "not seen").
func (rc *recorder) notCaughtUp(i int) {
	rc.mu.Lock()
	rc.faults[i].CatchUp = -1
	nodes := rc.faults[i].Nodes
	rc.mu.Unlock()
	rc.event("perturbation", "not caught up by the end "+nodes)
}

// storeErrors is how many store writes failed, and the first error.
func (rc *recorder) storeErrors() (int, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.errs, rc.firstErr
}

// into copies the events, the faults and the count of failed store writes
// into r.
func (rc *recorder) into(r *results.Run) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	r.Events = append([]results.Event(nil), rc.events...)
	// Logs' events come at the end with the times their lines say.
	slices.SortStableFunc(r.Events, func(a, b results.Event) int { return a.At.Compare(b.At) })
	r.Faults = results.Effects(rc.faults, r.Phases)
	r.StoreErrors = rc.errs
}
