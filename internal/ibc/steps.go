package ibc

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/chainperf/chainperf/internal/finding"
)

// A Step is a part of a run's load at one rate (a sweep's cell): its
// packets are those committed on A from From until the next step's From.
type Step struct {
	Name    string
	Offered float64 // tx/s
	From    time.Time
}

// A StepRelay is what the relayer made of one step's packets: how many
// were sent and received on B, and the relay's latency to B.
type StepRelay struct {
	Step
	Sent, Received int
	P50, P99       time.Duration
	Held           bool // every packet received, p99 within the blowup of the lightest step's
}

// A Pace is how far the relayer kept pace with a load that rose by
// steps: the most tx/s of transfers it relayed as it relayed the
// lightest, and why not more.
type Pace struct {
	Steps    []StepRelay // by offered rate
	Held     float64     // the heaviest step held before the first that did not (0: none)
	Evidence string
}

// PaceOf finds the heaviest step the relayer kept pace with, the way a
// sweep finds a chain's saturation: steps in order of offered rate, each
// holding while every packet it sent was received on B (none in flight
// after the drain, none timed out) and its relay p99 stayed under blowup
// times the lightest step's. Steps with no packets are left out.
func PaceOf(l *Ledger, steps []Step, blowup float64) Pace {
	byStart := slices.SortedFunc(slices.Values(steps), func(a, b Step) int { return a.From.Compare(b.From) })
	out := make([]StepRelay, len(byStart))
	for i, s := range byStart {
		out[i].Step = s
	}
	recv := make([][]time.Duration, len(byStart))
	for _, p := range l.packets {
		if p.SentAt == 0 {
			continue
		}
		i := stepOf(byStart, p.Sent)
		if i < 0 {
			continue
		}
		out[i].Sent++
		if p.RecvAt > 0 {
			out[i].Received++
			recv[i] = append(recv[i], p.Received.Sub(p.Sent))
		}
	}
	var pace Pace
	for i := range out {
		if out[i].Sent == 0 {
			continue
		}
		if len(recv[i]) > 0 {
			out[i].P50, out[i].P99 = percentile(recv[i], 0.50), percentile(recv[i], 0.99)
		}
		pace.Steps = append(pace.Steps, out[i])
	}
	slices.SortStableFunc(pace.Steps, func(a, b StepRelay) int { return cmp.Compare(a.Offered, b.Offered) })
	if len(pace.Steps) == 0 {
		pace.Evidence = "no step sent a packet"
		return pace
	}
	base := pace.Steps[0].P99
	for i := range pace.Steps {
		s := &pace.Steps[i]
		why := ""
		switch {
		case s.Received < s.Sent:
			why = fmt.Sprintf("%d of its %d packets not received on B", s.Sent-s.Received, s.Sent)
		case blowup > 0 && base > 0 && float64(s.P99) >= blowup*float64(base):
			why = fmt.Sprintf("relay to B p99 %s, over %.1fx the lightest step's %s", s.P99.Round(time.Millisecond), blowup, base.Round(time.Millisecond))
		}
		if why != "" {
			pace.Evidence = fmt.Sprintf("first step the relayer did not keep pace with: %s (%.0f tx/s), %s", s.Name, s.Offered, why)
			break
		}
		s.Held, pace.Held = true, s.Offered
	}
	if pace.Evidence == "" {
		pace.Evidence = fmt.Sprintf("the relayer kept pace with every step, up to %.0f tx/s: its limit is above the heaviest", pace.Held)
	}
	return pace
}

// stepOf is the step whose window holds t (-1: before the first).
func stepOf(steps []Step, t time.Time) int {
	i := -1
	for j, s := range steps {
		if !t.Before(s.From) {
			i = j
		}
	}
	return i
}

// lines are the pace's evidence and a line a step.
func (p *Pace) lines() []finding.Line {
	out := []finding.Line{{Label: "pace", Text: p.Evidence}}
	for _, s := range p.Steps {
		text := fmt.Sprintf("%.0f tx/s: %d sent, %d received on B", s.Offered, s.Sent, s.Received)
		if s.Received > 0 {
			text += fmt.Sprintf(", relay to B p50 %s p99 %s", s.P50.Round(time.Millisecond), s.P99.Round(time.Millisecond))
		}
		if !s.Held {
			text += " (not kept pace with)"
		}
		out = append(out, finding.Line{Label: s.Name, Text: text})
	}
	return out
}
