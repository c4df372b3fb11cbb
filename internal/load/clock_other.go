//go:build !linux

package load

import (
	"context"
	"time"
)

// A clock sleeps the pacer to a tx's intended time (Go's timers only).
type clock struct{ t *time.Timer }

func newClock(context.Context) *clock {
	c := &clock{t: time.NewTimer(time.Hour)}
	c.t.Stop()
	return c
}

// sleepUntil returns at t, or false as soon as it sees ctx ended.
func (c *clock) sleepUntil(ctx context.Context, t time.Time) bool {
	if d := time.Until(t); d > 0 && !waitTimer(ctx, c.t, d) {
		return false
	}
	return ctx.Err() == nil
}

func (c *clock) close() { c.t.Stop() }

// String says how the pacer sleeps, for the run's report.
func (c *clock) String() string { return "Go timers" }
