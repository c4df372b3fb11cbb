package results

import (
	"fmt"

	"github.com/chainperf/chainperf/internal/load"
)

// Unresolved explains a phase's unresolved txs (accepted, never seen in a
// block). CometBFT v0.38 drops a tx whose CheckTx said OK when the mempool
// filled in the meantime (resCbFirstTime in mempool/clist_mempool.go):
// the sender was told "accepted", the drop is logged at debug level only,
// and the node's cometbft_mempool_rejected_txs counts it, together with
// the "mempool is full" answers it gave. So the target nodes' count less
// the "mempool is full" answers chainperf got is the silent drops (at
// most: a copy of a tx gossiped back to a full target counts too).
type Unresolved struct {
	Unresolved int64 `json:"unresolved"`
	// InMempool: unresolved txs a node's mempool still held when the
	// drain ended (the chain had not taken them yet: not lost).
	InMempool int64 `json:"in_mempool,omitempty"`
	// MempoolRefused: the increase of the target nodes'
	// cometbft_mempool_rejected_txs over the phase.
	MempoolRefused int64 `json:"mempool_refused"`
	// FullAnswers: sends chainperf got "mempool is full" for.
	FullAnswers int64 `json:"full_answers"`
	// Dropped: MempoolRefused - FullAnswers, the silent drops.
	Dropped int64 `json:"silently_dropped"`
	// Explained: unresolved txs the drops account for; Unexplained the
	// rest.
	Explained   int64 `json:"explained"`
	Unexplained int64 `json:"unexplained"`
}

// ExplainUnresolved attributes a phase's unresolved txs to the nodes'
// mempools still holding them when the drain ended (inMempool), then to
// silent mempool drops, given how many txs the target nodes' mempools
// refused.
func ExplainUnresolved(s load.Summary, refused float64, inMempool int64) *Unresolved {
	u := &Unresolved{Unresolved: s.Fates[load.FateUnresolved], MempoolRefused: int64(refused), FullAnswers: s.Reasons["mempool is full"]}
	u.InMempool = min(inMempool, u.Unresolved)
	rest := u.Unresolved - u.InMempool
	u.Dropped = max(0, u.MempoolRefused-u.FullAnswers)
	u.Explained = min(u.Dropped, rest)
	u.Unexplained = rest - u.Explained
	return u
}

func (u *Unresolved) String() string {
	if u.Unresolved == 0 {
		return "none"
	}
	held := ""
	if u.InMempool > 0 {
		held = fmt.Sprintf("%d still in a node's mempool when the drain ended (not lost: the chain had not taken them yet; a longer drain_timeout waits for them), ", u.InMempool)
	}
	return fmt.Sprintf("%d unresolved: %s%d explained by silent mempool drops (the target nodes' mempools refused %d txs, %d of them answered \"mempool is full\"; CometBFT drops a tx after its CheckTx said OK when the mempool filled meanwhile), %d unexplained",
		u.Unresolved, held, u.Explained, u.MempoolRefused, u.FullAnswers, u.Unexplained)
}
