package results

import "time"

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
	}
	return out
}
