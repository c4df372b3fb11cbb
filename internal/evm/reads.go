package evm

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chainperf/chainperf/internal/nodehttp"
)

// Kinds of read, what a wallet or a dapp asks a node between its writes.
const (
	ReadBalance = "eth_getBalance"          // a wallet's balance, latest
	ReadNonce   = "eth_getTransactionCount" // a wallet's nonce, pending
	ReadCall    = "eth_call"                // the token's balanceOf, else a transfer simulated
)

// ReadKinds are the reads a read load sends, in turn.
var ReadKinds = []string{ReadBalance, ReadNonce, ReadCall}

// maxReadsInFlight bounds the reads waiting for an answer: a node that
// stops answering holds this many, and the reads due meanwhile are
// counted as skipped instead of piling up.
const maxReadsInFlight = 64

// A ReadConfig says where, how fast and about whom the reads ask.
type ReadConfig struct {
	URLs    []string // JSON-RPC servers, taken in turn
	Rate    float64  // reads a second, all kinds together
	Wallets []Wallet // the accounts asked about, taken in turn
	Token   Address  // eth_call asks its balanceOf when set
	Timeout time.Duration
}

// ReadStats are one kind of read's results: answered (a result), failed
// (an error, an HTTP error or no answer in time), skipped (due while
// maxReadsInFlight were unanswered), and the answered ones' latency.
type ReadStats struct {
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

// Reads is a read load running beside the writes: open loop, each read at
// its time whether or not the last one was answered.
type Reads struct {
	cfg   ReadConfig
	http  *http.Client
	stop  context.CancelFunc
	done  chan struct{}
	wg    sync.WaitGroup
	slots chan struct{}
	mu    sync.Mutex
	stats []ReadStats
	hists []*hdrhistogram.Histogram // latency, us, by kind
}

// StartReads starts the read load; Stop ends it and says what it did.
func StartReads(ctx context.Context, cfg ReadConfig) (*Reads, error) {
	if len(cfg.URLs) == 0 || len(cfg.Wallets) == 0 || !(cfg.Rate > 0) {
		return nil, fmt.Errorf("read load: %d servers, %d wallets, %g reads/s: need one of each and a rate", len(cfg.URLs), len(cfg.Wallets), cfg.Rate)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	ctx, stop := context.WithCancel(ctx)
	r := &Reads{cfg: cfg, http: nodehttp.Client(nodehttp.Query), stop: stop, done: make(chan struct{}),
		slots: make(chan struct{}, maxReadsInFlight)}
	for _, k := range ReadKinds {
		r.stats = append(r.stats, ReadStats{Kind: k})
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
		k := int(i % uint64(len(ReadKinds)))
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
			r.read(ctx, i, k)
		}()
	}
}

// read makes read i, of kind k, and counts it.
func (r *Reads) read(ctx context.Context, i uint64, k int) {
	url := r.cfg.URLs[i%uint64(len(r.cfg.URLs))]
	w := r.cfg.Wallets[(i/uint64(len(ReadKinds)))%uint64(len(r.cfg.Wallets))]
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	began := time.Now()
	var err error
	switch ReadKinds[k] {
	case ReadBalance:
		_, err = BalanceAt(ctx, r.http, url, w.Address, 0)
	case ReadNonce:
		var out string
		err = Call(ctx, r.http, url, "eth_getTransactionCount", []any{w.Address.String(), "pending"}, &out)
		if err == nil {
			_, err = quantity(out, "eth_getTransactionCount")
		}
	case ReadCall:
		var out string
		call := map[string]string{"from": w.Address.String(), "to": w.Address.String(), "value": "0x1"}
		if r.cfg.Token != (Address{}) {
			call = map[string]string{"to": r.cfg.Token.String(), "data": fmt.Sprintf("0x%x", BalanceOfCall(w.Address))}
		}
		err = Call(ctx, r.http, url, "eth_call", []any{call, "latest"}, &out)
	}
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
func (r *Reads) Stop() []ReadStats {
	r.stop()
	<-r.done
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]ReadStats, len(r.stats))
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
