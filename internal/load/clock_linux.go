package load

import (
	"context"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A clock sleeps the pacer to a tx's intended time.
//
// The last preciseSpan of a wait is slept in a raw nanosleep on a thread
// of the pacer's own, which keeps its P meanwhile. Why: a pacer that parks
// between txs (a Go timer, or a timerfd read through the poller) leaves
// every P idle between two sends; Go's sysmon thread then sleeps on a note
// until the next syscall wakes it, and each wake-up is a few context
// switches. Counted with perf at 1,000 tx/s against the sink on this
// project's machine: 6.6 context switches a tx, half of them sysmon's, and
// most of the generator's CPU (bench/generator.py, "pacer thread" rows).
// A P held in a raw syscall is not idle, so sysmon keeps its short naps.
// GOMAXPROCS is one more while a clock holds a thread (holdThread), so the
// other goroutines keep every P they had. The thread's timer slack is 1 us
// (the default 50 us made p99 lag worse than the quantum allows).
//
// The raw sleep sees no ctx and no GC: the runtime stops it for a GC with
// a signal, which ends a nanosleep early (EINTR, never restarted), and the
// sleep is at most preciseSpan; the coarse part of a wait is a Go timer
// that watches ctx.
type clock struct {
	t      *time.Timer
	locked bool // the goroutine holds a thread of its own
}

// preciseSpan: the end of a wait that is slept holding the thread; the
// rest is a Go timer (a wait that long costs one wake-up in any case).
const preciseSpan = 2 * time.Millisecond

func newClock() *clock {
	c := &clock{t: time.NewTimer(time.Hour)}
	c.t.Stop()
	runtime.LockOSThread()
	if unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) == nil {
		c.locked = true
		holdThread(1)
	} else {
		runtime.UnlockOSThread()
	}
	return c
}

// sleepUntil returns at t, or false as soon as it sees ctx ended.
func (c *clock) sleepUntil(ctx context.Context, t time.Time) bool {
	if coarse := time.Until(t) - preciseSpan; coarse > 0 && !waitTimer(ctx, c.t, coarse) {
		return false
	}
	for {
		d := time.Until(t)
		if d <= 0 {
			break
		}
		if !c.locked {
			time.Sleep(d)
			break
		}
		ts := unix.NsecToTimespec(d.Nanoseconds())
		if _, _, e := unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0); e == syscall.EINTR {
			// Most likely the runtime asking for this P (a GC, or a
			// goroutine running long): give it.
			runtime.Gosched()
		}
	}
	return ctx.Err() == nil
}

func (c *clock) close() {
	c.t.Stop()
	if c.locked {
		holdThread(-1)
		// 0: the thread's default slack again, before it goes back to the
		// pool.
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 0, 0, 0, 0)
		runtime.UnlockOSThread()
		c.locked = false
	}
}

// held counts the clocks holding a thread; base is GOMAXPROCS before the
// first.
var held struct {
	sync.Mutex
	n, base int
}

// holdThread adds d to the clocks holding a thread and sets GOMAXPROCS to
// what it was before the first plus their number.
func holdThread(d int) {
	held.Lock()
	defer held.Unlock()
	if held.n == 0 {
		held.base = runtime.GOMAXPROCS(0)
	}
	held.n += d
	runtime.GOMAXPROCS(held.base + held.n)
}
