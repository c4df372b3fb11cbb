package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chainperf/chainperf/internal/selfcost"
)

// Config is what a Generator sends, where and how.
type Config struct {
	Model       RateModel
	Workload    Workload
	Targets     []string      // RPC base URLs; jobs go round-robin
	Method      string        // "sync", "async" or "commit"
	Batch       int           // txs per JSON-RPC request (1: no batching)
	MaxInFlight int           // requests outstanding at most
	Timeout     time.Duration // per request
	MaxPending  int           // txs without a final fate at most (0: DefaultMaxPending)
}

// Thresholds past which a run's load was not delivered as asked.
const (
	BoundLagP99 = 50 * time.Millisecond // p99 of send start - intended time
	// OnTime: a tx sent within this of its intended time was sent on
	// schedule; fewer than 1 - BoundLate of the due txs so sent is a run
	// that fell behind, whether or not it caught up later.
	OnTime    = 50 * time.Millisecond
	BoundLate = 0.01
	// firstSenders: senders a run starts with; more are added, up to
	// max_in_flight, while every one is busy, so that an open-loop rate
	// stays open loop against a node that answers slowly.
	firstSenders = 32
)

// senderWindow: every this long, senders beyond twice the most that were
// needed at once in the window (and beyond firstSenders) are retired, so
// that a short stall in answers does not leave a long run holding
// max_in_flight goroutines, buffers and connections to its end. A
// variable for the tests.
var senderWindow = 10 * time.Second

// releaseAfter: senders retired at once from which their memory is given
// back to the system a window later (releaseMemory), once they have ended
// and their connections have closed. A stall in answers grows the senders
// to max_in_flight, each with a stack, a read buffer, a request and a
// response (~15 KB a waiting request); with chainperf's GC percent of 400
// the heap would otherwise stay sized for them for several GC cycles,
// minutes at a steady rate that allocates little.
const releaseAfter = 128

// releaseMemory frees what retired senders held and returns it to the
// system: the first GC moves the pooled read buffers aside, the second
// (in FreeOSMemory) frees them and returns every free page. A variable
// for the tests.
var releaseMemory = func() {
	runtime.GC()
	debug.FreeOSMemory()
}

// PhaseGrace: how long past its length a phase may still hand out txs
// (late ones of a generator that fell behind) before it is ended anyway.
const PhaseGrace = 5 * time.Second

// Who kept a run's load from being delivered as asked.
const (
	BoundByGenerator = "generator" // chainperf fell behind with senders free: its CPU or scheduling
	BoundByNode      = "node"      // every sender waited for an answer: the node's backpressure
)

// A Generator sends the txs a rate model asks for, open loop: each tx has
// an intended time from the schedule, latency counts from it, and a sender
// that falls behind shows up as lag instead of a slower schedule.
type Generator struct {
	cfg    Config
	ledger *Ledger
	method string
	// stamper is the workload when it writes intended times into its txs.
	stamper Stamper
	// carrier is the workload when it sends its txs its own way.
	carrier Carrier

	dispatched atomic.Int64            // txs handed to senders
	stop       context.CancelCauseFunc // ends the run with the workload's error
	blocked    atomic.Int64            // jobs that waited because every sender was busy
	due        float64                 // txs whose intended time fell inside the phase
	elapsed    time.Duration

	// Senders: how many run (and most at once), how many are busy with a
	// request, how many were needed at once in this senderWindow, and how
	// to start one more (Run sets it).
	senders     atomic.Int64
	peakSenders atomic.Int64
	pacer       string // how the pacer slept (clock.String)
	held        string // the pipelined path's targets whose connections stopped growing, and why
	busy        atomic.Int64
	inRequest   atomic.Int64 // senders waiting for an answer
	needed      atomic.Int64
	spawn       func() bool // false at max_in_flight
	conns       int64       // pipelined: connections open at most
	// Txs sent within OnTime of their intended time, and the late ones by
	// who made them late: the node (every sender was waiting for its
	// answers when they were handed out) or chainperf.
	onTime      atomic.Int64
	lateQueued  atomic.Int64
	lateHanding atomic.Int64
}

// NewGenerator checks cfg and returns a generator that records into l.
func NewGenerator(cfg Config, l *Ledger) (*Generator, error) {
	m, ok := Methods[cfg.Method]
	if !ok {
		return nil, fmt.Errorf("unknown broadcast method %q (sync, async, commit)", cfg.Method)
	}
	if cfg.Batch < 1 {
		cfg.Batch = 1
	}
	if cfg.MaxInFlight < 1 {
		cfg.MaxInFlight = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
		if cfg.Method == "commit" {
			cfg.Timeout = 60 * time.Second
		}
	}
	if len(cfg.Targets) == 0 {
		return nil, fmt.Errorf("no RPC node to send to")
	}
	carrier, _ := cfg.Workload.(Carrier)
	if carrier != nil {
		if len(carrier.Targets()) != len(cfg.Targets) {
			return nil, fmt.Errorf("the workload sends to %d targets of its own for %d RPC nodes", len(carrier.Targets()), len(cfg.Targets))
		}
		cfg.Targets = append([]string(nil), carrier.Targets()...)
	}
	for i, t := range cfg.Targets {
		cfg.Targets[i] = strings.TrimRight(t, "/") + "/"
	}
	l.SetMaxPending(cfg.MaxPending)
	stamper, _ := cfg.Workload.(Stamper)
	return &Generator{cfg: cfg, ledger: l, method: m, stamper: stamper, carrier: carrier}, nil
}

// A job is a run of consecutive txs sent in one request.
type job struct {
	seq    uint64        // first tx
	n      int           // txs
	due    time.Duration // intended time of the last tx: when the request is due
	handed time.Duration // when the job was handed to the senders
	// nodeWait: when it was handed, every sender (max_in_flight of them)
	// was waiting for an answer, so a wait for a free one is the node's.
	nodeWait bool
	direct   bool          // closed loop: every tx's intended time is due, no schedule to keep
	pickup   bool          // the max model: due is when a sender takes the job
	done     chan struct{} // if set, told when the send has finished
}

// Run sends until the model's length has passed (or ctx ends), then waits
// for the requests in flight. It returns the number of txs sent.
func (g *Generator) Run(ctx context.Context) (int64, error) {
	ctx, g.stop = context.WithCancelCause(ctx)
	defer g.stop(nil)
	set := newConnSet()
	// Stopped (Ctrl-C, a workload error): the requests in flight end now,
	// as send errors, instead of at their timeout. A phase that ends on
	// its own is not cancelled before every request is answered.
	stopConns := context.AfterFunc(ctx, set.closeAll)
	defer stopConns()
	if g.pipelined() {
		p, err := newPipeline(ctx, g, set)
		if err != nil {
			return 0, err
		}
		g.pace(ctx, p)
		p.drain()
		g.peakSenders.Store(p.peak)
		g.conns = int64(p.peakConns)
		g.held = p.heldNotes()
	} else {
		g.sendThroughSenders(ctx, set)
	}
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return g.dispatched.Load(), err
	}
	return g.dispatched.Load(), ctx.Err()
}

// sendThroughSenders runs the model with a goroutine a request in flight
// (senders): for closed loops, and workloads that hear or route their
// sends, carry their own requests or may wait to make a tx.
func (g *Generator) sendThroughSenders(ctx context.Context, set *connSet) {
	jobs := make(chan job, firstSenders)
	retire := make(chan struct{}, g.cfg.MaxInFlight)
	var wg sync.WaitGroup
	client := newClient(g.cfg.MaxInFlight, g.cfg.Timeout, set)
	g.spawn = func() bool {
		// Users hand jobs from many goroutines: take a slot first, so
		// that max_in_flight is never passed.
		for {
			n := g.senders.Load()
			if n >= int64(g.cfg.MaxInFlight) {
				return false
			}
			if g.senders.CompareAndSwap(n, n+1) {
				storeMax(&g.peakSenders, n+1)
				break
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			selfcost.Unowned(ctx) // started by the pacer, on a thread of its own
			g.sender(ctx, client, jobs, retire)
		}()
		return true
	}
	first := g.cfg.MaxInFlight
	if _, open := g.cfg.Model.(Max); !open {
		first = min(first, firstSenders)
	}
	for i := 0; i < first; i++ {
		g.spawn()
	}
	switch m := g.cfg.Model.(type) {
	case Max:
		g.closedLoop(ctx, jobs)
	case Users:
		g.users(ctx, m, jobs)
	default:
		stop := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.trimSenders(stop, retire)
		}()
		g.pace(ctx, senderQueue{g, jobs})
		close(stop)
	}
	close(jobs)
	wg.Wait()
	client.CloseIdleConnections()
}

// trimSenders retires, every senderWindow until stop closes, the senders
// beyond twice the most needed at once in the window (firstSenders at
// least): a retired sender's connection goes back to the client's pool,
// where it closes once idle (newClient). A window after retiring
// releaseAfter or more, it gives their memory back. Only the open loop is
// trimmed: a closed loop keeps all its senders busy.
func (g *Generator) trimSenders(stop <-chan struct{}, retire chan<- struct{}) {
	t := time.NewTicker(senderWindow)
	defer t.Stop()
	var retired int64 // at the last tick
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if retired >= releaseAfter {
			releaseMemory()
		}
		keep := max(firstSenders, 2*g.needed.Swap(0))
		// Tokens not taken yet are senders already on their way out.
		retired = max(0, g.senders.Load()-keep-int64(len(retire)))
		for range retired {
			retire <- struct{}{}
		}
	}
}

// storeMax raises a to v if v is larger.
func storeMax(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}

// A dispatcher takes the jobs the pacer hands out: hand queues one (false:
// ctx ended), flush sends what is queued before the pacer sleeps and says
// how long it may sleep at most (0: until the next job is due).
type dispatcher interface {
	hand(ctx context.Context, j job) bool
	flush() time.Duration
}

// senderQueue hands jobs to senders.
type senderQueue struct {
	g    *Generator
	jobs chan<- job
}

func (q senderQueue) hand(ctx context.Context, j job) bool { return q.g.hand(ctx, q.jobs, j) }
func (q senderQueue) flush() time.Duration                 { return 0 }

// quantum is how long the pacer sleeps at least when n txs fall due gap
// apart: a wake-up and a write cost tens of microseconds whatever they
// carry (a loopback write was 21 us on this project's machine, a wake-up
// of a thread a few more), so one wake-up serves every tx due within it.
// 500 us up to 25,000 tx/s (from 2,000 tx/s a wake-up carries more than
// one tx), growing with the rate (20 ns a tx/s) to 1 ms from 50,000; a tx
// is sent at most this much after its time on that account (p99 lag
// 0.68-1.24 ms at 1,000-20,000 tx/s against the sink: docs/BENCHMARKS.md,
// the fifth generator run).
func quantum(gap time.Duration, n uint64) time.Duration {
	const lo, hi = 500 * time.Microsecond, time.Millisecond
	if gap <= 0 {
		return hi
	}
	rate := float64(n) / gap.Seconds()
	return min(hi, max(lo, time.Duration(rate*20)))
}

// pace hands out jobs at their intended times.
func (g *Generator) pace(ctx context.Context, d dispatcher) {
	m, start := g.cfg.Model, g.ledger.Start()
	_, feedback := m.(*PID)
	batch := uint64(g.cfg.Batch)
	// Due: the txs whose intended time fell inside the phase, up to where
	// it ended (a cancelled run owes nothing after it stopped).
	defer func() {
		g.elapsed = m.Length()
		if ctx.Err() != nil {
			g.elapsed = min(m.Length(), time.Since(start))
		}
		g.due = m.Due(g.elapsed)
	}()
	defer d.flush()
	var prev time.Duration
	clk := newClock(ctx)
	defer clk.close()
	g.pacer = clk.String()
	for seq, n := uint64(0), batch; ; seq += n {
		// Whatever the model says, a phase ends at its length and a grace.
		if time.Since(start) > m.Length()+PhaseGrace {
			break
		}
		due, ok := IntendedTime(m, float64(seq+n-1), prev)
		if !ok {
			// A feedback model may raise its rate later: wait and look again.
			if feedback && time.Since(start) < m.Length() && ctx.Err() == nil {
				d.flush()
				time.Sleep(5 * time.Millisecond)
				seq -= n
				continue
			}
			// The last request may hold fewer txs than a batch.
			total := uint64(math.Ceil(m.Due(m.Length())))
			if total <= seq || n == 1 {
				break
			}
			n = total - seq
			if due, ok = IntendedTime(m, float64(seq+n-1), prev); !ok {
				break
			}
		}
		gap := due - prev
		prev = due
		if wait := time.Until(start.Add(due)); wait > 0 {
			until := start.Add(due).Add(max(0, quantum(gap, n)-wait))
			for {
				wake := until
				if most := d.flush(); most > 0 && time.Until(until) > most {
					wake = time.Now().Add(most)
				}
				if !clk.sleepUntil(ctx, wake) {
					return
				}
				if !wake.Before(until) {
					break
				}
			}
		}
		if !d.hand(ctx, job{seq: seq, n: int(n), due: due, handed: time.Since(start)}) {
			break
		}
	}
}

// hand gives a job to the senders, starting one more while all are busy
// (up to max_in_flight); past that it waits for a free one. It reports
// false when ctx ended.
func (g *Generator) hand(ctx context.Context, jobs chan<- job, j job) bool {
	// As many new senders as jobs wait with none free: one a job would
	// fall behind a node that slows down all at once.
	storeMax(&g.needed, g.busy.Load()+int64(len(jobs))+1)
	for g.busy.Load()+int64(len(jobs)) >= g.senders.Load() {
		if !g.spawn() {
			break
		}
	}
	j.nodeWait = g.inRequest.Load() >= int64(g.cfg.MaxInFlight)
	select {
	case jobs <- j:
	default:
		g.blocked.Add(1)
		select {
		case jobs <- j:
		case <-ctx.Done():
			return false
		}
	}
	g.dispatched.Add(int64(j.n))
	return ctx.Err() == nil
}

// make appends the job's txs to the buffers in txs (kept from job to job).
// A Stamper gets each tx's intended time (start + intended[i]).
func (g *Generator) make(ctx context.Context, j job, txs [][]byte, start time.Time, intended []time.Duration) ([][]byte, error) {
	for len(txs) < j.n {
		txs = append(txs, nil)
	}
	for i := 0; i < j.n; i++ {
		var tx []byte
		var err error
		if g.stamper != nil {
			tx, err = g.stamper.AppendAt(ctx, txs[i][:0], j.seq+uint64(i), start.Add(intended[i]))
		} else {
			tx, err = g.cfg.Workload.Append(ctx, txs[i][:0], j.seq+uint64(i))
		}
		if err != nil {
			return txs, fmt.Errorf("tx %d: %w", j.seq+uint64(i), err)
		}
		txs[i] = tx
	}
	return txs, nil
}
