package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/live"
)

// coordinatedUpgrade is an upgrade every node makes at one height, as a
// chain team ships a consensus-breaking release: every node started with
// the SDK's --halt-height (haltAt), so each saves the block at the height
// and its application refuses to execute it. Once all have halted they
// are stopped, and after the upgrade's duration all start on the new
// binary, which executes that block first. The fault's nodes are back
// when each has a block past the height.
func coordinatedUpgrade(net *live.Net, p scenario.Perturbation) (*fault, error) {
	pv := net.Provider
	if !testnet.Can(pv, testnet.FaultUpgrade) {
		return nil, fmt.Errorf("the %q provider cannot swap a node's binary (an upgrade)", pv.Name())
	}
	nodes := net.Testnet.Standing()
	label := upgradeLabel(p)
	return &fault{
		names: "all", nodes: nodes, stopsNodes: true, restarts: true, backAt: p.Height + 1,
		wait:  func(ctx context.Context) error { return waitHalted(ctx, net, nodes, p.Height) },
		began: fmt.Sprintf("halt at %d", p.Height),
		begin: func(ctx context.Context) error { return pv.Stop(ctx, nodes...) },
		ended: "start " + label,
		end: func(ctx context.Context) error {
			for _, n := range nodes {
				n.Run(label, p.ToExec)
			}
			return pv.Start(ctx, nodes...)
		},
	}, nil
}

// waitHalted waits until every validator has saved the block at height
// (/status counts the block store, which has it before the application
// refuses it) and every other node has too or no longer answers (a node
// block-syncing exits on the refusal). It fails when the chain had passed
// height before the wait began, or when ctx ends first, saying where the
// chain was.
func waitHalted(ctx context.Context, net *live.Net, nodes []*testnet.Node, height int64) error {
	if h := tip(ctx, net); h >= height {
		return fmt.Errorf("the chain was at height %d when the phase began: it had halted at the upgrade's height %d before the load; set a higher height", h, height)
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		halted, top := true, int64(0)
		for _, n := range nodes {
			qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			st, err := nodehttp.ReadStatus(qctx, net.Endpoint(n).RPC)
			cancel()
			switch {
			case err == nil:
				top = max(top, st.Height)
				halted = halted && st.Height >= height
			case n.Role == testnet.RoleValidator:
				halted = false
			}
		}
		if halted {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the chain did not reach the upgrade's height %d while the phase lasted (it was at %d): set a lower height or a longer phase", height, top)
		case <-tick.C:
		}
	}
}
