package selfcost

import (
	"context"
	"runtime/pprof"
	"slices"
	"sync"
	"time"
)

// The profile's per-thread timer samples a thread that runs in bursts of
// microseconds poorly: the pacer's thread, which wakes once a tx, ran
// 0.017-0.018 cores (its ticks in /proc over 20 s of the default job's
// steady phase) while the profile gave the generator 0.002-0.004. A thread a
// component owns is measured by its own CPU clock instead; its samples
// are left out of the profile's shares.

// ownedKey marks the profile samples of an owned thread's goroutine.
const ownedKey = "chainperf_thread"

// An owned thread: its component and its CPU-seconds when claimed and,
// once released, when released (to < 0 before).
type ownedThread struct {
	tid       int
	component string
	claimed   time.Time
	from, to  float64
}

var owned struct {
	sync.Mutex
	threads []*ownedThread
	meters  int // running: a released thread is kept while one is
}

// OwnThread counts the CPU of the calling goroutine's thread as
// component's, read from the thread's CPU clock, until release is called.
// The goroutine must be locked to its thread (runtime.LockOSThread) for
// that long, and run nothing of another component's; the goroutines it
// starts meanwhile call Unowned. ctx is the goroutine's context (its
// labels come back at release). Where a thread's CPU clock cannot be
// read, it does nothing.
func OwnThread(ctx context.Context, component string) (release func()) {
	tid, cpu, ok := thisThread()
	if !ok {
		return func() {}
	}
	t := &ownedThread{tid: tid, component: component, claimed: time.Now(), from: cpu, to: -1}
	owned.Lock()
	owned.threads = append(owned.threads, t)
	owned.Unlock()
	pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels(labelKey, component, ownedKey, "1")))
	return func() {
		_, cpu, _ := thisThread()
		owned.Lock()
		t.to = cpu
		if owned.meters == 0 { // no span wants it
			owned.threads = slices.DeleteFunc(owned.threads, func(o *ownedThread) bool { return o == t })
		}
		owned.Unlock()
		pprof.SetGoroutineLabels(ctx)
	}
}

// Unowned gives the calling goroutine ctx's labels. A goroutine that an
// owned thread's goroutine starts inherits the mark that leaves its
// samples out of the profile's shares, though its CPU is not the
// thread's: it calls Unowned first, with the owner's ctx.
func Unowned(ctx context.Context) { pprof.SetGoroutineLabels(ctx) }

// ownedAt is every owned thread's CPU-seconds now (those still claimed).
func ownedAt() map[*ownedThread]float64 {
	owned.Lock()
	defer owned.Unlock()
	out := map[*ownedThread]float64{}
	for _, t := range owned.threads {
		if t.to < 0 {
			if cpu, ok := threadCPU(t.tid); ok {
				out[t] = cpu
			}
		}
	}
	return out
}

// ownedSince is the CPU-seconds of the owned threads by component from
// the span that began at begin, with at0 their CPU then, to now.
func ownedSince(begin time.Time, at0 map[*ownedThread]float64) map[string]float64 {
	owned.Lock()
	defer owned.Unlock()
	out := map[string]float64{}
	for _, t := range owned.threads {
		from, ok := at0[t]
		if !ok {
			if t.claimed.Before(begin) {
				continue // released before the span began
			}
			from = t.from
		}
		to := t.to
		if to < 0 {
			if to, ok = threadCPU(t.tid); !ok {
				continue
			}
		}
		out[t.component] += max(0, to-from)
	}
	return out
}
