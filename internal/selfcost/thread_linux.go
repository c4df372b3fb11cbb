package selfcost

import "golang.org/x/sys/unix"

// threadCPU reads a thread's CPU-seconds (user + system, to the
// nanosecond) from its CPU clock: Linux's MAKE_THREAD_CPUCLOCK(tid,
// CPUCLOCK_SCHED).
func threadCPU(tid int) (float64, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(int32(^uint32(tid)<<3|6), &ts) != nil {
		return 0, false
	}
	return float64(ts.Nano()) / 1e9, true
}

// thisThread is the calling thread's ID and CPU-seconds.
func thisThread() (int, float64, bool) {
	tid := unix.Gettid()
	cpu, ok := threadCPU(tid)
	return tid, cpu, ok
}
