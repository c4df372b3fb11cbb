package observe

import (
	"context"
	"fmt"
	"time"

	"github.com/chainperf/chainperf/internal/nodehttp"
)

// What the follower says of the nodes it reads: heights that make no
// sense, a stall, the reads its end cut short.

// heights decides, from a node's latest height, the height it said
// before, the next height to read and the highest height believed (0:
// none yet), the next height and the tip, and what to say (kind "" for
// nothing). Heights come checked (ReadStatus refuses any above 2^53),
// but nothing here wraps whatever they are: FuzzHeights.
func heights(latest, before, next, tip int64) (int64, int64, string, string) {
	latest, next = max(latest, 0), max(next, 1)
	switch {
	case latest < before:
		// Below what this node said before: a node restarted empty, or
		// one that is wrong. Read only what it has; the tip stays.
		return next, tip, "height_backwards", fmt.Sprintf("latest height %d is below the %d it said before: a node's height does not go backwards unless it restarted empty", latest, before)
	case tip == 0 && latest > next && latest-next > MaxBehind:
		return max(latest, 1), latest, "height_far_ahead", fmt.Sprintf("latest height %d is %d above the first height to read (%d): the start height is not believed; reading from %d",
			latest, latest-next, next, max(latest, 1))
	case tip == 0 && next-latest > MaxBehind:
		// The other way: a start height (from one bad answer) far past
		// the chain would wait for blocks that never come.
		return latest + 1, latest, "height_far_behind", fmt.Sprintf("latest height %d is %d below the first height to read (%d): the start height is not believed; reading from %d",
			latest, next-latest, next, latest+1)
	}
	return next, max(tip, latest), "", ""
}

// checkStall says when no block was read for StallAfter while a node had
// said there were more (a chain that makes no block is not a stall).
func (f *Follower) checkStall() {
	after := f.StallAfter
	if after <= 0 {
		after = 10 * time.Second
	}
	if f.stalled || f.tip < f.next.Load() || time.Since(f.lastRead) < after {
		return
	}
	f.stalled = true
	why := f.lastErr
	if why == "" {
		why = "no error: the node did not give the block"
	}
	f.say("follower_stalled", fmt.Sprintf("no block read for %s while the chain is at height %d and the follower at %d (last: %s)",
		after, f.tip, f.next.Load(), why))
}

// problem says something about a node once per kind and node.
func (f *Follower) problem(kind, rpc, detail string) {
	key := kind + " " + rpc
	f.mu.Lock()
	if f.told == nil {
		f.told = map[string]bool{}
	}
	said := f.told[key]
	f.told[key] = true
	f.mu.Unlock()
	if said {
		return
	}
	f.say(kind, fmt.Sprintf("%s: %s", nodehttp.RedactString(rpc), detail))
}

func (f *Follower) say(kind, detail string) {
	f.log.Warn("follower: "+kind, "detail", detail)
	if f.OnProblem != nil {
		f.OnProblem(kind, detail)
	}
}

// Unread is the first height not read and the highest a node said it
// had (after Run returned): from > to when every height was read.
func (f *Follower) Unread() (from, to int64) { return f.next.Load(), f.tip }

// A pendingRead is a read of a node under way; one the follower's end cut
// short keeps when that was (until), to be named (Cut).
type pendingRead struct {
	what, rpc    string
	since, until time.Time
}

// track records a read of rpc (key "block" or "results") as under way
// until done is called: a read that ends before ctx is forgotten, one that
// ctx's end cut short is kept.
func (f *Follower) track(ctx context.Context, key, what, rpc string) (done func()) {
	p := &pendingRead{what: what, rpc: rpc, since: time.Now()}
	f.mu.Lock()
	if f.reads == nil {
		f.reads = map[string]*pendingRead{}
	}
	f.reads[key] = p
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if ctx.Err() != nil {
			p.until = time.Now()
		} else if f.reads[key] == p {
			delete(f.reads, key)
		}
	}
}

// Cut names the reads the follower's end cut short after they had waited
// a second or more (after Run returned): a node that held a block or its
// results back for longer than the run had left. A read cut sooner is
// the newest block's, as the run ended.
func (f *Follower) Cut() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, key := range []string{"block", "results"} {
		p := f.reads[key]
		if p == nil || p.until.IsZero() || p.until.Sub(p.since) < time.Second {
			continue
		}
		out = append(out, fmt.Sprintf("%s from %s was still unanswered after %.1f s", p.what, nodehttp.RedactString(p.rpc), p.until.Sub(p.since).Seconds()))
	}
	return out
}

// LastError is the last error of a node the follower moved on from ("" if
// none), after Run returned.
func (f *Follower) LastError() string { return f.lastErr }
