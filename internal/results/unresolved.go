package results

import (
	"fmt"
	"time"

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
	// Stopped: unresolved txs due before a fault stopped every node the
	// load goes to (a coordinated upgrade): a mempool is not kept across
	// a restart, so what the nodes held then was lost with it.
	Stopped int64 `json:"stopped,omitempty"`
	// Queued: unresolved txs the node answered with a nonce gap and queued
	// in its EVM mempool (load.Queued), that no block took.
	Queued int64 `json:"queued,omitempty"`
	// NonceTaken, NonceGap: the rest of the unresolved EVM txs by their
	// senders' nonces on chain when the drain ended (evm.NonceFates):
	// another tx with the same nonce in a block (replaced), or a tx before
	// them in none (a gap the run left open).
	NonceTaken int64 `json:"nonce_taken,omitempty"`
	NonceGap   int64 `json:"nonce_gap,omitempty"`
	// MempoolRefused: the increase of the target nodes'
	// cometbft_mempool_rejected_txs over the phase.
	MempoolRefused int64 `json:"mempool_refused"`
	// FullAnswers: sends chainperf got "mempool is full" for.
	FullAnswers int64 `json:"full_answers"`
	// Dropped: MempoolRefused - FullAnswers, the silent drops.
	Dropped int64 `json:"silently_dropped"`
	// Explained: unresolved txs the drops account for.
	Explained int64 `json:"explained"`
	// MempoolEvicted: the increase of the target nodes'
	// cometbft_mempool_evicted_txs over the phase: txs a recheck after a
	// block found no longer valid (a sequence another tx took, a tx sent
	// on a node a block behind) and removed, silently to their sender.
	// Evicted: the unresolved txs they account for (at most: a copy of a
	// tx gossiped to several targets is evicted on each).
	MempoolEvicted int64 `json:"mempool_evicted,omitempty"`
	Evicted        int64 `json:"evicted,omitempty"`
	// Unexplained: the rest.
	Unexplained int64 `json:"unexplained"`
}

// Drops is what the target nodes' mempools dropped over a phase, by their
// own counters, each summed over the nodes' restarts.
type Drops struct {
	Refused float64 // cometbft_mempool_rejected_txs: no room
	Evicted float64 // cometbft_mempool_evicted_txs: invalid at a recheck
}

// Left is what was read of a phase's unresolved txs once its drain
// ended: how many a node's mempool held (InMempool), how many were due
// before every node the load goes to was stopped (Stopped, from
// LostToStops), and, for EVM txs, their senders' nonces' word.
type Left struct {
	InMempool, Stopped   int64
	NonceTaken, NonceGap int64
}

// ExplainUnresolved attributes a phase's unresolved txs to the nodes'
// mempools still holding them when the drain ended, then to the restarts
// of every target node, to nonce gaps an EVM mempool queued, to their
// senders' nonces on chain, then to silent mempool drops, given how many
// txs the target nodes' mempools refused, then to their recheck evictions.
func ExplainUnresolved(s load.Summary, d Drops, left Left) *Unresolved {
	u := &Unresolved{Unresolved: s.Fates[load.FateUnresolved], MempoolRefused: int64(d.Refused), MempoolEvicted: int64(d.Evicted), FullAnswers: s.Reasons["mempool is full"]}
	rest := u.Unresolved
	take := func(n int64) int64 {
		n = min(max(n, 0), rest)
		rest -= n
		return n
	}
	u.InMempool = take(left.InMempool)
	u.Stopped = take(left.Stopped)
	u.Queued = take(s.QueuedUnresolved)
	u.NonceTaken = take(left.NonceTaken)
	u.NonceGap = take(left.NonceGap)
	u.Dropped = max(0, u.MempoolRefused-u.FullAnswers)
	u.Explained = take(u.Dropped)
	u.Evicted = take(u.MempoolEvicted)
	u.Unexplained = rest
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
	if u.Stopped > 0 {
		held += fmt.Sprintf("%d due before every node the load goes to was stopped (a mempool is not kept across a restart: lost with it), ", u.Stopped)
	}
	if u.Queued > 0 {
		held += fmt.Sprintf("%d answered with a nonce gap and queued by the node's EVM mempool, and never in a block, ", u.Queued)
	}
	if u.NonceTaken > 0 {
		held += fmt.Sprintf("%d replaced (their sender's nonce on chain passed theirs: another tx with that nonce is in a block), ", u.NonceTaken)
	}
	if u.NonceGap > 0 {
		held += fmt.Sprintf("%d behind a nonce gap (their sender's nonce on chain stopped below theirs: a tx before them is in no block), ", u.NonceGap)
	}
	evicted := ""
	if u.MempoolEvicted > 0 {
		evicted = fmt.Sprintf("%d evicted at a recheck (the target nodes' mempools removed %d txs a block made invalid: a sequence another tx took, or a tx sent on a node a block behind), ", u.Evicted, u.MempoolEvicted)
	}
	return fmt.Sprintf("%d unresolved: %s%d explained by silent mempool drops (the target nodes' mempools refused %d txs, %d of them answered \"mempool is full\"; CometBFT drops a tx after its CheckTx said OK when the mempool filled meanwhile), %s%d unexplained",
		u.Unresolved, held, u.Explained, u.MempoolRefused, u.FullAnswers, evicted, u.Unexplained)
}

// LostToStops counts the unresolved txs of a phase that started at start
// due before the last of stops (moments every node the load goes to was
// stopped), by the second they were due in: a tx due in the second of a
// stop counts, as it may have reached a mempool just before it.
func LostToStops(s load.Summary, start time.Time, stops []time.Time) int64 {
	var last time.Time
	for _, t := range stops {
		if t.After(last) {
			last = t
		}
	}
	if last.IsZero() || last.Before(start) {
		return 0
	}
	var n int64
	upTo := int(last.Sub(start) / time.Second)
	for i, sec := range s.PerSecond {
		if i <= upTo {
			n += sec.Unresolved
		}
	}
	return n
}
