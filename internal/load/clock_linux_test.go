package load

import (
	"context"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The pacer sleeps on a thread of its own: GOMAXPROCS is one more while
// it paces and as before after, two generators at once count twice (not
// one restoring the other's), the report says how it slept (at nice -10
// as root), and the thread's nice and slack are given back.
func TestPacerThread(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	url := slowSink(t, 0)
	var during [2]int
	var wg sync.WaitGroup
	var reports [2]Report
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			go func() {
				time.Sleep(300 * time.Millisecond)
				during[i] = runtime.GOMAXPROCS(0)
			}()
			reports[i], _ = runGen(t, Config{Model: Constant{R: 1000, D: time.Second}, Workload: KVStore{RunID: "t", Size: 64},
				Targets: []string{url}, Method: "sync", MaxInFlight: 64}, false)
		}()
	}
	wg.Wait()
	if during[0] != before+2 || during[1] != before+2 {
		t.Errorf("GOMAXPROCS %v while two pacers ran; want %d", during, before+2)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS %d after; want %d as before", after, before)
	}
	want := "its own thread at the harness's priority (raising it needs root or CAP_SYS_NICE)"
	if os.Geteuid() == 0 {
		want = "its own thread at nice -10"
	}
	for _, r := range reports {
		if r.Pacer != want {
			t.Errorf("pacer %q; want %q", r.Pacer, want)
		}
	}
	// A clock on this goroutine's thread gives back what it changed.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	p0, _ := unix.Getpriority(unix.PRIO_PROCESS, tid)
	slack0, _ := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	c := newClock(context.Background())
	if os.Geteuid() == 0 {
		if p, _ := unix.Getpriority(unix.PRIO_PROCESS, tid); 20-p != pacerNice {
			t.Errorf("nice %d while the clock holds the thread; want %d", 20-p, pacerNice)
		}
	}
	c.close()
	p1, _ := unix.Getpriority(unix.PRIO_PROCESS, tid)
	slack1, _ := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if p1 != p0 || slack1 != slack0 {
		t.Errorf("after the clock: priority %d slack %d ns; want %d and %d as before", p1, slack1, p0, slack0)
	}
}
