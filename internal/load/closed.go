package load

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// closedLoop keeps every sender busy until the model's length has passed.
func (g *Generator) closedLoop(ctx context.Context, jobs chan<- job) {
	end := g.ledger.Start().Add(g.cfg.Model.Length())
	batch := uint64(g.cfg.Batch)
	for seq := uint64(0); time.Now().Before(end); seq += batch {
		select {
		case jobs <- job{seq: seq, n: int(batch), direct: true, pickup: true}:
			g.dispatched.Add(int64(batch))
		case <-ctx.Done():
			return
		}
	}
}

// users runs N users, each sending one tx, waiting for its answer, then
// thinking; a tx's intended time is the end of its user's think time.
func (g *Generator) users(ctx context.Context, u Users, jobs chan<- job) {
	end := g.ledger.Start().Add(u.D)
	var seq atomic.Uint64
	var wg sync.WaitGroup
	for i := 0; i < u.N; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Users start spread over one think time, as locust's spawn does.
			first := time.Duration(i) * u.Think / time.Duration(u.N)
			t := time.NewTimer(time.Until(g.ledger.Start().Add(first)))
			defer t.Stop()
			done := make(chan struct{})
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				if time.Now().After(end) {
					return
				}
				// The tx's intended time is now, the end of the think
				// time: a wait for a free sender counts in its latency.
				at := time.Since(g.ledger.Start())
				if !g.hand(ctx, jobs, job{seq: seq.Add(1) - 1, n: 1, due: at, handed: at, direct: true, done: done}) {
					return
				}
				<-done
				t.Reset(u.Think)
			}
		}()
	}
	wg.Wait()
}
