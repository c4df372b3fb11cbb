package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/live"
)

// tip is the highest height any validator answers with.
func tip(ctx context.Context, net *live.Net) int64 {
	var h int64
	for _, x := range net.Heights(ctx, net.Testnet.ByRole(testnet.RoleValidator)) {
		h = max(h, x)
	}
	return h
}

// waitCaughtUp waits until node n has left block sync at height tip or
// above, and returns its height; it fails when n exits, at deadline (by
// clk) or when ctx ends.
func waitCaughtUp(ctx context.Context, net *live.Net, n *testnet.Node, tip int64, deadline time.Time, clk clock) (int64, error) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var height int64
	for {
		if err, exited := net.Provider.Exited(n); exited {
			return height, fmt.Errorf("exited during catch-up (%v)", err)
		}
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		st, err := nodehttp.ReadStatus(qctx, net.Endpoint(n).RPC)
		cancel()
		if err == nil {
			height = st.Height
			if !st.CatchingUp && height >= tip {
				return height, nil
			}
		}
		if clk.Now().After(deadline) {
			return height, fmt.Errorf("not caught up by the deadline: height %d of tip %d", height, tip)
		}
		select {
		case <-ctx.Done():
			return height, fmt.Errorf("interrupted")
		case <-tick.C:
		}
	}
}
