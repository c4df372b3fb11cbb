package load

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/chainperf/chainperf/internal/selfcost"
)

// A clock sleeps the pacer to a tx's intended time.
//
// The pacer sleeps in a raw nanosleep on a thread of its own, which keeps
// its P meanwhile. Why: a pacer that parks between txs (a Go timer, or a
// timerfd read through the poller) leaves every P idle between two sends;
// Go's sysmon thread then sleeps on a note until the next syscall wakes
// it, and each wake-up is a few context switches. Counted with perf at
// 1,000 tx/s against the sink on this project's machine: 6.6 context
// switches a tx, half of them sysmon's, most of the generator's CPU (the
// fifth generator run in docs/BENCHMARKS.md). A P held in a raw syscall is
// not idle, so sysmon keeps its short naps. GOMAXPROCS is one more while a
// clock holds a thread (holdThread), so the other goroutines keep every P
// they had. The thread's timer slack is 1 us instead of 50.
//
// The thread runs at nice pacerNice when the harness may raise it (root,
// or CAP_SYS_NICE), and the whole wait is slept there (no Go timer, whose
// wake-up would need a thread at the nodes' priority first): on a machine
// the nodes fill, the pacer still wakes on time. Nice is a thread's own on
// Linux; the rest of chainperf and the nodes keep theirs.
//
// The raw sleep sees no ctx and no GC: it lasts ctxEvery at most, and the
// runtime stops it for a GC, or sysmon's preemption, with a signal, which
// ends a nanosleep early (EINTR, never restarted).
type clock struct {
	t      *time.Timer
	locked bool // the goroutine holds a thread of its own
	// release ends the thread's CPU counting as the generator's (it runs
	// in bursts the harness's profile samples poorly: selfcost.OwnThread).
	release func()
	nice    int  // the thread's nice before, to give it back with
	raised  bool // the thread runs at pacerNice
}

// pacerNice: the pacer thread's nice when it may be raised.
const pacerNice = -10

// ctxEvery: the longest raw sleep, so that ctx is looked at this often.
const ctxEvery = 20 * time.Millisecond

func newClock(ctx context.Context) *clock {
	c := &clock{t: time.NewTimer(time.Hour), release: func() {}}
	c.t.Stop()
	runtime.LockOSThread()
	if unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) != nil {
		runtime.UnlockOSThread()
		return c
	}
	c.locked = true
	holdThread(1)
	// The CPU profile that measures the harness by component (selfcost)
	// arms a thread's profiling timer when the thread next schedules a
	// goroutine; the pacer's, locked and in raw syscalls, would never
	// again, and its CPU (the whole pipelined path's) would go unsampled.
	// Yielding once schedules it again on this thread.
	runtime.Gosched()
	c.release = selfcost.OwnThread(ctx, selfcost.Generator)
	tid := unix.Gettid()
	// The raw getpriority answers 20 - nice.
	if p, err := unix.Getpriority(unix.PRIO_PROCESS, tid); err == nil {
		c.nice = 20 - p
		c.raised = c.nice > pacerNice && unix.Setpriority(unix.PRIO_PROCESS, tid, pacerNice) == nil
	}
	return c
}

// String says how the pacer sleeps, for the run's report.
func (c *clock) String() string {
	switch {
	case c.raised:
		return fmt.Sprintf("its own thread at nice %d", pacerNice)
	case c.locked:
		return "its own thread at the harness's priority (raising it needs root or CAP_SYS_NICE)"
	}
	return "Go timers"
}

// sleepUntil returns at t, or false as soon as it sees ctx ended.
func (c *clock) sleepUntil(ctx context.Context, t time.Time) bool {
	if !c.locked {
		if d := time.Until(t); d > 0 && !waitTimer(ctx, c.t, d) {
			return false
		}
		return ctx.Err() == nil
	}
	for {
		d := time.Until(t)
		if d <= 0 || ctx.Err() != nil {
			break
		}
		ts := unix.NsecToTimespec(min(d, ctxEvery).Nanoseconds())
		if _, _, e := unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0); e == syscall.EINTR {
			// Most likely the runtime asking for this P (a GC, or sysmon
			// seeing a goroutine run 10 ms): give it.
			runtime.Gosched()
		}
	}
	return ctx.Err() == nil
}

func (c *clock) close() {
	c.t.Stop()
	if c.locked {
		if c.raised {
			_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), c.nice)
		}
		c.release()
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
