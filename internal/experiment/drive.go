package experiment

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/selfcost"
)

// NewRunID returns a run ID: UTC time plus a random suffix, letters,
// digits and '-' only (it is part of every kvstore tx key).
func NewRunID() string {
	b := make([]byte, 2)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// DriveOptions say what load goes where and who watches it.
type DriveOptions struct {
	RunID   string
	Targets []string // RPC URLs that receive txs
	Follow  []string // RPC URLs to read blocks from, in order of preference; nil: no block follower
	// InNetwork maps a URL of Targets or Follow to where generators
	// beside the nodes reach it (a pod at the node's pod IP, while a
	// harness outside the cluster goes through the API server); nil: the
	// same URLs.
	InNetwork func(url string) string
	Load      scenario.Load
	Workload  scenario.Workload
	// Made, if set, is the workload to send (one that keeps state from
	// phase to phase, as a Cosmos workload's sequences); else Workload's
	// section is built into a fresh one.
	Made     load.Workload
	OnCommit func(h load.Hash, height int64, r load.TxResult, latency time.Duration) // our txs as blocks show them
	Warmup   time.Duration                                                           // left out of the window figures at the start
	Cooldown time.Duration                                                           // left out at the end
	Drain    time.Duration                                                           // wait at most this long for accepted txs to land
	// Progress, if set, is called about once a second while load runs and
	// while the run drains.
	Progress func(Progress)
	// OnBlock, if set, gets every block as soon as its commit round is
	// known (the store records blocks as the run goes).
	OnBlock func(observe.Block)
	// OnProblem, if set, hears what the run must say of the block
	// follower (a node over a cap, a bad height, a stall, heights left
	// unread).
	OnProblem func(kind, detail string)
	// Headers, if set, calls a func with each height a node says it
	// committed, as it says it, until the returned stop: the follower
	// reads each block then rather than polling for it.
	Headers func(func(height int64)) (stop func())
	Log     *slog.Logger
	// Spread, when set, makes this Drive one of several generators of a
	// phase (spread.go).
	Spread *Spread
	// OnlySender: the run is the only one sending to the network (a
	// testnet it made): a block holding far more txs than it sent is
	// implausible (results.Implausible), said and left out of txs/block.
	OnlySender bool
}

// Progress is a live snapshot of a run.
type Progress struct {
	Phase   string // "load" or "drain"
	Elapsed time.Duration
	Length  time.Duration
	Target  float64 // tx/s the model wants now
	Ledger  load.Summary
	Height  int64 // next height the follower reads - 1
	// Interval is the last block's interval (header times); 0 before two.
	Interval time.Duration
	// Name is the experiment phase ("steady 1/1", "find-max"); MempoolMax
	// the largest mempool of any node at the last scrape (-1: not known).
	// Drive knows neither: it leaves Name empty and MempoolMax -1 for the
	// caller to fill; so with Run and Scenario (the run's ID and its
	// scenario's name).
	Name       string
	MempoolMax float64
	Run        string
	Scenario   string
	// Generators > 1: the load comes from that many generators; Live
	// says Ledger holds what they have said so far (their counts summed,
	// latency and lag the highest of theirs), else it is empty until they
	// end.
	Generators int
	Live       bool
	// LatencyHist reads the latency's buckets so far (Ledger, a live
	// summary, leaves them out); nil when not known.
	LatencyHist func() []load.Bucket
}

// Drive runs one load phase: the generator sends on schedule while the
// follower matches blocks against the ledger, then the run drains until no
// accepted tx waits for a block (or the drain timeout), and every tx gets
// its final fate.
func Drive(ctx context.Context, o DriveOptions) (*results.Phase, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	model, wl, err := prepare(ctx, o)
	if err != nil {
		return nil, err
	}
	if o.Spread != nil {
		model = load.Share{M: model, Index: o.Spread.Index, Of: o.Spread.Of}
	}
	pid, feedback := model.(*load.PID)
	if feedback && len(o.Follow) == 0 {
		return nil, fmt.Errorf("the pid rate model steers by block intervals: it needs the block follower (drop --no-follow)")
	}
	if err := load.CheckTargets(ctx, o.Targets); err != nil {
		return nil, err
	}
	var from int64
	if len(o.Follow) > 0 {
		h, err := observe.Latest(ctx, o.Follow)
		if err != nil {
			return nil, err
		}
		from = h + 1
	}
	start := time.Now().Add(50 * time.Millisecond)
	if o.Spread != nil {
		start = o.Spread.Start // every generator's schedule from the same instant
	}
	ledger := load.NewLedger(start, len(o.Follow) > 0)
	ledger.SetWindow(o.Warmup, model.Length()-o.Cooldown)
	if o.Spread != nil {
		ledger.KeepSeconds()
	}
	gen, err := load.NewGenerator(load.Config{
		Model: model, Workload: wl, Targets: append([]string(nil), o.Targets...), Method: o.Load.Method,
		Batch: o.Load.Batch, MaxInFlight: o.Load.MaxInFlight, MaxPending: o.Load.MaxPending,
	}, ledger)
	if err != nil {
		return nil, err
	}

	var wg sync.WaitGroup
	followCtx, stopFollow := context.WithCancel(context.WithoutCancel(ctx))
	defer stopFollow()
	var follower *observe.Follower
	feed := &blockFeed{Ledger: ledger, start: start, onCommit: o.OnCommit}
	if feedback {
		feed.pid = pid
	}
	if len(o.Follow) > 0 {
		follower = observe.NewFollower(o.Follow, from, feed, o.OnBlock, o.Log)
		follower.OnProblem = o.OnProblem
		if o.Headers != nil {
			defer o.Headers(follower.Wake)()
		}
		wg.Add(1)
		go selfcost.Do(followCtx, selfcost.Follower, func(ctx context.Context) {
			defer wg.Done()
			_ = follower.Run(ctx)
		})
	}
	report := func(phase string) {
		if o.Progress == nil {
			return
		}
		el := time.Since(start)
		p := Progress{Phase: phase, Elapsed: el, Length: model.Length(), Target: model.Rate(el), Ledger: ledger.Live(), LatencyHist: ledger.LatencyHist,
			Interval: feed.interval(), MempoolMax: -1}
		if follower != nil {
			p.Height = follower.Next() - 1
		}
		o.Progress(p)
	}

	loadCtx, stopProgress := context.WithCancel(ctx)
	wg.Add(1)
	go func() {
		defer wg.Done()
		everySecond(loadCtx, func() {
			if feedback {
				pid.CheckStall(time.Since(start))
			}
			report("load")
		})
	}()
	time.Sleep(time.Until(start))
	meter := selfcost.Start()
	var runErr error
	selfcost.Do(ctx, selfcost.Generator, func(ctx context.Context) { _, runErr = gen.Run(ctx) })
	stopProgress()
	var drained time.Duration
	if follower != nil && ctx.Err() == nil {
		drained = drain(ctx, ledger, o.Drain, follower.PollInterval(), feed.interval, func() { report("drain") })
	}
	stopFollow()
	wg.Wait()
	cost := meter.Stop()
	var inMempool, mempoolAtEnd, taken, gap int64
	if follower != nil && ledger.Unresolved() > 0 {
		inMempool, mempoolAtEnd = leftInMempools(ctx, o.Follow, ledger)
		if nr, ok := wl.(nonceReader); ok {
			var err error
			if taken, gap, err = nr.ReadNonceFates(ctx, ledger.Waits); err != nil {
				o.Log.Warn("the unresolved txs' senders' nonces not read", "err", err)
			}
		}
	}
	ledger.Close()
	if follower != nil {
		sayUnread(follower, o.OnProblem)
	}

	r := phaseOf(o, model, wl, start, ledger, gen, follower)
	r.Drained, r.InMempool, r.MempoolAtEnd = drained.Seconds(), inMempool, mempoolAtEnd
	r.NonceTaken, r.NonceGap = taken, gap
	r.Harness = &cost
	if o.Spread != nil {
		st, err := ledger.State()
		if err != nil {
			return r, err
		}
		o.Spread.Done(st, r.Generator)
	}
	if runErr != nil {
		return r, fmt.Errorf("load interrupted: %w", runErr)
	}
	return r, nil
}

// phaseOf is what a phase produced, with its figures.
func phaseOf(o DriveOptions, model load.RateModel, wl load.Workload, start time.Time, ledger *load.Ledger, gen *load.Generator, follower *observe.Follower) *results.Phase {
	r := &results.Phase{
		RunID: o.RunID, Model: model.String(), Workload: wl.String(), Method: o.Load.Method,
		Start: start, End: time.Now(), Length: model.Length(), Ledger: ledger.Summary(), Followed: follower != nil,
	}
	r.Generator = gen.Report(r.Ledger)
	if follower != nil {
		r.Blocks = follower.Flush()
	}
	figures(o, model, r)
	return r
}

// figures sets the phase's measured window and its figures, the blocks'
// tx counts judged first.
func figures(o DriveOptions, model load.RateModel, r *results.Phase) {
	r.Window = [2]float64{o.Warmup.Seconds(), (model.Length() - o.Cooldown).Seconds()}
	r.Offered = load.OfferedPerSecond(model)
	judgeCounts(o, r)
	r.Figures = results.Compute(r)
}

// judgeCounts marks the blocks whose tx counts cannot be true of a
// network only the run loads, and says so.
func judgeCounts(o DriveOptions, r *results.Phase) {
	if !o.OnlySender {
		return
	}
	r.Implausible = results.Implausible(r)
	if len(r.Implausible) == 0 || o.OnProblem == nil {
		return
	}
	for _, b := range r.Blocks {
		if b.Height == r.Implausible[0] {
			o.OnProblem("implausible_block", fmt.Sprintf("%d block(s) from height %d held more txs than could be true on a testnet only this run loads (height %d: %d txs, %d of them this run's, which sent %d): left out of txs per block",
				len(r.Implausible), b.Height, b.Height, b.Txs, b.Ours, r.Ledger.Sent))
			return
		}
	}
}

// prepare makes the phase's rate model and workload (o.Made, or a fresh
// one from the scenario's [workload]) and readies the workload for the
// phase.
func prepare(ctx context.Context, o DriveOptions) (load.RateModel, load.Workload, error) {
	model, err := load.ModelFrom(o.Load)
	if err != nil {
		return nil, nil, err
	}
	wl := o.Made
	if wl == nil {
		if wl, err = load.WorkloadFrom(o.Workload, o.Load, o.RunID); err != nil {
			return nil, nil, err
		}
	}
	if p, ok := wl.(load.Preparer); ok {
		if err := p.Prepare(ctx, phaseBound(model)); err != nil {
			return nil, nil, err
		}
	}
	return model, wl, nil
}

// everySecond calls f once a second until ctx ends.
func everySecond(ctx context.Context, f func()) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			f()
		}
	}
}

// drain waits until no accepted tx waits for a block: d at most if no tx
// of the phase lands meanwhile, and past d for as long as the chain still
// commits them (a slow chain's drain follows its block interval): it ends
// drainQuiet block intervals after the last block that held one, and at
// drainMost intervals in all. It tells report about once a second; then
// it looks once more (poll: the follower's interval), since a block being
// read may hold the last txs. It returns how long it waited.
func drain(ctx context.Context, ledger *load.Ledger, d, poll time.Duration, interval func() time.Duration, report func()) time.Duration {
	begin := time.Now()
	left := ledger.Unresolved()
	var landed time.Time // when a tx of the phase last landed (zero: none yet)
	for i := 1; left > 0 && ctx.Err() == nil; i++ {
		iv := interval()
		if iv <= 0 {
			iv = time.Second // no block seen yet
		}
		since := time.Since(begin)
		if since >= max(d, drainMost*iv) || since >= d && (landed.IsZero() || time.Since(landed) >= drainQuiet*iv) {
			break
		}
		time.Sleep(100 * time.Millisecond)
		if i%10 == 0 {
			report()
		}
		if n := ledger.Unresolved(); n < left {
			left, landed = n, time.Now()
		}
	}
	time.Sleep(2 * poll)
	return time.Since(begin)
}

const (
	// drainQuiet: past its timeout, a drain ends once this many block
	// intervals went by with none of the phase's txs in a block.
	drainQuiet = 3
	// drainMost: a drain lasts this many block intervals at most (or its
	// timeout, if longer).
	drainMost = 30
)

// A nonceReader says, by their senders' nonces on chain, why its txs
// still waiting for a block when the drain ended are in none
// (evm.Workload.ReadNonceFates): replaced (taken) or behind a gap.
type nonceReader interface {
	ReadNonceFates(ctx context.Context, waits func(load.Hash) bool) (taken, gap int64, err error)
}

// leftInMempools asks the nodes at rpcs what their mempools hold once the
// drain ended: how many of the txs still waiting for a block a node held
// (among the first 100 each lists), and the most txs one node held. A
// node that does not answer is left out (its mempool is unknown).
func leftInMempools(ctx context.Context, rpcs []string, ledger *load.Ledger) (ours, most int64) {
	seen := map[load.Hash]bool{}
	for _, rpc := range rpcs {
		u, err := observe.ReadUnconfirmed(ctx, rpc)
		if err != nil {
			continue
		}
		most = max(most, u.Total)
		for _, tx := range u.Txs {
			h := load.Hash(sha256.Sum256(tx))
			if !seen[h] && ledger.Waits(h) {
				seen[h] = true
				ours++
			}
		}
	}
	return ours, most
}

// blockFeed stands between the follower and the ledger: it keeps the last
// block interval for the live view and, for the pid rate model, passes
// each block's interval or its slowest tx of the run to the controller.
// The follower reports a block's txs, then its time, from one goroutine.
type blockFeed struct {
	*load.Ledger
	pid     *load.PID // nil: no feedback
	start   time.Time
	prev    time.Time
	slowest time.Duration // of the block being reported
	// sends and refusals counted at the previous block
	sent, rejected int64
	last           atomic.Int64 // last interval, ns
	onCommit       func(load.Hash, int64, load.TxResult, time.Duration)
}

// MaxPrepared bounds the txs a workload readies for one phase.
const MaxPrepared = 5_000_000

// phaseBound is how many txs a phase of model sends at most, for a
// workload that readies them before: what a schedule asks for, the pid
// model's cap x length; 0 when there is no bound (closed loop).
func phaseBound(m load.RateModel) int {
	due := m.Due(m.Length())
	if pid, ok := m.(*load.PID); ok {
		due = pid.Max * m.Length().Seconds()
	}
	if _, ok := m.(load.Max); ok {
		due = 0
	}
	if _, ok := m.(load.Users); ok {
		due = 0
	}
	if math.IsNaN(due) || due <= 0 {
		return 0
	}
	return int(min(math.Ceil(due)+1, MaxPrepared))
}

func (f *blockFeed) interval() time.Duration { return time.Duration(f.last.Load()) }

func (f *blockFeed) Committed(h load.Hash, height int64, r load.TxResult, seen time.Time) (time.Duration, bool) {
	lat, ours := f.Ledger.Committed(h, height, r, seen)
	if ours {
		f.slowest = max(f.slowest, lat)
		if f.onCommit != nil {
			f.onCommit(h, height, r, lat)
		}
	}
	return lat, ours
}

func (f *blockFeed) BlockTime(height int64, t time.Time) {
	f.Ledger.BlockTime(height, t)
	if !f.prev.IsZero() {
		f.last.Store(int64(t.Sub(f.prev)))
	}
	if f.pid == nil {
		f.prev = t
		return
	}
	el := time.Since(f.start)
	sent, rejected := f.Refusals()
	var refused float64
	if ds := sent - f.sent; ds > 0 {
		refused = float64(rejected-f.rejected) / float64(ds)
	}
	switch {
	case f.pid.HoldsLatency() && f.slowest > 0:
		f.pid.Block(el, f.slowest, refused)
	case !f.pid.HoldsLatency() && !f.prev.IsZero():
		f.pid.Block(el, t.Sub(f.prev), refused)
	default:
		f.pid.Seen(el, refused)
	}
	f.prev, f.slowest, f.sent, f.rejected = t, 0, sent, rejected
}

// sayUnread tells of heights a node said the chain had that the follower
// did not read by the phase's end: their txs are unresolved, and the run
// says why.
// A read the end cut short after a second or more is named, whatever the
// run's length (a stall is said as it happens only after StallAfter).
func sayUnread(f *observe.Follower, say func(kind, detail string)) {
	if say == nil {
		return
	}
	next, tip := f.Unread()
	cut, why := f.Cut(), ""
	if len(cut) > 0 {
		why = ": " + strings.Join(cut, "; ")
	} else if e := f.LastError(); e != "" {
		why = " (last error: " + e + ")"
	}
	switch {
	case tip >= next+1: // the last height may be a block made as the phase ended
		say("follower_gap", fmt.Sprintf("heights %d-%d were not read by the end of the phase (the nodes said the chain reached %d)%s", next, tip, tip, why))
	case len(cut) > 0:
		say("follower_gap", "the end of the phase cut a read short"+why)
	}
}
