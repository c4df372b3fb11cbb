package load

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Users is the closed-loop model of locust and the Cosmos Hub load tests:
// N users, each sending one tx, waiting for the answer, then thinking for
// Think before the next. The rate follows the chain's answers, so it is
// labelled closed loop; latency still counts from each send's intended
// time (the end of the think time).
type Users struct {
	N     int
	Think time.Duration
	D     time.Duration
}

// Rate is the rate the users would reach with instant answers: N/Think.
func (u Users) Rate(e time.Duration) float64 {
	if e < 0 || e >= u.D {
		return 0
	}
	return float64(u.N) / u.Think.Seconds()
}
func (u Users) Due(e time.Duration) float64 { return Max{D: u.D}.Due(e) }
func (u Users) Length() time.Duration       { return u.D }
func (u Users) String() string {
	return fmt.Sprintf("%d users, think time %s (closed loop) for %s", u.N, u.Think, u.D)
}

// PID adjusts the rate to hold a target: a block interval (NEAR's method
// for reproducible max-throughput runs) or a latency SLO (the slowest tx
// of each block under Target). Each block's value, averaged over the last
// Window blocks, is the measurement m; with the relative error
// e = (Target - m) / Target the rate becomes
//
//	rate *= 1 + Kp*e + Ki*sum(e) + Kd*(e - e_prev)
//
// clamped to [Min, Max]. Values above the target (a loaded chain) lower
// the rate. Refusals (mempool full) say the chain cannot take the rate at
// any latency, so while sends are refused e is at most minus the refused
// share. When no block arrives for Stall the rate drops to Min
// until blocks come again. The rate is piecewise constant between blocks,
// and Due integrates it exactly, so the pacer schedules PID like any model.
type PID struct {
	PIDConfig

	mu        sync.Mutex
	segs      []segment // rate from each start on, in time order
	values    []time.Duration
	lastBlock time.Duration
	integral  float64
	prevErr   float64
}

// PIDConfig holds the PID model's settings.
type PIDConfig struct {
	Hold       string // "latency" or "block_interval"
	Target     time.Duration
	Window     int
	Kp, Ki, Kd float64
	Min, Max   float64
	Stall      time.Duration
	D          time.Duration
}

type segment struct {
	start time.Duration
	rate  float64
	due   float64 // txs due at start
}

// NewPID returns a PID model starting at rate start.
func NewPID(c PIDConfig, start float64) *PID {
	return &PID{PIDConfig: c, segs: []segment{{rate: math.Max(c.Min, math.Min(c.Max, start))}}}
}

// HoldsLatency says whether the controller holds a latency SLO (else a
// block interval).
func (p *PID) HoldsLatency() bool { return p.Hold == "latency" }

// Block feeds the controller a block seen at elapsed with the value it
// holds (the interval since the previous block, header times, or the
// block's slowest tx latency) and the share of sends refused since the
// previous block. It returns the new rate.
func (p *PID) Block(elapsed, value time.Duration, refused float64) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastBlock = elapsed
	p.values = append(p.values, value)
	if len(p.values) > p.Window {
		p.values = p.values[len(p.values)-p.Window:]
	}
	var sum time.Duration
	for _, v := range p.values {
		sum += v
	}
	mean := sum / time.Duration(len(p.values))
	e := (p.Target - mean).Seconds() / p.Target.Seconds()
	if refused > 0 {
		e = min(e, -refused)
	}
	return p.step(elapsed, e)
}

// step applies the control law for error e at elapsed.
func (p *PID) step(elapsed time.Duration, e float64) float64 {
	p.integral += e
	d := e - p.prevErr
	p.prevErr = e
	rate := p.segs[len(p.segs)-1].rate * (1 + p.Kp*e + p.Ki*p.integral + p.Kd*d)
	p.set(elapsed, rate)
	return p.current()
}

// set starts a new segment at elapsed (never before the last one).
func (p *PID) set(elapsed time.Duration, rate float64) {
	rate = math.Max(p.Min, math.Min(p.Max, rate))
	last := p.segs[len(p.segs)-1]
	elapsed = max(elapsed, last.start)
	due := last.due + last.rate*(elapsed-last.start).Seconds()
	if elapsed == last.start {
		p.segs[len(p.segs)-1].rate = rate
		return
	}
	p.segs = append(p.segs, segment{start: elapsed, rate: rate, due: due})
}

func (p *PID) current() float64 { return p.segs[len(p.segs)-1].rate }

// CheckStall drops the rate to Min when no block came for Stall; the
// generator calls it as time passes.
func (p *PID) CheckStall(elapsed time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Stall > 0 && elapsed-p.lastBlock > p.Stall && p.current() > p.Min {
		p.set(elapsed, p.Min)
	}
}

func (p *PID) Rate(e time.Duration) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e < 0 || e >= p.D {
		return 0
	}
	s := p.segs[0]
	for _, x := range p.segs {
		if x.start <= e {
			s = x
		}
	}
	return s.rate
}

// Due integrates the rate history; past the last change it extrapolates
// the current rate (what the pacer schedules until the next block).
func (p *PID) Due(e time.Duration) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	e = clamp(e, p.D)
	s := p.segs[0]
	for _, x := range p.segs {
		if x.start <= e {
			s = x
		}
	}
	return s.due + s.rate*(e-s.start).Seconds()
}

func (p *PID) Length() time.Duration { return p.D }

// Seen notes that a block came without a value to hold (no tx of the run
// in it, for a latency SLO): the chain is alive, the rate stays.
// Refusals still count: they lower the rate.
func (p *PID) Seen(elapsed time.Duration, refused float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastBlock = elapsed
	if refused > 0 {
		p.step(elapsed, -refused)
	}
}

func (p *PID) String() string {
	what := fmt.Sprintf("a %s block interval", p.Target)
	if p.HoldsLatency() {
		what = fmt.Sprintf("block latency under %s", p.Target)
	}
	return fmt.Sprintf("pid holding %s (%g..%g tx/s) for %s", what, p.Min, p.Max, p.D)
}
