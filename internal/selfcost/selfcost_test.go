package selfcost

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// burn spends CPU on n hashes (work, not time: on a busy machine a span
// of time may hold little CPU).
func burn(n int) {
	var h [32]byte
	for range n {
		h = sha256.Sum256(h[:])
	}
}

// A component that burns three times the CPU of another is measured so,
// a goroutine started inside Do counts as its component's, and the parts
// add up to the process's CPU.
func TestComponents(t *testing.T) {
	m := Start()
	var wg sync.WaitGroup
	wg.Add(1)
	go Do(context.Background(), Generator, func(context.Context) {
		defer wg.Done()
		burn(2_000_000)
		wg.Add(1)
		go func() { defer wg.Done(); burn(6_000_000) }() // started inside: the generator's
	})
	Do(context.Background(), Follower, func(context.Context) { burn(2_666_667) })
	wg.Wait()
	c := m.Stop()
	if c.CPU < 0.2 || c.Seconds <= 0 {
		t.Fatalf("%+v; want the burn's CPU measured", c)
	}
	gen, fol := c.By[Generator], c.By[Follower]
	if ratio := gen / fol; ratio < 2 || ratio > 4.5 {
		t.Errorf("generator %.3f, follower %.3f CPU-s (ratio %.2f); want about 3", gen, fol, ratio)
	}
	var sum float64
	for _, v := range c.By {
		sum += v
	}
	if d := sum - c.CPU; d > 1e-9 || d < -1e-9 {
		t.Errorf("parts add to %.4f, the whole is %.4f", sum, c.CPU)
	}
	if s := c.String(); !strings.Contains(s, "cores over") || strings.Index(s, "generator") > strings.Index(s, "follower") {
		t.Errorf("String %q; want cores, the generator first", s)
	}
}

// With a profile already running, only the process's CPU is measured.
func TestProfileBusy(t *testing.T) {
	outer := Start()
	defer outer.Stop()
	m := Start()
	burn(200_000)
	c := m.Stop()
	if c.By != nil || c.CPU <= 0 {
		t.Errorf("%+v; want CPU, no components", c)
	}
}

// Goroutines kept waiting for a CPU show in WaitP99: with GOMAXPROCS 1,
// four goroutines that each burn while the others wait make the waits
// tens of ms; the percentile is read from what the span added.
func TestWaitsMeasured(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	m := Start()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); burn(2_000_000) }()
	}
	wg.Wait()
	c := m.Stop()
	if c.WaitP99 < 5 {
		t.Errorf("wait p99 %.3f ms with 4 goroutines burning on one P; want 5 ms or more", c.WaitP99)
	}
	if !strings.Contains(c.String(), "waited") {
		t.Errorf("String %q; want the waits said", c)
	}
}

// A thread a component owns (a pacer: short bursts of work between
// sleeps) counts as its component's to the nanosecond of its CPU clock,
// the rest of the process's CPU is split by the other samples, and the
// parts add up to the whole.
func TestOwnedThread(t *testing.T) {
	m := Start()
	used, child := make(chan float64), make(chan float64, 1)
	go Do(context.Background(), Generator, func(ctx context.Context) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		release := OwnThread(ctx, Generator)
		_, c0, ok := thisThread()
		// A goroutine it starts is the generator's by its samples.
		go func() {
			Unowned(ctx)
			runtime.LockOSThread()
			_, d0, _ := thisThread()
			burn(1_000_000)
			_, d1, _ := thisThread()
			child <- d1 - d0
		}()
		for range 300 {
			burn(300)
			time.Sleep(2 * time.Millisecond)
		}
		_, c1, _ := thisThread()
		release()
		if !ok {
			c0, c1 = 0, 0
		}
		used <- c1 - c0
	})
	Do(context.Background(), Follower, func(context.Context) { burn(2_000_000) })
	thread, started := <-used, <-child
	c := m.Stop()
	if thread <= 0 {
		t.Skip("no thread CPU clock here")
	}
	// The thread exactly, and the goroutine it started by its samples
	// (within what 100 Hz sampling misses).
	if d := c.By[Generator] - thread - started; d < -0.4*started || d > 0.4*started {
		t.Errorf("generator %.4f CPU-s; its thread used %.4f and the goroutine it started %.4f", c.By[Generator], thread, started)
	}
	if c.By[Follower] < 0.5*(c.CPU-thread) {
		t.Errorf("follower %.4f of the %.4f CPU-s not the owned thread's", c.By[Follower], c.CPU-thread)
	}
	var sum float64
	for _, v := range c.By {
		sum += v
	}
	if d := sum - c.CPU; d > 1e-9 || d < -1e-9 {
		t.Errorf("parts add to %.4f, the whole is %.4f", sum, c.CPU)
	}
	owned.Lock()
	n := len(owned.threads)
	owned.Unlock()
	if n != 0 {
		t.Errorf("%d owned threads kept after the span", n)
	}
}

// The thread CPU clock reads what the kernel's schedstat says of the
// thread, its own and another thread's.
func TestThreadCPU(t *testing.T) {
	tids, stop := make(chan int), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		burn(200_000)
		tid, _, _ := thisThread()
		tids <- tid
		<-stop
	}()
	other := <-tids
	defer close(stop)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	burn(200_000)
	self, _, ok := thisThread()
	if !ok {
		t.Skip("no thread CPU clock here")
	}
	for _, tid := range []int{self, other} {
		cpu, ok := threadCPU(tid)
		b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/schedstat", tid))
		if err != nil {
			t.Skip(err)
		}
		var ns float64
		fmt.Sscan(string(b), &ns)
		if d := ns/1e9 - cpu; !ok || cpu < 0.001 || d < 0 || d > 0.005 {
			t.Errorf("thread %d: clock %.6f s (%v), schedstat %.6f s", tid, cpu, ok, ns/1e9)
		}
	}
}
