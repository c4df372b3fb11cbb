package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
)

// One phase spread over several generators (load.generators > 1): each
// generator (a pod, `chainperf generate`) sends its load.Share of the
// schedule from a common start, follows blocks itself and keeps its own
// ledger; the coordinator follows blocks too (the phase's block table and
// the live view) and, when every generator has ended, merges their ledgers
// and reports (load.MergeLedgers) into the phase.

// Spread makes a Drive generator Index of Of: its share of the schedule
// from Start; Done gets its closed ledger and its report.
type Spread struct {
	Index, Of int
	Start     time.Time
	Done      func(load.LedgerState, load.Report)
}

// GeneratorSpec is what one generator is told: its part of one phase.
type GeneratorSpec struct {
	RunID    string            `json:"run_id"` // the phase's; the generator's txs carry RunID.gINDEX
	Index    int               `json:"index"`
	Of       int               `json:"of"`
	Start    time.Time         `json:"start"`
	Targets  []string          `json:"targets"`
	Follow   []string          `json:"follow"`
	Load     scenario.Load     `json:"load"`
	Workload scenario.Workload `json:"workload"`
	Warmup   time.Duration     `json:"warmup"`
	Cooldown time.Duration     `json:"cooldown"`
	Drain    time.Duration     `json:"drain"`
}

// GeneratorResult is what a generator answers (the last line it prints):
// its closed ledger, its report, and the blocks as it saw them (its own
// txs in each: Ours, OursFailed and their latency).
type GeneratorResult struct {
	Index  int              `json:"index"`
	Ledger load.LedgerState `json:"ledger"`
	Report load.Report      `json:"report"`
	Blocks []observe.Block  `json:"blocks"`
}

// RunGenerator runs one generator's part of a phase; live (nil: none)
// gets its counts each second while it runs.
func RunGenerator(ctx context.Context, spec GeneratorSpec, log *slog.Logger, live func(GeneratorLive)) (*GeneratorResult, error) {
	if spec.Of < 1 || spec.Index < 0 || spec.Index >= spec.Of {
		return nil, fmt.Errorf("generator %d of %d", spec.Index, spec.Of)
	}
	res := &GeneratorResult{Index: spec.Index}
	done := false
	var progress func(Progress)
	if live != nil {
		progress = func(p Progress) { live(liveOf(spec.Index, p.Ledger)) }
	}
	p, err := Drive(ctx, DriveOptions{
		Progress: progress,
		RunID:    fmt.Sprintf("%s.g%d", spec.RunID, spec.Index), Targets: spec.Targets, Follow: spec.Follow,
		Load: spec.Load, Workload: spec.Workload, Warmup: spec.Warmup, Cooldown: spec.Cooldown, Drain: spec.Drain, Log: log,
		Spread: &Spread{Index: spec.Index, Of: spec.Of, Start: spec.Start, Done: func(st load.LedgerState, r load.Report) {
			res.Ledger, res.Report, done = st, r, true
		}},
	})
	if err != nil {
		return nil, err
	}
	if !done {
		return nil, errors.New("the generator ended without its ledger")
	}
	res.Blocks = p.Blocks
	return res, nil
}

// A SpreadRunner runs one generator per spec (JSON of a GeneratorSpec)
// and returns each one's answer (JSON of a GeneratorResult), in order;
// a generator that died is an error that names it. The lines generators
// print while they run (GeneratorLive) go to live as they come.
type SpreadRunner func(ctx context.Context, specs [][]byte, live func([]byte)) ([][]byte, error)

// SpreadLead is how long before the common start the generators are
// made: time for their pods to be scheduled and to start.
var SpreadLead = 10 * time.Second

// DriveSpread runs one phase over n generators through run and returns the
// phase with the generators' ledgers and reports merged.
func DriveSpread(ctx context.Context, o DriveOptions, n int, run SpreadRunner) (*results.Phase, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	model, err := load.ModelFrom(o.Load)
	if err != nil {
		return nil, err
	}
	switch model.(type) {
	case *load.PID, load.Users, load.Max:
		return nil, fmt.Errorf("the %s model cannot be spread over generators: it has no schedule to split", model)
	}
	wl, err := load.WorkloadFrom(o.Workload, o.Load, o.RunID)
	if err != nil {
		return nil, err
	}
	if err := load.CheckTargets(ctx, o.Targets); err != nil {
		return nil, err
	}
	if len(o.Follow) == 0 {
		return nil, errors.New("spread generators find their txs' fates in blocks: they need the block follower")
	}
	from, err := observe.Latest(ctx, o.Follow)
	if err != nil {
		return nil, err
	}
	start := time.Now().Add(SpreadLead)
	targets, follow := o.Targets, o.Follow
	if o.InNetwork != nil {
		targets, follow = mapURLs(targets, o.InNetwork), mapURLs(follow, o.InNetwork)
	}
	specs := make([][]byte, n)
	for i := range specs {
		specs[i], _ = json.Marshal(GeneratorSpec{
			RunID: o.RunID, Index: i, Of: n, Start: start, Targets: targets, Follow: follow,
			Load: o.Load, Workload: o.Workload, Warmup: o.Warmup, Cooldown: o.Cooldown, Drain: o.Drain,
		})
	}
	// The coordinator's own follower: the phase's blocks and the chain in
	// the live view. Its ledger tracks no tx: the generators' do, and
	// their counts of their txs in each block are added in at the end.
	own := load.NewLedger(start, false)
	merge := newLiveMerge(n)
	feed := &blockFeed{Ledger: own, start: start}
	follower := observe.NewFollower(o.Follow, from+1, feed, nil, o.Log)
	follower.OnProblem = o.OnProblem
	if o.Headers != nil {
		defer o.Headers(follower.Wake)()
	}
	followCtx, stopFollow := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = follower.Run(followCtx) }()
	go func() {
		defer wg.Done()
		everySecond(followCtx, func() {
			if o.Progress == nil {
				return
			}
			el := time.Since(start)
			phase := "load"
			if el < 0 {
				phase, el = "starting generators", 0
			} else if el > model.Length() {
				phase = "drain"
			}
			p := Progress{Phase: phase, Elapsed: el, Length: model.Length(), Target: model.Rate(el),
				Height: follower.Next() - 1, Interval: feed.interval(), MempoolMax: -1, Generators: n}
			p.Ledger, p.Live = merge.summary()
			o.Progress(p)
		})
	}()
	outs, runErr := run(ctx, specs, merge.add)
	stop := func() []observe.Block {
		stopFollow()
		wg.Wait()
		var blocks []observe.Block
		for _, b := range follower.Flush() {
			if !b.Seen.Before(start) { // read while the generators were being made: not the phase's
				blocks = append(blocks, b)
			}
		}
		return blocks
	}
	if runErr != nil {
		stop()
		return nil, fmt.Errorf("load spread over %d generators: %w", n, runErr)
	}
	if len(outs) != n {
		stop()
		return nil, fmt.Errorf("%d answers from %d generators", len(outs), n)
	}
	states := make([]load.LedgerState, n)
	reports := make([]load.Report, n)
	theirs := map[int64][]observe.Block{}
	var top int64
	for i, out := range outs {
		var gr GeneratorResult
		if err := json.Unmarshal(out, &gr); err != nil {
			stop()
			return nil, fmt.Errorf("generator %d's answer: %w", i, err)
		}
		if gr.Index != i {
			stop()
			return nil, fmt.Errorf("generator %d answered as generator %d", i, gr.Index)
		}
		states[i], reports[i] = gr.Ledger, gr.Report
		for _, b := range gr.Blocks {
			theirs[b.Height] = append(theirs[b.Height], b)
			top = max(top, b.Height)
		}
	}
	// The generators may have read a block or two more than this follower
	// so far: wait (a little) until it has them too.
	for end := time.Now().Add(15 * time.Second); follower.Next()-1 < top && time.Now().Before(end) && ctx.Err() == nil; {
		time.Sleep(100 * time.Millisecond)
	}
	blocks := stop()
	for i := range blocks {
		addOurs(&blocks[i], theirs[blocks[i].Height])
		if o.OnBlock != nil {
			o.OnBlock(blocks[i])
		}
	}
	merged, err := load.MergeLedgers(states)
	if err != nil {
		return nil, err
	}
	rep := load.MergeReports(reports)
	// The whole schedule's (the shares' own dues are continuous parts of
	// it, each txs i, i+N, ... below the total, and add up to slightly less).
	rep.Model, rep.Due = model.String(), model.Due(model.Length())
	r := &results.Phase{
		RunID: o.RunID, Model: model.String(), Workload: wl.String(), Method: o.Load.Method,
		Start: start, End: time.Now(), Length: model.Length(), Ledger: merged.Summary(), Followed: true,
		Generator: rep, Blocks: blocks,
	}
	figures(o, model, r)
	return r, nil
}

// addOurs adds the generators' counts of their txs in block b (as each saw
// it) and the latency of those txs: the mean weighted by count, the max.
func addOurs(b *observe.Block, gens []observe.Block) {
	var sum float64
	for _, g := range gens {
		b.Ours += g.Ours
		b.OursFailed += g.OursFailed
		sum += g.LatencyMean * float64(g.Ours)
		b.LatencyMax = max(b.LatencyMax, g.LatencyMax)
	}
	if b.Ours > 0 {
		b.LatencyMean = sum / float64(b.Ours)
	}
}

func mapURLs(urls []string, f func(string) string) []string {
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = f(u)
	}
	return out
}
