package results

import (
	"time"

	"github.com/chainperf/chainperf/internal/load"
)

// A Fault is one perturbation from its beginning to its end (zero End:
// it lasted to the end of the run, a kill with no restart), recorded as
// it happens by the experiment that does it.
type Fault struct {
	What  string    `json:"what"` // "kill", "pause", "partition", ...
	Nodes string    `json:"nodes"`
	Begin time.Time `json:"begin"`
	End   time.Time `json:"end,omitempty"`
	// What the chain did: blocks seen while it held, the longest time
	// without a block from its beginning until the first block after its
	// end, and how long after its end that first block came.
	Blocks     int     `json:"blocks"`
	LongestGap float64 `json:"longest_gap_s"`
	Recovery   float64 `json:"recovery_s"` // -1: no block came after it
	// CatchUp is how long after its end the nodes it hit were at the
	// chain's tip again (-1: not seen while the phase lasted; 0 for a
	// partition or a latency change, which stop no node).
	CatchUp float64 `json:"catch_up_s"`
	// What the load saw (dip): the committed tx/s over the 10 s before it
	// and its lowest 5 s mean from its beginning until it was back, how
	// long after the fault's end it was back (the first 5 s after the end
	// that committed BackShare of the rate before; -1: not while the load
	// lasted), the highest per-second p99 latency before and from its
	// beginning until then, and the sends that failed until a second
	// after its end. Zero where it began less than 3 s into a phase.
	RateBefore float64 `json:"rate_before,omitempty"`
	RateLow    float64 `json:"rate_low,omitempty"`
	RateBack   float64 `json:"rate_back_s,omitempty"`
	P99Before  float64 `json:"p99_before_ms,omitempty"`
	P99Peak    float64 `json:"p99_peak_ms,omitempty"`
	SendErrors int64   `json:"send_errors,omitempty"`
}

// Effects measures each fault against the blocks of the run's phases (by
// when chainperf saw them).
func Effects(faults []Fault, phases []*Phase) []Fault {
	var seen []time.Time
	for _, p := range phases {
		for _, b := range p.Blocks {
			seen = append(seen, b.Seen)
		}
	}
	out := append([]Fault(nil), faults...)
	for i := range out {
		f := &out[i]
		end := f.End
		if end.IsZero() && len(seen) > 0 {
			end = seen[len(seen)-1]
		}
		f.Recovery = -1
		prev := f.Begin
		for _, s := range seen {
			if s.Before(f.Begin) {
				continue
			}
			if s.Before(end) {
				f.Blocks++
			}
			f.LongestGap = max(f.LongestGap, s.Sub(prev).Seconds())
			prev = s
			if !f.End.IsZero() && s.After(f.End) {
				f.Recovery = s.Sub(f.End).Seconds()
				break
			}
		}
		for _, p := range phases {
			if !f.Begin.Before(p.Start) && f.Begin.Before(p.Start.Add(p.Length)) {
				dip(f, p)
			}
		}
	}
	return out
}

// BackShare is the share of the committed rate before a fault that the
// load is back at when the fault's effect is over.
const BackShare = 0.9

// dip measures f against the load of phase p, second by second (commits
// by when their block was seen, sends by when they were made).
func dip(f *Fault, p *Phase) {
	secs := p.Ledger.PerSecond
	loaded := min(len(secs), int(p.Length/time.Second))
	b := int(f.Begin.Sub(p.Start) / time.Second)
	if b < 3 || b >= loaded {
		return
	}
	var before int64
	for _, s := range secs[max(0, b-10):b] {
		before += s.Committed
		f.P99Before = max(f.P99Before, s.LatencyP99)
	}
	f.RateBefore = float64(before) / float64(b-max(0, b-10))
	end := loaded
	if !f.End.IsZero() {
		end = min(loaded, int(f.End.Sub(p.Start)/time.Second))
	}
	mean := load.CommittedMean(secs[:loaded], 5)
	f.RateLow, f.RateBack = f.RateBefore, -1
	back := loaded
	for i := b; i < loaded; i++ {
		f.RateLow = min(f.RateLow, mean[i])
		f.P99Peak = max(f.P99Peak, secs[i].LatencyP99)
		if i <= end+1 {
			f.SendErrors += secs[i].SendError
		}
		// mean[i] is seconds i-2..i+2: the first 5 s wholly after the end.
		if i-2 > end && mean[i] >= BackShare*f.RateBefore {
			back = i - 2
			break
		}
	}
	if back < loaded && !f.End.IsZero() {
		f.RateBack = max(0, p.Start.Add(time.Duration(back)*time.Second).Sub(f.End).Seconds())
	}
}
