package experiment

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/load"
)

// drainLedger is a ledger with n accepted txs waiting for a block, and a
// func that commits the next of them.
func drainLedger(n int) (*load.Ledger, func()) {
	l := load.NewLedger(time.Now(), true)
	var hs []load.Hash
	for i := range n {
		h := load.Hash(sha256.Sum256(fmt.Appendf(nil, "tx%d", i)))
		l.Begin(h, 0)
		l.Sent(h, 0, time.Now(), load.Accepted, "")
		hs = append(hs, h)
	}
	next := 0
	return l, func() {
		l.Committed(hs[next], int64(next+1), load.TxResult{}, time.Now())
		next++
	}
}

// The drain follows the chain: past its timeout it goes on while txs of
// the phase still land, and ends drainQuiet block intervals after the
// last one did; with none landing it ends at its timeout.
func TestDrainFollowsTheChain(t *testing.T) {
	const iv, d = 100 * time.Millisecond, 300 * time.Millisecond
	interval := func() time.Duration { return iv }
	ctx := context.Background()

	// One tx a block for 10 blocks: all land, though that takes 1 s > d.
	l, commit := drainLedger(10)
	go func() {
		for range 10 {
			time.Sleep(iv)
			commit()
		}
	}()
	if took := drain(ctx, l, d, 0, interval, func() {}); l.Unresolved() != 0 || took < 900*time.Millisecond {
		t.Errorf("a chain still committing: drain ended after %s with %d waiting; want all landed (about 1 s)", took, l.Unresolved())
	}

	// Nothing lands: the timeout.
	l, _ = drainLedger(3)
	if took := drain(ctx, l, d, 0, interval, func() {}); took < d || took > d+250*time.Millisecond || l.Unresolved() != 3 {
		t.Errorf("nothing landing: drain ended after %s with %d waiting; want %s, 3 waiting", took, l.Unresolved(), d)
	}

	// 4 land, then none: it ends 3 intervals after the last (seen within
	// the drain's 100 ms look, ended within the next).
	l, commit = drainLedger(8)
	go func() {
		for range 4 {
			time.Sleep(iv)
			commit()
		}
	}()
	took := drain(ctx, l, d, 0, interval, func() {})
	if want := 4*iv + drainQuiet*iv; took < want || took > want+400*time.Millisecond || l.Unresolved() != 4 {
		t.Errorf("landing stopped: drain ended after %s with %d waiting; want about %s, 4 waiting", took, l.Unresolved(), want)
	}
}
