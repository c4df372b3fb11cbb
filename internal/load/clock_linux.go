package load

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// A clock sleeps the pacer to a tx's intended time. Go's timers wake an
// idle process up to a millisecond late (runtime/netpoll_epoll.go waits
// in whole milliseconds, a wait under 1 ms rounded up to 1 ms), which
// alone puts p99 schedule lag near 1 ms at low rates; a timerfd read
// through the poller wakes within the kernel's timer slack (50 us) and,
// unlike a blocking sleep, leaves the CPU to the readers meanwhile.
type clock struct {
	t  *time.Timer
	fd int      // the timerfd (-1: none, Go's timers only)
	f  *os.File // fd, read through Go's poller
}

// preciseSpan: the end of a wait that is slept on the timerfd, where ctx
// is not seen; the rest is a Go timer.
const preciseSpan = 2 * time.Millisecond

func newClock() *clock {
	c := &clock{t: time.NewTimer(time.Hour), fd: -1}
	c.t.Stop()
	if fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC); err == nil {
		c.fd, c.f = fd, os.NewFile(uintptr(fd), "pacer-timerfd")
	}
	return c
}

// sleepUntil returns at t, or false as soon as it sees ctx ended.
func (c *clock) sleepUntil(ctx context.Context, t time.Time) bool {
	coarse := time.Until(t)
	if c.f != nil {
		coarse -= preciseSpan
	}
	if coarse > 0 && !waitTimer(ctx, c.t, coarse) {
		return false
	}
	if d := time.Until(t); c.f != nil && d > 0 {
		spec := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
		if unix.TimerfdSettime(c.fd, 0, &spec, nil) == nil {
			var n [8]byte
			_, _ = c.f.Read(n[:])
		} else {
			time.Sleep(d)
		}
	}
	return ctx.Err() == nil
}

func (c *clock) close() {
	c.t.Stop()
	if c.f != nil {
		c.f.Close()
	}
}
