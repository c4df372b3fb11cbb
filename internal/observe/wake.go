package observe

import "time"

// While nodes' events wake the follower (Wake had news within
// wokenFor), it asks a node's /status only every wokenPoll besides:
// the poll every 50 ms was a third to three fifths of the follower's CPU
// at 600 tx/s (two CPU profiles), and a /status the node answers 20
// times a second. When the events stop (their streams failed), it polls
// every 50 ms again.
const (
	wokenPoll = 500 * time.Millisecond
	wokenFor  = 5 * time.Second
)

// Wake tells the follower that a node committed height h (its
// NewBlockHeader event): it reads at once if it has not read h. It does
// not block, and may be called before Run and from any goroutine.
func (f *Follower) Wake(h int64) {
	if h < f.next.Load() {
		return
	}
	f.woke.Store(time.Now().UnixNano())
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// woken says whether Wake had news within wokenFor.
func (f *Follower) woken() bool {
	at := f.woke.Load()
	return at != 0 && time.Since(time.Unix(0, at)) < wokenFor
}
