package load

import (
	"errors"
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// The pipelined path's connections are sockets of the pacer's own,
// outside Go's poller: Go watches its sockets edge-triggered for reading
// and writing, so every answer that came and every write the node
// acknowledged woke one of its threads (two wake-ups a pacer wake-up at
// 5,000 tx/s, counted with strace), though no goroutine waited on them.
// The pacer alone reads, writes and closes them (non-blocking).

const pipelineOS = true

// sockBuffers, when set, is new sockets' buffer size (for the tests: a
// full buffer within a few requests).
var sockBuffers = 0

// dialSock connects a TCP socket to addr (host:port) within timeout.
func dialSock(addr string, timeout time.Duration) (int, error) {
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return -1, err
	}
	var sa unix.Sockaddr
	family := unix.AF_INET
	if ip4 := ta.IP.To4(); ip4 != nil {
		sa = &unix.SockaddrInet4{Port: ta.Port, Addr: [4]byte(ip4)}
	} else {
		family = unix.AF_INET6
		sa = &unix.SockaddrInet6{Port: ta.Port, Addr: [16]byte(ta.IP.To16())}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("dial %s: %w", addr, err)
	}
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	if sockBuffers > 0 {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, sockBuffers)
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, sockBuffers)
	}
	err = unix.Connect(fd, sa)
	if errors.Is(err, unix.EINPROGRESS) {
		var ready int16
		if ready, err = waitSock(fd, unix.POLLOUT, timeout); err == nil && ready == 0 {
			err = fmt.Errorf("no connection within %s", timeout)
		}
		if err == nil {
			var soErr int
			if soErr, err = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR); err == nil && soErr != 0 {
				err = unix.Errno(soErr)
			}
		}
	}
	if err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("dial %s: %w", addr, err)
	}
	return fd, nil
}

// waitSock waits up to d for events on fd and says which came (0: none).
func waitSock(fd int, events int16, d time.Duration) (int16, error) {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: events}}
	ms := int(d / time.Millisecond)
	if d > 0 && ms == 0 {
		ms = 1
	}
	for {
		n, err := unix.Poll(pfd, ms)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return 0, err
		}
		return pfd[0].Revents, nil
	}
}

// sockWrite writes what it can of b without waiting: n written, or
// again when the socket's buffer is full.
func sockWrite(fd int, b []byte) (n int, again bool, err error) {
	return nonblocking(unix.Write, fd, b)
}

// sockRead reads what has come without waiting (again: nothing had).
func sockRead(fd int, b []byte) (n int, again bool, err error) { return nonblocking(unix.Read, fd, b) }

// nonblocking runs a read or write on a non-blocking fd, again when it
// would have had to wait.
func nonblocking(op func(int, []byte) (int, error), fd int, b []byte) (n int, again bool, err error) {
	for {
		n, err = op(fd, b)
		switch err {
		case nil:
			return n, false, nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, true, nil
		}
		return 0, false, err
	}
}

func sockClose(fd int) { unix.Close(fd) }

const (
	sockIn  = unix.POLLIN
	sockOut = unix.POLLOUT
)
