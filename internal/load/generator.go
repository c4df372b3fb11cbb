package load

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
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
}

// Thresholds past which a run is called generator-bound: the load asked
// for was not the load sent.
const (
	BoundLagP99   = 50 * time.Millisecond // p99 of send start - intended time
	BoundRateLoss = 0.01                  // share of due txs not sent
)

// A Generator sends the txs a rate model asks for, open loop: each tx has
// an intended time from the schedule, latency counts from it, and a sender
// that falls behind shows up as lag instead of a slower schedule.
type Generator struct {
	cfg    Config
	ledger *Ledger
	method string

	dispatched atomic.Int64            // txs handed to senders
	stop       context.CancelCauseFunc // ends the run with the workload's error
	blocked    atomic.Int64            // jobs that waited because every sender was busy
	due        float64                 // txs the schedule asked for
	elapsed    time.Duration
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
	for i, t := range cfg.Targets {
		cfg.Targets[i] = strings.TrimRight(t, "/") + "/"
	}
	return &Generator{cfg: cfg, ledger: l, method: m}, nil
}

// A job is a run of consecutive txs sent in one request.
type job struct {
	seq    uint64        // first tx
	n      int           // txs
	due    time.Duration // intended time of the last tx: when the request is due
	direct bool          // closed loop: intended time = dispatch time
	done   chan struct{} // if set, told when the send has finished
}

// Run sends until the model's length has passed (or ctx ends), then waits
// for the requests in flight. It returns the number of txs sent.
func (g *Generator) Run(ctx context.Context) (int64, error) {
	ctx, g.stop = context.WithCancelCause(ctx)
	defer g.stop(nil)
	jobs := make(chan job, g.cfg.MaxInFlight)
	var wg sync.WaitGroup
	client := newClient(g.cfg.MaxInFlight, g.cfg.Timeout)
	for i := 0; i < g.cfg.MaxInFlight; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.sender(ctx, client, jobs)
		}()
	}
	switch m := g.cfg.Model.(type) {
	case Max:
		g.closedLoop(ctx, jobs)
	case Users:
		g.users(ctx, m, jobs)
	default:
		g.pace(ctx, jobs)
	}
	close(jobs)
	wg.Wait()
	client.CloseIdleConnections()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return g.dispatched.Load(), err
	}
	return g.dispatched.Load(), ctx.Err()
}

// pace hands out jobs at their intended times.
func (g *Generator) pace(ctx context.Context, jobs chan<- job) {
	m, start := g.cfg.Model, g.ledger.Start()
	_, feedback := m.(*PID)
	batch := uint64(g.cfg.Batch)
	var prev time.Duration
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for seq, n := uint64(0), batch; ; seq += n {
		due, ok := IntendedTime(m, float64(seq+n-1), prev)
		if !ok {
			// A feedback model may raise its rate later: wait and look again.
			if feedback && time.Since(start) < m.Length() && ctx.Err() == nil {
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
		prev = due
		if wait := time.Until(start.Add(due)); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		}
		j := job{seq: seq, n: int(n), due: due}
		select {
		case jobs <- j:
		default:
			g.blocked.Add(1)
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
		g.dispatched.Add(int64(n))
		if ctx.Err() != nil {
			return
		}
	}
	g.due, g.elapsed = m.Due(m.Length()), m.Length()
}

// closedLoop keeps every sender busy until the model's length has passed.
func (g *Generator) closedLoop(ctx context.Context, jobs chan<- job) {
	end := g.ledger.Start().Add(g.cfg.Model.Length())
	batch := uint64(g.cfg.Batch)
	for seq := uint64(0); time.Now().Before(end); seq += batch {
		select {
		case jobs <- job{seq: seq, n: int(batch), direct: true}:
			g.dispatched.Add(int64(batch))
		case <-ctx.Done():
			return
		}
	}
}

// users runs N users, each sending one tx, waiting for its answer, then
// thinking; a tx's intended time is the end of its user's think time.
func (g *Generator) users(ctx context.Context, u Users, jobs chan<- job) {
	end := g.ledger.Start().Add(u.D)
	var seq atomic.Uint64
	var wg sync.WaitGroup
	for i := 0; i < u.N; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Users start spread over one think time, as locust's spawn does.
			first := time.Duration(i) * u.Think / time.Duration(u.N)
			t := time.NewTimer(time.Until(g.ledger.Start().Add(first)))
			defer t.Stop()
			done := make(chan struct{})
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				if time.Now().After(end) {
					return
				}
				select {
				case jobs <- job{seq: seq.Add(1) - 1, n: 1, direct: true, done: done}:
					g.dispatched.Add(1)
				case <-ctx.Done():
					return
				}
				<-done
				t.Reset(u.Think)
			}
		}()
	}
	wg.Wait()
}

// make appends the job's txs to the buffers in txs (kept from job to job).
func (g *Generator) make(ctx context.Context, j job, txs [][]byte) ([][]byte, error) {
	for len(txs) < j.n {
		txs = append(txs, nil)
	}
	for i := 0; i < j.n; i++ {
		tx, err := g.cfg.Workload.Append(ctx, txs[i][:0], j.seq+uint64(i))
		if err != nil {
			return txs, fmt.Errorf("tx %d: %w", j.seq+uint64(i), err)
		}
		txs[i] = tx
	}
	return txs, nil
}

// sender sends jobs until the channel closes. Its buffers are reused, so a
// tx costs no allocation for building and encoding.
func (g *Generator) sender(ctx context.Context, client *fasthttp.Client, jobs <-chan job) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	var body []byte
	var hashes []Hash
	var intended []time.Duration
	var replies []reply
	var txs [][]byte
	for j := range jobs {
		// Every tx of the job is made before any is begun in the ledger:
		// a workload error (the run ends) leaves no tx half recorded.
		var err error
		if txs, err = g.make(ctx, j, txs); err != nil {
			g.stop(fmt.Errorf("workload: %w", err))
			if j.done != nil {
				j.done <- struct{}{}
			}
			continue
		}
		start := g.ledger.Start()
		hashes, intended = hashes[:0], intended[:0]
		body = body[:0]
		if j.n > 1 {
			body = append(body, '[')
		}
		var prev time.Duration
		dispatch := time.Since(start)
		for i := 0; i < j.n; i++ {
			seq := j.seq + uint64(i)
			var at time.Duration
			switch {
			case j.direct:
				at = dispatch
			case i == j.n-1:
				at = j.due
			default:
				at, _ = IntendedTime(g.cfg.Model, float64(seq), prev)
			}
			prev = at
			tx := txs[i]
			h := Hash(sha256.Sum256(tx))
			hashes, intended = append(hashes, h), append(intended, at)
			g.ledger.Begin(h, at)
			if i > 0 {
				body = append(body, ',')
			}
			body = AppendRequest(body, g.method, seq, tx)
		}
		if j.n > 1 {
			body = append(body, ']')
		}
		pick := j.seq / uint64(g.cfg.Batch)
		if r, ok := g.cfg.Workload.(Router); ok {
			pick = uint64(r.Route(j.seq))
		}
		target := g.cfg.Targets[pick%uint64(len(g.cfg.Targets))]
		req.SetRequestURI(target)
		req.SetBodyRaw(body)
		started := time.Now()
		err = client.DoTimeout(req, resp, g.cfg.Timeout)
		var errMsg string
		switch {
		case err != nil:
			errMsg = err.Error()
		case resp.StatusCode() != 200:
			errMsg = fmt.Sprintf("HTTP %d", resp.StatusCode())
		default:
			if replies, err = parseReplies(resp.Body(), replies); err != nil {
				errMsg = "unreadable answer: " + err.Error()
			}
		}
		observer, _ := g.cfg.Workload.(Observer)
		for i, h := range hashes {
			if errMsg != "" {
				g.ledger.Sent(h, intended[i], started, SendError, errMsg)
				if observer != nil {
					observer.Sent(j.seq+uint64(i), SendError, errMsg)
				}
				continue
			}
			o, why := SendError, "no answer for this tx in the batch"
			seq := j.seq + uint64(i)
			for k := range replies {
				if replies[k].ID == seq {
					o, why = replies[k].outcome()
					break
				}
			}
			g.ledger.Sent(h, intended[i], started, o, why)
			if observer != nil {
				observer.Sent(seq, o, why)
			}
		}
		if j.done != nil {
			j.done <- struct{}{}
		}
	}
}

// Report is how well the generator kept to the schedule.
type Report struct {
	Model       string  `json:"model"`
	Due         float64 `json:"due"`          // txs the schedule asked for (0 for closed loop)
	Dispatched  int64   `json:"dispatched"`   // txs handed to senders
	BlockedJobs int64   `json:"blocked_jobs"` // requests that waited for a free sender
	Bound       bool    `json:"generator_bound"`
	Why         string  `json:"why,omitempty"`
}

// Report says whether the run was generator-bound, given the ledger's lag.
func (g *Generator) Report(s Summary) Report {
	r := Report{Model: g.cfg.Model.String(), Due: g.due, Dispatched: g.dispatched.Load(), BlockedJobs: g.blocked.Load()}
	var why []string
	if lag := time.Duration(s.Lag.P99 * float64(time.Millisecond)); lag > BoundLagP99 {
		why = append(why, fmt.Sprintf("p99 schedule lag %s > %s", lag.Round(time.Microsecond), BoundLagP99))
	}
	if r.Due > 0 && float64(s.Sent) < r.Due*(1-BoundRateLoss) {
		why = append(why, fmt.Sprintf("sent %d of %.0f due txs", s.Sent, r.Due))
	}
	if _, closed := g.cfg.Model.(Users); closed {
		why = why[:0] // a closed loop has no schedule to fall behind
	}
	if len(why) > 0 && r.BlockedJobs > 0 {
		why = append(why, fmt.Sprintf("all %d senders were busy %d times (raise load.max_in_flight, or the node answers slowly)", g.cfg.MaxInFlight, r.BlockedJobs))
	}
	r.Bound, r.Why = len(why) > 0, strings.Join(why, "; ")
	return r
}
