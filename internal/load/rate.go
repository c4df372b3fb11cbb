// Package load sends transactions: rate models say how many txs are wanted
// when, the pacer turns that into intended send times (open loop), a
// workload makes each tx, senders deliver them over JSON-RPC, and the
// ledger follows every tx to its fate.
package load

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/scenario"
)

// A RateModel gives the wanted send rate at each moment of a run.
type RateModel interface {
	// Rate is the wanted rate in tx/s at elapsed; never negative.
	Rate(elapsed time.Duration) float64
	// Due is the number of txs due by elapsed: the integral of Rate from 0.
	Due(elapsed time.Duration) float64
	// Length is how long the model runs.
	Length() time.Duration
	String() string
}

// Constant is a fixed total rate R tx/s for D.
type Constant struct {
	R float64
	D time.Duration
}

func (c Constant) Rate(e time.Duration) float64 {
	if e < 0 || e >= c.D {
		return 0
	}
	return c.R
}
func (c Constant) Due(e time.Duration) float64 { return c.R * clamp(e, c.D).Seconds() }
func (c Constant) Length() time.Duration       { return c.D }
func (c Constant) String() string              { return fmt.Sprintf("constant %g tx/s for %s", c.R, c.D) }

// Connections is the CometBFT QA load: C connections each sending R tx/s,
// so C*R tx/s in total for D.
type Connections struct {
	C int
	R float64
	D time.Duration
}

func (c Connections) total() Constant              { return Constant{R: float64(c.C) * c.R, D: c.D} }
func (c Connections) Rate(e time.Duration) float64 { return c.total().Rate(e) }
func (c Connections) Due(e time.Duration) float64  { return c.total().Due(e) }
func (c Connections) Length() time.Duration        { return c.D }
func (c Connections) String() string {
	return fmt.Sprintf("%d connections x %g tx/s = %g tx/s for %s", c.C, c.R, float64(c.C)*c.R, c.D)
}

// Ramp goes linearly from From to To tx/s over D:
// Rate(t) = From + (To-From)*t/D, Due(t) = From*t + (To-From)*t²/(2D).
type Ramp struct {
	From, To float64
	D        time.Duration
}

func (r Ramp) Rate(e time.Duration) float64 {
	if e < 0 || e >= r.D {
		return 0
	}
	return r.From + (r.To-r.From)*e.Seconds()/r.D.Seconds()
}
func (r Ramp) Due(e time.Duration) float64 {
	t := clamp(e, r.D).Seconds()
	return r.From*t + (r.To-r.From)*t*t/(2*r.D.Seconds())
}
func (r Ramp) Length() time.Duration { return r.D }
func (r Ramp) String() string        { return fmt.Sprintf("ramp %g -> %g tx/s over %s", r.From, r.To, r.D) }

// Steps runs each step's constant rate for its duration, one after another.
type Steps []Step

// A Step is one stage of Steps.
type Step struct {
	R float64
	D time.Duration
}

func (s Steps) Rate(e time.Duration) float64 {
	for _, st := range s {
		if e < st.D {
			if e < 0 {
				return 0
			}
			return st.R
		}
		e -= st.D
	}
	return 0
}
func (s Steps) Due(e time.Duration) float64 {
	var n float64
	for _, st := range s {
		if e <= 0 {
			break
		}
		n += st.R * min(e, st.D).Seconds()
		e -= st.D
	}
	return n
}
func (s Steps) Length() time.Duration {
	var d time.Duration
	for _, st := range s {
		d += st.D
	}
	return d
}
func (s Steps) String() string {
	parts := make([]string, len(s))
	for i, st := range s {
		parts[i] = fmt.Sprintf("%g tx/s for %s", st.R, st.D)
	}
	return "steps " + strings.Join(parts, ", ")
}

// Max sends as fast as the chain accepts, with at most the sender's
// in-flight limit outstanding: closed loop, so it has no schedule and Due
// is infinite while it runs.
type Max struct{ D time.Duration }

func (m Max) Rate(e time.Duration) float64 {
	if e < 0 || e >= m.D {
		return 0
	}
	return math.Inf(1)
}
func (m Max) Due(e time.Duration) float64 {
	if e <= 0 {
		return 0
	}
	return math.Inf(1)
}
func (m Max) Length() time.Duration { return m.D }
func (m Max) String() string        { return fmt.Sprintf("max (closed loop) for %s", m.D) }

func clamp(e, d time.Duration) time.Duration {
	return max(0, min(e, d))
}

// ModelFrom builds the rate model a scenario's [load] section describes.
func ModelFrom(l scenario.Load) (RateModel, error) {
	m, err := modelFrom(l)
	if err != nil || l.SendEvery.D() <= 0 {
		return m, err
	}
	switch m.(type) {
	case Constant, Connections, Ramp, Steps:
		return Bursts{M: m, Every: l.SendEvery.D()}, nil
	}
	return nil, fmt.Errorf("load.send_every: the %s model has no schedule to send in bursts", l.Model)
}

func modelFrom(l scenario.Load) (RateModel, error) {
	d := l.Duration.D()
	switch l.Model {
	case "constant":
		return Constant{R: l.Rate, D: d}, nil
	case "connections":
		return Connections{C: l.Connections, R: l.Rate, D: d}, nil
	case "ramp":
		return Ramp{From: l.From, To: l.To, D: d}, nil
	case "steps":
		s := make(Steps, len(l.Steps))
		for i, st := range l.Steps {
			s[i] = Step{R: st.Rate, D: st.Duration.D()}
		}
		return s, nil
	case "max":
		return Max{D: d}, nil
	case "users":
		return Users{N: l.Users, Think: l.ThinkTime.D(), D: d}, nil
	case "pid":
		p := l.PID
		return NewPID(PIDConfig{
			Hold: p.Hold, Target: p.Target.D(), Window: p.Window, Kp: p.Kp, Ki: p.Ki, Kd: p.Kd,
			Min: p.MinRate, Max: p.MaxRate, Stall: p.Stall.D(), D: d,
		}, p.StartRate), nil
	}
	return nil, fmt.Errorf("unknown rate model %q", l.Model)
}

// Bursts is M sent in bursts: at the start of each Every, the txs M makes
// due during it, as CometBFT's loadtime sends a second's txs at the top of
// the second. Every tx's intended time is its burst's, so lag and latency
// are measured from when it was meant to go. A wake-up and a write serve
// a burst, not a tx: the generator's CPU falls with Every, and the nodes
// see the load in steps.
type Bursts struct {
	M     RateModel
	Every time.Duration
}

func (b Bursts) Rate(e time.Duration) float64 { return b.M.Rate(e) }
func (b Bursts) Length() time.Duration        { return b.M.Length() }
func (b Bursts) String() string {
	return fmt.Sprintf("%s in bursts every %s", b.M, b.Every)
}

// Due is M's due by the end of the Every that e falls in (the model's end
// at most).
func (b Bursts) Due(e time.Duration) float64 {
	end := min(b.M.Length(), (e/b.Every+1)*b.Every)
	return b.M.Due(end)
}

// IntendedTime returns when tx n (0-based) is due under m: the first t at
// which Due(t) exceeds n (so tx 0 is due as soon as the rate is positive;
// at a constant rate R, tx n is due at n/R). after is a lower bound (the
// previous tx's time) that keeps the search short. ok is false when the
// model ends first.
func IntendedTime(m RateModel, n float64, after time.Duration) (time.Duration, bool) {
	if c, isConst := m.(Constant); isConst {
		t := time.Duration(n / c.R * float64(time.Second))
		return t, t < c.D
	}
	if c, isConn := m.(Connections); isConn {
		return IntendedTime(c.total(), n, after)
	}
	if b, isBursts := m.(Bursts); isBursts {
		// M's time for n, back to its burst's start.
		t, ok := IntendedTime(b.M, n, after)
		return t / b.Every * b.Every, ok
	}
	end := m.Length()
	if m.Due(end) <= n {
		return 0, false
	}
	lo, hi := after, end
	if m.Due(lo) > n {
		lo = 0
	}
	// Bisection to 1µs: Due is monotone.
	for hi-lo > time.Microsecond {
		mid := lo + (hi-lo)/2
		if m.Due(mid) > n {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// OfferedPerSecond is the rate m schedules in each second of its length,
// from what it has due (the last second, if partial, over its part): for
// a controller, known only once it has run.
func OfferedPerSecond(m RateModel) []float64 {
	length := m.Length()
	out := make([]float64, int(math.Ceil(length.Seconds())))
	prev := 0.0
	for i := range out {
		from, to := time.Duration(i)*time.Second, min(time.Duration(i+1)*time.Second, length)
		due := m.Due(to)
		out[i], prev = (due-prev)/(to-from).Seconds(), due
	}
	return out
}
