//go:build !linux

package load

import "time"

// A poller without epoll: every connection is looked at, after a wait.
type poller struct {
	conns map[int32]*pipeConn
	next  int32
}

func newPoller() (*poller, error) { return &poller{conns: map[int32]*pipeConn{}}, nil }

func (q *poller) add(pc *pipeConn) error {
	q.next++
	pc.id = q.next
	q.conns[pc.id] = pc
	return nil
}

func (q *poller) remove(pc *pipeConn) { delete(q.conns, pc.id) }

func (q *poller) ready(wait time.Duration, f func(*pipeConn)) {
	time.Sleep(wait)
	for _, pc := range q.conns {
		f(pc)
	}
}

func (q *poller) close() {}
