package load

import (
	"context"
	"time"
)

// waitTimer waits d on t, or returns false as soon as ctx ends.
func waitTimer(ctx context.Context, t *time.Timer, d time.Duration) bool {
	t.Reset(d)
	select {
	case <-ctx.Done():
		t.Stop()
		return false
	case <-t.C:
		return true
	}
}
