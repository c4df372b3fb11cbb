package load

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chainperf/chainperf/internal/selfcost"
)

// The pipelined path: one request a tx at 150,000 tx/s on one core leaves
// no room for a goroutine handoff, a write and a read for every request.
// Here the pacer makes every request that is due itself and writes each
// connection's share with one write, and reads the answers itself when it
// wakes (piperead.go): in order (HTTP/1.1 answers pipelined requests in
// the order they came), recording every tx's outcome. It serves schedules of plain txs
// (kvstore, loadtime, replay) over http:// (feedback schedules above
// pipelineAbove tx/s only); workloads that hear or route their sends, carry their
// own requests or wait in Append, and closed loops go through senders
// (Generator.sender).

const (
	// pipeDepth: requests a connection holds unanswered at most.
	pipeDepth = 64
	// pipeStale: a connection whose unanswered requests would take longer
	// than this to answer, at the pace the node answers, is slow: HTTP/1.1
	// serves one request at a time on a connection, so the next request
	// goes to another one, a new one if needed. The pace is measured from
	// bursts of answers (what one read brings), so a pacer that reads
	// answers only when it wakes does not make a fast node look slow.
	pipeStale = 5 * time.Millisecond
	// pipeFlushAt: a connection's unwritten requests are written once they
	// reach this size, whether or not more are due.
	pipeFlushAt = 256 << 10
	// pipeIdle: a connection unused this long is closed rather than
	// reused (CometBFT closes idle ones after 10 s, possibly mid-write).
	pipeIdle = 5 * time.Second
	// dialTimeout: a connection not made by then fails its requests.
	dialTimeout = 3 * time.Second
)

// pipelineAbove: feedback schedules (find-max) take the pipelined path
// only when their rate may go above this many tx/s; below it they send
// one request a connection at a time, as a node's clients do. They drive
// nodes at their limit, and there (find-max on this project's machine)
// pipelined requests, served one at a time a connection, left the run
// node-bound more often (a request stuck behind another while the mempool
// is locked). Other schedules of plain txs take it at any rate: a wake-up
// of the pacer writes each connection's share at once instead of handing
// every tx to a goroutine of its own, 2.5-3 times less CPU at 5,000-20,000
// tx/s (docs/BENCHMARKS.md). A variable for the tests.
var pipelineAbove = 20000.0

// pipelined reports whether g's sends can take the pipelined path.
func (g *Generator) pipelined() bool {
	if !pipelineOS {
		return false
	}
	switch g.cfg.Model.(type) {
	case Max, Users:
		return false
	}
	if _, feedback := g.cfg.Model.(*PID); feedback && peakRate(g.cfg.Model) <= pipelineAbove {
		return false
	}
	w := g.cfg.Workload
	if _, ok := w.(Observer); ok {
		return false
	}
	if _, ok := w.(Queuer); ok {
		return false
	}
	if _, ok := w.(Router); ok {
		return false
	}
	if g.carrier != nil {
		return false
	}
	for _, t := range g.cfg.Targets {
		if u, err := url.Parse(t); err != nil || u.Scheme != "http" || u.Host == "" {
			return false
		}
	}
	return true
}

// peakRate is the highest rate m asks for: the pid model's cap, else
// the most of Rate sampled over its length (at most 100,000 samples).
func peakRate(m RateModel) float64 {
	if p, ok := m.(*PID); ok {
		return p.Max
	}
	step := max(10*time.Millisecond, m.Length()/100000)
	peak := 0.0
	for e := time.Duration(0); e < m.Length(); e += step {
		peak = max(peak, m.Rate(e))
	}
	return peak
}

// A pipeline sends jobs on pipelined keep-alive connections. Its pacer
// side (hand, conn, dial, flush) runs on the pacer's goroutine only.
type pipeline struct {
	ctx     context.Context // the generator's: its dials' labels
	g       *Generator
	set     *connSet
	targets []*pipeTarget
	buf     sendBuffers // the pacer's, kept from job to job
	poller  *poller
	// rbuf: what one read brings; scratch and replies: a chunked answer's
	// body and its replies, kept from answer to answer.
	rbuf    []byte
	scratch []byte
	replies []reply
	out     []*pipeConn // poll's, kept
	polled  time.Time   // when answers were last read
	checked time.Time   // when the requests' ages were last checked
	// dialed: connections dialled in the background: the pacer never waits
	// on a dial (a node cut off would hold it for the dial's timeout); a
	// connection takes requests while it is dialled, written once it is
	// up, failed with the dial's error if it is not. dials counts them.
	dialed chan dialResult
	dials  sync.WaitGroup

	inFlight  atomic.Int64 // requests written or queued, not yet answered
	peak      int64        // most requests in flight at once
	peakConns int          // most open at once
	// waitedBehind: how long the pacer waited for room since the last
	// job it handed on time.
	waitedBehind time.Duration
}

type pipeTarget struct {
	addr   string // host:port
	prefix []byte // the request up to its Content-Length value
	conns  []*pipeConn
	// each: how long the node takes to answer one request on a connection
	// (ns), a moving mean over bursts of answers (what one read brings):
	// the time since the burst's first request was sent or the answer
	// before it came, whichever was later, over the answers in the burst
	// (a server may write pipelined answers together). One for all
	// connections: a new one is no faster.
	each atomic.Int64
	// answers: txs answered on its connections; handed: txs the pacer
	// gave them.
	answers atomic.Int64
	handed  int64
	grow    growth // the pacer's
}

// A pipeConn is one connection and the requests it carries unanswered.
// Only the pacer uses it.
type pipeConn struct {
	fd int    // its socket (sock_linux.go); -1 while it is dialled
	id int32  // the poller's
	w  []byte // requests not written yet
	in []byte // part of an answer read, the rest not yet
	// last: when the pacer last gave it a request; lastAnswer: when it
	// last read an answer on it.
	last, lastAnswer time.Time

	n    atomic.Int32 // requests unanswered (growth reads it)
	t    *pipeTarget
	ring [pipeDepth]pipeReq
	head int
	dead error // why the connection ended
}

// pipeReq is one request written (or about to be) and not answered.
type pipeReq struct {
	seq      uint64
	started  time.Time
	hashes   []Hash
	intended []time.Duration
}

// dialResult is a background dial's end.
type dialResult struct {
	pc  *pipeConn
	fd  int
	err error
}

func newPipeline(ctx context.Context, g *Generator, set *connSet) (*pipeline, error) {
	q, err := newPoller()
	if err != nil {
		return nil, fmt.Errorf("watching connections: %w", err)
	}
	p := &pipeline{ctx: ctx, g: g, set: set, poller: q, rbuf: make([]byte, 64<<10), dialed: make(chan dialResult, 64)}
	for _, t := range g.cfg.Targets {
		u, _ := url.Parse(t) // checked by pipelined
		path := u.EscapedPath()
		if path == "" {
			path = "/"
		}
		host := u.Host
		if u.Port() == "" {
			host += ":80"
		}
		prefix := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: chainperf\r\nContent-Type: application/json\r\nContent-Length: ", path, u.Host)
		p.targets = append(p.targets, &pipeTarget{addr: host, prefix: []byte(prefix)})
	}
	return p, nil
}

// hand makes the job's requests and queues them on a connection; they are
// written at the next flush. It waits for a free connection while all
// are full, and reports false when ctx ended.
func (p *pipeline) hand(ctx context.Context, j job) bool {
	g := p.g
	start := g.ledger.Start()
	b := &p.buf
	if err := g.prepare(ctx, &j, b); err != nil {
		g.stop(err)
		return false
	}
	t := p.targets[(j.seq/uint64(g.cfg.Batch))%uint64(len(p.targets))]
	pc, err := p.conn(ctx, t, start.Add(j.due))
	if ctx.Err() != nil {
		return false
	}
	now := time.Now()
	// A late job is the node's when the pacer spent at least half its
	// lateness waiting for room on a connection since it was last on
	// time; else chainperf's (its own making, a pacer without the CPU).
	if late := now.Sub(start) - j.due; late <= OnTime {
		p.waitedBehind = 0
	} else {
		j.nodeWait = 2*p.waitedBehind >= late
	}
	g.onSchedule(j, b.intended, now.Sub(start))
	g.dispatched.Add(int64(j.n))
	if err != nil {
		p.fail(j.n, now, err) // no connection
		return true
	}
	// The body is made apart, then written behind its header once its
	// length is known.
	b.body = b.body[:0]
	if j.n > 1 {
		b.body = append(b.body, '[')
	}
	if dead := pc.dead; dead != nil {
		// It ended after conn chose it: the txs fail with it.
		p.fail(j.n, now, dead)
		return true
	}
	slot := &pc.ring[(pc.head+int(pc.n.Load()))%pipeDepth]
	slot.seq, slot.started = j.seq, now
	slot.hashes, slot.intended = slot.hashes[:0], append(slot.intended[:0], b.intended...)
	for i := 0; i < j.n; i++ {
		tx := b.txs[i]
		h := Hash(sha256.Sum256(tx))
		slot.hashes = append(slot.hashes, h)
		g.ledger.Begin(h, b.intended[i])
		if i > 0 {
			b.body = append(b.body, ',')
		}
		b.body = AppendRequest(b.body, g.method, j.seq+uint64(i), tx)
	}
	pc.n.Add(1)
	if j.n > 1 {
		b.body = append(b.body, ']')
	}
	pc.w = append(pc.w, t.prefix...)
	pc.w = strconv.AppendInt(pc.w, int64(len(b.body)), 10)
	pc.w = append(pc.w, "\r\n\r\n"...)
	pc.w = append(pc.w, b.body...)
	pc.last = now
	t.handed += int64(j.n)
	if in := p.inFlight.Add(1); in > p.peak {
		p.peak = in
	}
	if len(pc.w) >= pipeFlushAt {
		p.write(pc)
	}
	return true
}

// fail records the n txs in the pacer's buffers as sent at now and ended
// by a send error, why.
func (p *pipeline) fail(n int, now time.Time, why error) {
	b := &p.buf
	for i := 0; i < n; i++ {
		h := Hash(sha256.Sum256(b.txs[i]))
		p.g.ledger.Begin(h, b.intended[i])
		p.g.ledger.Sent(h, b.intended[i], now, SendError, why.Error())
	}
}

// conn picks the connection for t's next request: the first that is
// neither full (pipeDepth) nor slow (pipeStale), else a new one (dialled
// in the background) if t may grow, else the least loaded that is not
// full; while none has room (or max_in_flight requests are out) it writes
// what is queued and waits for an answer or a dial (counted in
// waitedBehind). due is when the request was due: a pacer past it is
// behind its schedule, which growth counts.
func (p *pipeline) conn(ctx context.Context, t *pipeTarget, due time.Time) (pc *pipeConn, err error) {
	g := p.g
	for {
		p.takeDialed()
		now := time.Now()
		if now.Sub(p.polled) >= pollGap {
			p.poll(now)
		}
		var least *pipeConn
		live := t.conns[:0]
		for _, c := range t.conns {
			n := c.n.Load()
			// Dead (what it held failed with it) or idle: dropped.
			if c.dead != nil || n == 0 && c.fd >= 0 && now.Sub(c.last) > pipeIdle {
				p.end(c, errors.New("idle"))
				continue
			}
			live = append(live, c)
			if pc != nil || n >= pipeDepth {
				continue
			}
			if n == 0 || time.Duration(int64(n)*t.each.Load()) < pipeStale {
				pc = c
			}
			if least == nil || n < least.n.Load() {
				least = c
			}
		}
		clear(t.conns[len(live):])
		t.conns = live
		full := p.inFlight.Load() >= int64(g.cfg.MaxInFlight)
		if pc != nil && !full {
			return pc, nil
		}
		if !full && len(t.conns) < min(g.cfg.MaxInFlight, MaxConnsPerNode) && t.mayGrow(now, len(t.conns), now.Sub(due) > OnTime) {
			return p.dial(t), nil
		}
		if least != nil && !full {
			return least, nil
		}
		// Every connection is full: the node's backpressure.
		g.blocked.Add(1)
		p.flush()
		waitStart := time.Now()
		p.await()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p.waitedBehind += time.Since(waitStart)
		pc = nil
	}
}

// dial starts a connection to t, dialled in the background: it takes
// requests at once; takeDialed brings it up or fails them.
func (p *pipeline) dial(t *pipeTarget) *pipeConn {
	pc := &pipeConn{t: t, fd: -1, last: time.Now()}
	t.conns = append(t.conns, pc)
	p.dials.Add(1)
	go func() {
		defer p.dials.Done()
		selfcost.Unowned(p.ctx) // started by the pacer, on a thread of its own
		fd, err := -1, error(errStopped)
		if !p.set.stopped() {
			fd, err = dialSock(t.addr, dialTimeout)
		}
		p.dialed <- dialResult{pc, fd, err}
	}()
	return pc
}

// takeDialed brings up the connections dialled since the last look.
func (p *pipeline) takeDialed() {
	for {
		select {
		case d := <-p.dialed:
			p.took(d)
		default:
			return
		}
	}
}

// took brings up a dialled connection: the poller watches it and what it
// was given meanwhile is written. A dial that failed fails what it was
// given.
func (p *pipeline) took(d dialResult) {
	pc := d.pc
	if d.err != nil {
		p.end(pc, d.err)
		return
	}
	if pc.dead != nil {
		sockClose(d.fd) // ended while it was dialled
		return
	}
	pc.fd = d.fd
	if err := p.poller.add(pc); err != nil {
		p.end(pc, fmt.Errorf("watching the connection: %w", err))
		return
	}
	open := 0
	for _, t := range p.targets {
		for _, c := range t.conns {
			if c.fd >= 0 && c.dead == nil {
				open++
			}
		}
	}
	p.peakConns = max(p.peakConns, open)
	if len(pc.w) > 0 {
		p.write(pc)
	}
}

// flush writes every connection's queued requests, before the pacer
// sleeps, and reads the answers that came if it has not for pollGap (the
// pacer woke early, at pollWake). While requests are in flight the pacer
// sleeps pollWake at most.
func (p *pipeline) flush() time.Duration {
	for _, t := range p.targets {
		for _, pc := range t.conns {
			if len(pc.w) > 0 {
				p.write(pc)
			}
		}
	}
	if now := time.Now(); now.Sub(p.polled) >= pollGap {
		p.poll(now)
	}
	if p.inFlight.Load() > 0 {
		return pollWake
	}
	return 0
}

// write writes pc's queued requests. While the socket's buffer is full
// it waits for room, reading pc's answers meanwhile (a node that cannot
// write its answers stops reading requests), up to the run's timeout.
func (p *pipeline) write(pc *pipeConn) {
	if pc.fd < 0 || pc.dead != nil {
		return // written once it is up (took), or failed with it
	}
	w, deadline := pc.w, time.Time{}
	var err error
	for len(w) > 0 && err == nil {
		n, again, werr := sockWrite(pc.fd, w)
		w, err = w[n:], werr
		if !again || err != nil {
			continue
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(p.g.cfg.Timeout)
		}
		switch ready, werr := waitSock(pc.fd, sockIn|sockOut, min(20*time.Millisecond, time.Until(deadline))); {
		case werr != nil:
			err = werr
		case p.set.stopped():
			err = errStopped
		case time.Now().After(deadline):
			err = errTookNone{p.g.cfg.Timeout}
		case ready&sockIn != 0:
			p.readNow(pc)
			if pc.dead != nil {
				return
			}
		}
	}
	pc.w = pc.w[:0]
	if err != nil {
		// A broken pipe or a reset is the node having closed the
		// connection (after its last answer, as Connection: close says)
		// before the pacer read it.
		// The pacer's own reasons (no room for the timeout, a stop) are
		// said as they are.
		var none errTookNone
		switch {
		case errors.As(err, &none) || errors.Is(err, errStopped):
		case errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET):
			err = fmt.Errorf("the node closed the connection (writing the request: %w)", err)
		default:
			err = fmt.Errorf("writing the request: %w", err)
		}
		p.end(pc, err)
	}
}

// errTookNone: the node read none of a connection's requests for the
// run's timeout (the socket's buffer stayed full).
type errTookNone struct{ after time.Duration }

func (e errTookNone) Error() string { return fmt.Sprintf("the node took no request for %s", e.after) }

// end marks pc dead for why (unless it was already), closes it and fails
// its unanswered requests' txs (and those not written yet) as send
// errors.
func (p *pipeline) end(pc *pipeConn, why error) {
	if pc.dead != nil {
		return
	}
	if p.set.stopped() {
		why = errStopped
	}
	pc.dead = why
	if pc.fd >= 0 {
		p.poller.remove(pc)
		sockClose(pc.fd)
	}
	pc.w, pc.in = nil, nil
	msg := why.Error()
	for n := pc.n.Load(); n > 0; n = pc.n.Add(-1) {
		r := &pc.ring[pc.head]
		for i, h := range r.hashes {
			p.g.ledger.Sent(h, r.intended[i], r.started, SendError, msg)
		}
		pc.head = (pc.head + 1) % pipeDepth
		p.inFlight.Add(-1)
	}
}

// drain writes what is queued and waits until every request is answered
// (or has failed at its timeout), then closes the connections.
func (p *pipeline) drain() {
	p.flush()
	for p.inFlight.Load() > 0 {
		p.takeDialed()
		p.flush()
		p.await()
	}
	// Dials still under way end (at their timeout at most); what they
	// made is closed unused.
	go func() { p.dials.Wait(); close(p.dialed) }()
	for d := range p.dialed {
		if d.err == nil {
			sockClose(d.fd)
		}
	}
	for _, t := range p.targets {
		for _, pc := range t.conns {
			if pc.dead == nil && pc.fd >= 0 {
				p.poller.remove(pc)
				sockClose(pc.fd)
			}
		}
	}
	p.poller.close()
}
