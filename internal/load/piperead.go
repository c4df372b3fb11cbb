package load

import (
	"errors"
	"fmt"
	"time"
)

// The pipelined path reads its answers on the pacer's own thread: when it
// wakes to send, before it picks a connection, it reads what the
// connections with requests out have (a read each, or one epoll_wait
// first when there are more than readDirect), without waiting. A reader
// goroutine a connection, woken by every answer, cost a wake-up and a
// thread switch an answer: at 5,000 tx/s against the sink the generator
// spent 0.0128 CPU-s per 1,000 txs with them and 0.0088 without them and
// outside Go's poller (sock_linux.go), medians of five runs of
// bench/generator-repeat.py with both builds in each (docs/BENCHMARKS.md). The pacer waits on the poller
// only when every connection is full, and at the drain.

const (
	// pollGap: the pacer reads answers at most this often when it hands
	// jobs without sleeping between them (it reads at every wake-up).
	pollGap = 250 * time.Microsecond
	// pollWake: the longest the pacer sleeps while requests are in flight,
	// so that at low rates an answer is read this long after it comes at
	// most (a wake-up more a tx below 1/pollWake tx/s).
	pollWake = 5 * time.Millisecond
	// pollWait: how long the pacer waits for an answer at once when no
	// connection has room (then it looks at dials and ctx again).
	pollWait = time.Millisecond
	// readDirect: the most live connections poll reads without asking
	// the poller.
	readDirect = 2
	// timeoutsEvery: how often the unanswered requests' ages are checked.
	timeoutsEvery = 10 * time.Millisecond
)

// poll reads every answer that has come, without waiting. With
// readDirect live connections or fewer, each is read (a read that finds
// nothing costs what asking the poller costs); with more, the poller
// says which to read. Idle ones are read too: a node that closed one is
// seen before a request is given to it.
func (p *pipeline) poll(now time.Time) {
	p.polled = now
	p.out = p.out[:0]
	for _, t := range p.targets {
		for _, pc := range t.conns {
			if pc.fd >= 0 && pc.dead == nil {
				if p.out = append(p.out, pc); len(p.out) > readDirect {
					break
				}
			}
		}
	}
	if len(p.out) <= readDirect {
		for _, pc := range p.out {
			p.readNow(pc)
		}
	} else {
		p.poller.ready(0, p.readNow)
	}
	clear(p.out)
	p.timeouts(now)
}

// await waits up to pollWait for an answer and reads what has come.
func (p *pipeline) await() {
	p.poller.ready(pollWait, p.readNow)
	now := time.Now()
	p.polled = now
	p.timeouts(now)
}

// timeouts ends the connections whose oldest unanswered request is older
// than the run's timeout, and every connection once the run stopped
// (set.closeAll marks it; the pacer's sockets are its own, not the set's).
func (p *pipeline) timeouts(now time.Time) {
	if now.Sub(p.checked) < timeoutsEvery {
		return
	}
	p.checked = now
	stopped := p.set.stopped()
	for _, t := range p.targets {
		for _, pc := range t.conns {
			if pc.fd < 0 || pc.dead != nil || pc.n.Load() == 0 {
				continue
			}
			if stopped {
				p.end(pc, errStopped)
			} else if now.Sub(pc.ring[pc.head].started) > p.g.cfg.Timeout {
				p.end(pc, fmt.Errorf("no answer within %s", p.g.cfg.Timeout))
			}
		}
	}
}

// readNow reads what pc holds without waiting and takes every whole
// answer in it; a part of an answer is kept for the next read.
func (p *pipeline) readNow(pc *pipeConn) {
	if pc.dead != nil || pc.fd < 0 {
		return
	}
	now := time.Now()
	for {
		n, again, err := sockRead(pc.fd, p.rbuf)
		switch {
		case again:
			return
		case err != nil:
			p.end(pc, fmt.Errorf("reading the answer: %w", err))
			return
		case n == 0:
			p.end(pc, errors.New("the node closed the connection before answering"))
			return
		}
		got := p.rbuf[:n]
		if len(pc.in) > 0 {
			pc.in = append(pc.in, got...)
			got = pc.in
		}
		used, err := p.takeAll(pc, got, now)
		if err != nil {
			p.end(pc, err)
			return
		}
		// What is left is part of an answer: kept (copied out of rbuf).
		pc.in = append(pc.in[:0], got[used:]...)
		if pc.dead != nil || n < len(p.rbuf) {
			return
		}
	}
}

// takeAll takes the whole answers at the front of b and says how many
// bytes they were. The node's pace (t.each) is measured over them.
func (p *pipeline) takeAll(pc *pipeConn, b []byte, now time.Time) (int, error) {
	used, burst := 0, 0
	var from time.Time
	for used < len(b) {
		n, a, scratch, err := parseAnswer(b[used:], p.scratch)
		p.scratch = scratch
		if err != nil {
			return used, fmt.Errorf("unreadable answer: %w", err)
		}
		if n == 0 {
			break
		}
		used += n
		if pc.n.Load() == 0 {
			return used, errors.New("the node answered a request that was not sent")
		}
		if burst == 0 {
			from = pc.ring[pc.head].started
			if pc.lastAnswer.After(from) {
				from = pc.lastAnswer
			}
		}
		burst++
		p.take(pc, a)
		if a.close {
			return used, errors.New("the node closed the connection before answering")
		}
	}
	if burst > 0 {
		pc.lastAnswer = now
		each := int64(now.Sub(from)) / int64(burst)
		pc.t.each.Store((7*pc.t.each.Load() + each) / 8)
	}
	return used, nil
}

// take records the outcome of every tx of pc's oldest request from its
// answer a.
func (p *pipeline) take(pc *pipeConn, a answer) {
	g := p.g
	r := &pc.ring[pc.head]
	var errMsg string
	if a.status != 200 {
		errMsg = fmt.Sprintf("HTTP %d", a.status)
	} else {
		var err error
		if p.replies, err = parseReplies(a.body, p.replies); err != nil {
			errMsg = "unreadable answer: " + err.Error()
		}
	}
	for i, h := range r.hashes {
		if errMsg != "" {
			g.ledger.Sent(h, r.intended[i], r.started, SendError, errMsg)
			continue
		}
		o, why := outcomeOf(p.replies, r.seq+uint64(i))
		g.ledger.Sent(h, r.intended[i], r.started, o, why)
	}
	pc.t.answers.Add(int64(len(r.hashes)))
	pc.head = (pc.head + 1) % pipeDepth
	pc.n.Add(-1)
	p.inFlight.Add(-1)
}
