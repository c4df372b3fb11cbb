package load

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"
)

func TestPIDFollowsBlockInterval(t *testing.T) {
	s := time.Second
	p := NewPID(PIDConfig{Target: 1500 * time.Millisecond, Window: 1, Kp: 0.5, Min: 10, Max: 1000, Stall: 5 * s, D: 60 * s}, 100)
	// Blocks faster than the target: the rate rises by Kp*e = 0.5*(1.5-1)/1.5.
	if got, want := p.Block(1*s, 1000*time.Millisecond, 0), 100*(1+0.5/3); math.Abs(got-want) > 1e-9 {
		t.Errorf("after a 1s block: rate %g; want %g", got, want)
	}
	// Blocks slower than the target: it falls.
	before := p.Rate(2 * s)
	if got := p.Block(3*s, 3*s, 0); got >= before {
		t.Errorf("after a 3s block: rate %g; want below %g", got, before)
	}
	// Never past the bounds.
	for i := 0; i < 50; i++ {
		p.Block(time.Duration(4+i)*s, 100*time.Millisecond, 0)
	}
	if got := p.Rate(55 * s); got != 1000 {
		t.Errorf("after many fast blocks: rate %g; want the max 1000", got)
	}
	// No block for longer than Stall: down to the minimum.
	p.CheckStall(60*s - time.Millisecond)
	if got := p.Rate(60*s - time.Millisecond); got != 10 {
		t.Errorf("after a stall: rate %g; want the min 10", got)
	}
}

func TestPIDDueIntegratesHistory(t *testing.T) {
	s := time.Second
	p := NewPID(PIDConfig{Target: s, Window: 1, Kp: 1, Min: 1, Max: 1e6, D: 100 * s}, 100)
	p.Block(10*s, 500*time.Millisecond, 0) // e = 0.5: rate 150 from 10 s on
	if got := p.Due(10 * s); got != 1000 {
		t.Errorf("Due(10s) = %g; want 1000 (100 tx/s for 10 s)", got)
	}
	if got := p.Due(20 * s); got != 1000+1500 {
		t.Errorf("Due(20s) = %g; want 2500", got)
	}
	// The pacer's inverse works on the history too.
	at, ok := IntendedTime(p, 1750, 0)
	if !ok || at < 15*s-time.Millisecond || at > 15*s+time.Millisecond {
		t.Errorf("IntendedTime(1750) = %s, %v; want 15s", at, ok)
	}
}

// TestUsersClosedLoop: N users with think time T send about N*D/T txs,
// each waiting for its answer.
func TestUsersClosedLoop(t *testing.T) {
	sink, url := startSink(t)
	l := NewLedger(time.Now().Add(10*time.Millisecond), false)
	g, err := NewGenerator(Config{
		Model: Users{N: 20, Think: 100 * time.Millisecond, D: time.Second}, Workload: KVStore{RunID: "u", Size: 100},
		Targets: []string{url}, Method: "sync", MaxInFlight: 64,
	}, l)
	if err != nil {
		t.Fatal(err)
	}
	n, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 20 users x 10 sends each at most; answers take a little time.
	if n < 150 || n > 200 || sink.Txs.Load() != n {
		t.Errorf("users sent %d (sink got %d); want 150..200", n, sink.Txs.Load())
	}
	if r := g.Report(l.Summary()); r.Bound {
		t.Errorf("a closed loop was called generator-bound: %s", r.Why)
	}
}

// TestPIDBacksOffOnRefusals: a latency under the target would raise the
// rate, but refused sends (mempool full) lower it by at least Kp*share.
func TestPIDBacksOffOnRefusals(t *testing.T) {
	s := time.Second
	p := NewPID(PIDConfig{Hold: "latency", Target: 3 * s, Window: 1, Kp: 0.5, Min: 1, Max: 1e6, D: 100 * s}, 1000)
	if got, want := p.Block(1*s, 1500*time.Millisecond, 0.2), 1000*(1-0.5*0.2); math.Abs(got-want) > 1e-9 {
		t.Errorf("latency 1.5s of 3s with 20%% refused: rate %g; want %g", got, want)
	}
	// A block with none of the run's txs: the rate holds unless sends were refused.
	p.Seen(2*s, 0)
	if got := p.Rate(2 * s); math.Abs(got-900) > 1e-9 {
		t.Errorf("after an empty block: rate %g; want 900", got)
	}
	p.Seen(3*s, 0.5)
	if got := p.Rate(3 * s); math.Abs(got-900*0.75) > 1e-9 {
		t.Errorf("after an empty block with half refused: rate %g; want %g", got, 900*0.75)
	}
}

// TestOfferedPerSecond: a constant rate offers it every second, the last
// partial second over its part; a controller offers what it set, second
// by second (100 tx/s, then 50 from 2.5 s on).
func TestOfferedPerSecond(t *testing.T) {
	s := time.Second
	if got := OfferedPerSecond(Constant{R: 100, D: 2500 * time.Millisecond}); fmt.Sprint(got) != "[100 100 100]" {
		t.Errorf("constant: %v; want [100 100 100]", got)
	}
	p := NewPID(PIDConfig{Target: s, Window: 1, Kp: 1, Min: 1, Max: 1e6, D: 4 * s}, 100)
	p.set(2500*time.Millisecond, 50)
	if got := OfferedPerSecond(p); fmt.Sprint(got) != "[100 100 75 50]" {
		t.Errorf("controller: %v; want [100 100 75 50]", got)
	}
}
