package evm

import (
	"context"
	"fmt"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/nodehttp"
)

// ReadNonceFates is the chain's word on a phase's txs that a node took
// and no block held when the drain ended (those of this workload that
// waits names): each one's nonce against its sender's nonce on chain
// then, read from the workload's JSON-RPC server. Taken: its nonce is
// below, so another tx with that nonce is in a block (the run's own, sent
// again after a refusal, or another's): it was replaced and never can be.
// Gap: above, so a tx before it is in no block and it could not be (a
// node's recheck drops it, or an EVM mempool queues it, until the gap
// fills). At the nonce itself a tx was next in line: neither (still in a
// mempool, or lost there).
func (w *Workload) ReadNonceFates(ctx context.Context, waits func(load.Hash) bool) (taken, gap int64, err error) {
	w.mu.Lock()
	var left []pair
	for h, p := range w.hashes {
		if waits(h) {
			left = append(left, p)
		}
	}
	w.mu.Unlock()
	if len(left) == 0 {
		return 0, 0, nil
	}
	if w.cfg.JSONRPC == "" {
		return 0, 0, fmt.Errorf("no JSON-RPC server to read the senders' nonces from")
	}
	at := map[int32]int{} // sender -> its index in addrs
	var addrs []Address
	for _, p := range left {
		if _, ok := at[p.from]; !ok {
			at[p.from] = len(addrs)
			addrs = append(addrs, w.wallets[p.from].Address)
		}
	}
	nonces, err := readQuantities(ctx, nodehttp.Client(nodehttp.Query), w.cfg.JSONRPC, "eth_getTransactionCount", addrs, 0)
	if err != nil {
		return 0, 0, fmt.Errorf("the senders' nonces: %w", err)
	}
	for _, p := range left {
		n := nonces[at[p.from]]
		switch {
		case !n.IsUint64():
			return 0, 0, fmt.Errorf("eth_getTransactionCount of %s: %s is not a nonce", addrs[at[p.from]], n)
		case p.nonce < n.Uint64():
			taken++
		case p.nonce > n.Uint64():
			gap++
		}
	}
	return taken, gap, nil
}
