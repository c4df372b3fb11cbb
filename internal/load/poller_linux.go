package load

import (
	"time"

	"golang.org/x/sys/unix"
)

// A poller tells the pacer which of its connections have answers to
// read, in one epoll_wait for all of them (level-triggered: a connection
// stays ready until what it holds is read).
type poller struct {
	ep    int
	evs   [128]unix.EpollEvent
	conns map[int32]*pipeConn
	next  int32
}

func newPoller() (*poller, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &poller{ep: ep, conns: map[int32]*pipeConn{}}, nil
}

// add watches pc's socket.
func (q *poller) add(pc *pipeConn) error {
	q.next++
	pc.id = q.next
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: pc.id}
	if err := unix.EpollCtl(q.ep, unix.EPOLL_CTL_ADD, pc.fd, &ev); err != nil {
		return err
	}
	q.conns[pc.id] = pc
	return nil
}

// remove stops watching pc, before its socket is closed.
func (q *poller) remove(pc *pipeConn) {
	if _, ok := q.conns[pc.id]; !ok {
		return
	}
	delete(q.conns, pc.id)
	_ = unix.EpollCtl(q.ep, unix.EPOLL_CTL_DEL, pc.fd, nil)
}

// ready calls f for each watched connection that has something to read,
// waiting up to wait (whole milliseconds; 0: not at all) for one.
func (q *poller) ready(wait time.Duration, f func(*pipeConn)) {
	n, err := unix.EpollWait(q.ep, q.evs[:], int(wait/time.Millisecond))
	if err != nil {
		return // EINTR: the caller looks again
	}
	for _, ev := range q.evs[:n] {
		if pc := q.conns[ev.Fd]; pc != nil {
			f(pc)
		}
	}
}

func (q *poller) close() { unix.Close(q.ep) }
