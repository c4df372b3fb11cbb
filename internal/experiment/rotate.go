package experiment

import (
	"context"
	"fmt"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/testnet"
)

// rotate runs CometBFT's rotating-nodes test while load runs: the n
// rotating nodes start spread over the phase (at length*i/(n+1) after
// start), each from nothing (genesis only); each block-syncs to the tip
// the validators had when it started, and stops. One that does not catch
// up within timeout is recorded as such and stopped; the next still runs.
func rotate(ctx context.Context, net *Net, start time.Time, length, timeout time.Duration, event func(kind, detail string)) []results.Rotation {
	var out []results.Rotation
	nodes := net.Testnet.ByRole(testnet.RoleRotating)
	for i, n := range nodes {
		at := start.Add(length * time.Duration(i+1) / time.Duration(len(nodes)+1))
		if !sleepUntil(ctx, at) {
			break
		}
		out = append(out, rotateOne(ctx, net, n, timeout, event))
	}
	return out
}

func rotateOne(ctx context.Context, net *Net, n *testnet.Node, timeout time.Duration, event func(kind, detail string)) results.Rotation {
	rot := results.Rotation{Node: n.Name, Started: time.Now().UTC(), Tip: tip(ctx, net)}
	event("rotation", fmt.Sprintf("start %s (tip %d)", n.Name, rot.Tip))
	start := time.Now()
	if err := net.Provider.Start(ctx, n); err != nil {
		rot.Error = err.Error()
		return rot
	}
	defer func() {
		_ = net.Provider.Stop(context.WithoutCancel(ctx), n)
		event("rotation", fmt.Sprintf("stop %s", n.Name))
	}()
	var err error
	if rot.Height, err = waitCaughtUp(ctx, net, n, rot.Tip, start.Add(timeout)); err != nil {
		rot.Error = err.Error()
		return rot
	}
	rot.CaughtUp = true
	rot.CatchUp = time.Since(start).Seconds()
	rot.BlocksPer = float64(rot.Height) / rot.CatchUp
	return rot
}

// tip is the highest height any validator answers with.
func tip(ctx context.Context, net *Net) int64 {
	var h int64
	for _, x := range Heights(ctx, net.Testnet.ByRole(testnet.RoleValidator)) {
		h = max(h, x)
	}
	return h
}

// waitCaughtUp waits until node n has left block sync at height tip or
// above, and returns its height; it fails when n exits, at deadline or
// when ctx ends.
func waitCaughtUp(ctx context.Context, net *Net, n *testnet.Node, tip int64, deadline time.Time) (int64, error) {
	c, err := rpchttp.New(n.Endpoint().RPC, "/websocket")
	if err != nil {
		return 0, err
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var height int64
	for {
		if err, exited := net.Provider.Exited(n); exited {
			return height, fmt.Errorf("exited during catch-up (%v)", err)
		}
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		st, err := c.Status(qctx)
		cancel()
		if err == nil {
			height = st.SyncInfo.LatestBlockHeight
			if !st.SyncInfo.CatchingUp && height >= tip {
				return height, nil
			}
		}
		if time.Now().After(deadline) {
			return height, fmt.Errorf("not caught up by the deadline: height %d of tip %d", height, tip)
		}
		select {
		case <-ctx.Done():
			return height, fmt.Errorf("interrupted")
		case <-tick.C:
		}
	}
}
