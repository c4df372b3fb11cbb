// Package readload sends reads beside a tx load: open loop at a rate of
// its own, the kinds in turn, each read at its time whether or not the
// last one was answered, with latency and failures by kind. What a read
// asks is the chain's (a balance, a contract's query, a block); how they
// are paced and counted is here, once.
package readload

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// maxInFlight bounds the reads waiting for an answer: a node that stops
// answering holds this many, and the reads due meanwhile are counted as
// skipped instead of piling up.
const maxInFlight = 64

// A Kind is one kind of read: its name in the report and how to make read
// i of it (i counts that kind's reads: it picks whom to ask about).
type Kind struct {
	Name string
	Read func(ctx context.Context, i uint64) error
}

// A Config says how fast and what to read.
type Config struct {
	Rate    float64 // reads a second, all kinds together
	Kinds   []Kind
	Timeout time.Duration // a read's; 0: 10 s
}

// Stats are one kind of read's results: answered (a result), failed (an
// error, an HTTP error or no answer in time), skipped (due while
// maxInFlight were unanswered), and the answered ones' latency.
type Stats struct {
	Kind     string  `json:"kind"`
	Sent     int64   `json:"sent"`
	Answered int64   `json:"answered"`
	Failed   int64   `json:"failed"`
	Skipped  int64   `json:"skipped"`
	P50      float64 `json:"latency_p50_ms"`
	P99      float64 `json:"latency_p99_ms"`
	Max      float64 `json:"latency_max_ms"`
	Example  string  `json:"example,omitempty"` // the first failure's reason
}

// Reads is a read load running.
type Reads struct {
	cfg   Config
	stop  context.CancelFunc
	done  chan struct{}
	wg    sync.WaitGroup
	slots chan struct{}
	mu    sync.Mutex
	stats []Stats
	hists []*hdrhistogram.Histogram // latency, us, by kind
}

// Start starts the read load; Stop ends it and says what it did.
func Start(ctx context.Context, cfg Config) (*Reads, error) {
	if len(cfg.Kinds) == 0 || !(cfg.Rate > 0) {
		return nil, fmt.Errorf("read load: %d kinds of read at %g reads/s: need a kind and a rate", len(cfg.Kinds), cfg.Rate)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	ctx, stop := context.WithCancel(ctx)
	r := &Reads{cfg: cfg, stop: stop, done: make(chan struct{}), slots: make(chan struct{}, maxInFlight)}
	for _, k := range cfg.Kinds {
		r.stats = append(r.stats, Stats{Kind: k.Name})
		r.hists = append(r.hists, hdrhistogram.New(1, 60_000_000, 3))
	}
	go r.run(ctx)
	return r, nil
}

// run sends read i at start + i/rate until ctx ends.
func (r *Reads) run(ctx context.Context) {
	defer close(r.done)
	start := time.Now()
	every := time.Duration(float64(time.Second) / r.cfg.Rate)
	t := time.NewTimer(0)
	defer t.Stop()
	n := uint64(len(r.cfg.Kinds))
	for i := uint64(0); ; i++ {
		if d := time.Until(start.Add(time.Duration(i) * every)); d > 0 {
			t.Reset(d)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		} else if ctx.Err() != nil {
			return
		}
		k := int(i % n)
		select {
		case r.slots <- struct{}{}:
		default:
			r.mu.Lock()
			r.stats[k].Sent++
			r.stats[k].Skipped++
			r.mu.Unlock()
			continue
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer func() { <-r.slots }()
			r.read(ctx, i/n, k)
		}()
	}
}

// read makes read i of kind k and counts it.
func (r *Reads) read(ctx context.Context, i uint64, k int) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	began := time.Now()
	err := r.cfg.Kinds[k].Read(ctx, i)
	took := time.Since(began)
	r.mu.Lock()
	defer r.mu.Unlock()
	st := &r.stats[k]
	st.Sent++
	if err != nil {
		if ctx.Err() != nil && took < r.cfg.Timeout {
			st.Sent-- // ended with the load, not by the node
			return
		}
		st.Failed++
		if st.Example == "" {
			st.Example = err.Error()
		}
		return
	}
	st.Answered++
	_ = r.hists[k].RecordValue(max(1, took.Microseconds()))
}

// Stop ends the read load, waits for the reads out and returns the
// results by kind.
func (r *Reads) Stop() []Stats {
	r.stop()
	<-r.done
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Stats, len(r.stats))
	for k, st := range r.stats {
		if h := r.hists[k]; h.TotalCount() > 0 {
			st.P50 = float64(h.ValueAtQuantile(50)) / 1000
			st.P99 = float64(h.ValueAtQuantile(99)) / 1000
			st.Max = float64(h.Max()) / 1000
		}
		out[k] = st
	}
	return out
}
