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
	rot := results.Rotation{Node: n.Name, Started: time.Now().UTC()}
	for _, h := range Heights(ctx, net.Testnet.ByRole(testnet.RoleValidator)) {
		rot.Tip = max(rot.Tip, h)
	}
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
	c, err := rpchttp.New(n.Endpoint().RPC, "/websocket")
	if err != nil {
		rot.Error = err.Error()
		return rot
	}
	deadline := start.Add(timeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if err, exited := net.Provider.Exited(n); exited {
			rot.Error = fmt.Sprintf("exited during catch-up (%v)", err)
			return rot
		}
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		st, err := c.Status(qctx)
		cancel()
		if err == nil {
			rot.Height = st.SyncInfo.LatestBlockHeight
			if !st.SyncInfo.CatchingUp && rot.Height >= rot.Tip {
				rot.CaughtUp = true
				rot.CatchUp = time.Since(start).Seconds()
				rot.BlocksPer = float64(rot.Height) / rot.CatchUp
				return rot
			}
		}
		if time.Now().After(deadline) {
			rot.Error = fmt.Sprintf("not caught up within %s: height %d of tip %d", timeout, rot.Height, rot.Tip)
			return rot
		}
		select {
		case <-ctx.Done():
			rot.Error = "interrupted"
			return rot
		case <-tick.C:
		}
	}
}
