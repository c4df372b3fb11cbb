package load

import (
	"fmt"
	"strings"
	"time"
)

// Report is how well the generator kept to the schedule.
type Report struct {
	Model       string  `json:"model"`
	Due         float64 `json:"due"`                   // txs whose intended time fell inside the phase (0 for closed loop)
	Dispatched  int64   `json:"dispatched"`            // txs handed to senders
	OnTime      int64   `json:"on_time"`               // txs sent within OnTime of their intended time
	Senders     int64   `json:"senders"`               // requests in flight at most (max_in_flight at most)
	Conns       int64   `json:"connections,omitempty"` // connections open at most (pipelined sends)
	BlockedJobs int64   `json:"blocked_jobs"`          // requests that waited for a free sender
	Pacer       string  `json:"pacer,omitempty"`       // how the pacer slept to each tx's time (and its priority)
	// Bound: the load was not delivered as asked; BoundBy says who held
	// it back (BoundByGenerator or BoundByNode) and Why how it shows.
	Bound   bool   `json:"bound"`
	BoundBy string `json:"bound_by,omitempty"`
	Why     string `json:"why,omitempty"`
	// Generators > 1: the figures are the sums of that many generators'
	// reports (MergeReports); 0 is chainperf alone.
	Generators int `json:"generators,omitempty"`
}

// Report says whether the load was delivered as asked, given the
// ledger's lag, and if not, whether chainperf or the node held it back.
func (g *Generator) Report(s Summary) Report {
	r := Report{Model: g.cfg.Model.String(), Due: g.due, Dispatched: g.dispatched.Load(), OnTime: g.onTime.Load(),
		Senders: g.peakSenders.Load(), Conns: g.conns, BlockedJobs: g.blocked.Load(), Pacer: g.pacer}
	switch g.cfg.Model.(type) {
	case Users, Max:
		return r // a closed loop has no schedule to fall behind
	}
	var why []string
	if lag := time.Duration(s.Lag.P99 * float64(time.Millisecond)); lag > BoundLagP99 {
		why = append(why, fmt.Sprintf("p99 schedule lag %s > %s", lag.Round(time.Microsecond), BoundLagP99))
	}
	if r.Due > 0 && float64(r.OnTime) < r.Due*(1-BoundLate) {
		why = append(why, fmt.Sprintf("%d of %.0f due txs sent within %s of their time", r.OnTime, r.Due, OnTime))
	}
	if len(why) == 0 {
		return r
	}
	r.Bound = true
	queued, handing := g.lateQueued.Load(), g.lateHanding.Load()
	if queued >= handing {
		r.BoundBy = BoundByNode
		if r.Conns > 0 {
			why = append(why, fmt.Sprintf("node-bound: %d late txs waited for room on the node's connections, %d requests unanswered at most on %d connections (the node's backpressure)", queued, r.Senders, r.Conns))
		} else {
			why = append(why, fmt.Sprintf("node-bound: %d late txs waited for a free sender, all %d busy waiting for answers (the node's backpressure; max_in_flight is the ceiling)", queued, r.Senders))
		}
		if g.held != "" {
			why = append(why, g.held)
		}
	} else {
		r.BoundBy = BoundByGenerator
		why = append(why, fmt.Sprintf("generator-bound: %d late txs were late with senders not all waiting for answers: chainperf did not get the CPU in time (its own work, or on a shared machine the nodes' load)", handing))
	}
	r.Why = strings.Join(why, "; ")
	return r
}

// Delivery says whether a phase's load went out as asked, and if not who
// held it back.
func (g Report) Delivery() string {
	from := ""
	if g.Generators > 1 {
		from = fmt.Sprintf(" (from %d generators, their ledgers merged)", g.Generators)
	}
	if !g.Bound {
		if g.Due == 0 {
			return fmt.Sprintf("closed loop, %d txs sent%s", g.Dispatched, from)
		}
		inFlight := fmt.Sprintf("%d senders at most", g.Senders)
		if g.Conns > 0 {
			inFlight = fmt.Sprintf("%d requests in flight at most on %d connections", g.Senders, g.Conns)
		}
		return fmt.Sprintf("as asked: %d of %.0f due txs sent within %s of their time, %s%s", g.OnTime, g.Due, OnTime, inFlight, from)
	}
	return strings.ToUpper(g.BoundBy) + "-BOUND: " + g.Why + from
}
