package load

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// growth decides whether a target may have one more connection: not
// when more connections stop raising the rate its node answers at while
// it falls behind. A node that is slow per request (its answers wait on
// something else) answers faster on more connections; one whose CPU is
// full does not, and each connection more costs it (and chainperf) a
// little more a request: at 200,000 tx/s against the sink, connections
// opened while it looked slow took it from 150,000 tx/s to 57,000
// (bench/generator.py). So a window (growWindow, or twice the time the
// node takes to answer a request if longer) that follows one in which
// connections were added (they answer in it), where the node answered less
// than growKeptUp of what it was sent, or the pacer was behind its schedule
// (when every connection is full the pacer hands out only as fast as
// answers come, so what the node answered keeps up with what it was sent
// however far behind the run is: without this, a saturated node was never
// judged behind and its connections grew to 850, which cost it a quarter
// of its rate), and its answered rate rose less than
// growGain over the window before (or less than chance explains), stops growth for a hold (growHold,
// doubling at each failed try to growHoldMax, back to growHold once a
// try raises the rate). A window may double the connections, and after
// the first hold add a quarter at most (2 at least). Meanwhile requests
// go deeper on the connections there are, and when those are full the
// pacer waits for answers: the node's backpressure, node-bound.
type growth struct {
	from     time.Time     // the window's start
	answers  int64         // the target's answers then
	handed   int64         // txs handed to it then
	conns    int           // its connections then
	before   int           // its connections when the window before began
	added    int           // connections opened in the window
	rate     float64       // answers a second over the window before
	hold     time.Duration // the last hold's length (0: none since a try raised the rate)
	heldTill time.Time     // no growth before this
	held     int           // connections when growth was last stopped (0: never)
	late     bool          // the pacer was behind its schedule in the window
	each     int64         // the target's time an answer a connection (ns) then
	heldRate float64       // the rate the node answered at then
}

const (
	growFree    = 4 // connections a target may always have
	growWindow  = 25 * time.Millisecond
	growGain    = 1.05
	growKeptUp  = 0.95
	growHold    = time.Second
	growHoldMax = 30 * time.Second
	// crowdedShare: a try is crowded when the time an answer a connection
	// rose by at least this share of the rise in connections.
	crowdedShare = 0.8
)

// mayGrow says whether t may open one more connection now, having n, the
// pacer late (past OnTime) or not; yes counts it as opened.
func (t *pipeTarget) mayGrow(now time.Time, n int, late bool) bool {
	t.judge(now, n)
	t.grow.late = t.grow.late || late
	g := &t.grow
	most := max(growFree, g.conns) // a window may double them
	if g.held > 0 {
		most = max(2, g.conns/4)
	}
	if n >= growFree && (now.Before(g.heldTill) || g.added >= most) {
		return false
	}
	g.added++
	return true
}

// judge ends the window if it is over, having n connections now: it holds
// growth if the connections the window before opened did not raise the
// answered rate while the node fell behind.
func (t *pipeTarget) judge(now time.Time, n int) {
	g := &t.grow
	if g.from.IsZero() {
		g.from, g.answers, g.handed, g.conns = now, t.answers.Load(), t.handed, n
	}
	// A connection's first answers come a request's time after it opens:
	// a window shorter than that cannot see what it did.
	if el := now.Sub(g.from); el >= max(growWindow, 2*time.Duration(t.each.Load())) {
		a, each := t.answers.Load(), t.each.Load()
		answered := float64(a - g.answers)
		rate := answered / el.Seconds()
		behind := g.late || answered < growKeptUp*float64(t.handed-g.handed)
		// Risen: by growGain, and by more than a window's count varies by
		// chance (two standard deviations of a Poisson count): a window
		// holds a few dozen answers at a thousand a second, and a 5 % rise
		// in one is noise.
		expected := g.rate * el.Seconds()
		rose := answered >= expected*growGain+2*math.Sqrt(expected)
		// The connections a window opens answer in the next: judged there.
		// Those up to growFree are not a try: a target always has them,
		// and the window they opened in (their first answers only
		// beginning) is no rate to judge the next against.
		tried := g.conns > g.before && g.before >= growFree
		// Crowded: each connection's answers came slower about in
		// proportion to how many more there are, so the node answered
		// no more in all: its CPU (or one lock) is full. A node slow per
		// request answers each as fast on more. This catches a node near
		// its capacity that still keeps up (so is not behind): its
		// requests wait longer than pipeStale on every connection
		// whatever their number, and each connection more (tried while
		// none is fresh) took the sink here from 42,000 tx/s to 32,000
		// on 850 of them.
		crowded := tried && g.before > 0 && g.each > 0 &&
			float64(each)/float64(g.each)-1 >= crowdedShare*(float64(g.conns)/float64(g.before)-1)
		// A crowded try that counted more answers counted chance: a
		// window's count swings by several times (answers come in bursts
		// on a loaded machine, 0 to 3,900 tx/s a window against a node of
		// 1,000) where the time an answer a connection, averaged over
		// bursts, moves by a few per cent; CI saw 125 connections opened
		// to that node, three lucky windows in a row.
		switch {
		case tried && g.conns >= growFree && (crowded || behind && !rose):
			g.hold = min(growHoldMax, max(growHold, 2*g.hold))
			g.heldTill, g.held, g.heldRate = now.Add(g.hold), n, rate
		case tried && rose && !crowded:
			g.hold = 0 // a try that raised the rate
		}
		g.from, g.answers, g.handed, g.before, g.conns, g.added, g.rate, g.late, g.each = now, a, t.handed, g.conns, n, 0, rate, false, each
	}
}

// heldNotes says, for each target whose connections stopped growing,
// where and at what rate.
func (p *pipeline) heldNotes() string {
	var notes []string
	for _, t := range p.targets {
		if g := t.grow; g.held > 0 {
			notes = append(notes, fmt.Sprintf("%s: connections held at %d, more did not raise the rate it answered at (%.0f tx/s)", t.addr, g.held, g.heldRate))
		}
	}
	return strings.Join(notes, "; ")
}
