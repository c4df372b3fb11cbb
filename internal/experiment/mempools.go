package experiment

import (
	"sync"

	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
)

// mempools keeps the latest mempool size of every node, from the samples
// the watcher takes, for the live view, and the counts of txs each node's
// mempool refused for lack of room or evicted at a recheck, to explain
// unresolved txs.
type mempools struct {
	mu     sync.Mutex
	size   map[string]float64
	counts map[string]*poolCounts
	// base: each node's counts when the phase began (mark), or when it
	// was first read after, for a node not read yet then.
	base map[string]results.Drops
}

// rejectedSeries counts txs a CometBFT mempool refused for lack of room:
// those answered "mempool is full", and those dropped silently after
// their CheckTx said OK because the mempool filled in the meantime.
const rejectedSeries = "cometbft_mempool_rejected_txs"

// evictedSeries counts txs a CometBFT mempool removed when a recheck after
// a block found them no longer valid (a sequence another tx took): their
// sender was told "accepted" and hears nothing more.
const evictedSeries = "cometbft_mempool_evicted_txs"

// poolCounts are a node's two counters, each summed over its restarts.
type poolCounts struct{ refused, evicted counter }

// sums are c's counts; none for a node that exported no counter (nil).
func (c *poolCounts) sums() results.Drops {
	if c == nil {
		return results.Drops{}
	}
	return results.Drops{Refused: c.refused.sum, Evicted: c.evicted.sum}
}

// counter sums a node's counter over restarts: a process started again
// counts from 0, so a reading below the last one is all new.
type counter struct{ last, sum float64 }

func (c *counter) read(v float64) {
	if v < c.last {
		c.sum += v
	} else {
		c.sum += v - c.last
	}
	c.last = v
}

func (m *mempools) tap(samples []observe.Sample) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.size == nil {
		m.size, m.counts = map[string]float64{}, map[string]*poolCounts{}
	}
	of := func(node string) *poolCounts {
		c := m.counts[node]
		if c == nil {
			c = &poolCounts{}
			m.counts[node] = c
		}
		return c
	}
	for _, s := range samples {
		switch s.Series {
		case "cometbft_mempool_size":
			m.size[s.Node] = s.Value
		case rejectedSeries:
			of(s.Node).refused.read(s.Value)
		case evictedSeries:
			of(s.Node).evicted.read(s.Value)
		}
	}
	for n := range m.size {
		if _, ok := m.base[n]; !ok && m.base != nil {
			m.base[n] = m.counts[n].sums()
		}
	}
}

// mark starts counting the nodes' refused and evicted txs from now. A
// node's count is 0 until it has counted one: go-kit exports a counter
// only from its first Add, so a node read (its mempool size) without one
// refused none.
func (m *mempools) mark() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.base = map[string]results.Drops{}
	for n := range m.size {
		m.base[n] = m.counts[n].sums()
	}
}

// dropped is how many txs the nodes' mempools refused and evicted since
// mark, and whether every node was read.
func (m *mempools) dropped(nodes []string) (results.Drops, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var d results.Drops
	for _, n := range nodes {
		b, based := m.base[n]
		if !based {
			return results.Drops{}, false
		}
		s := m.counts[n].sums()
		d.Refused += s.Refused - b.Refused
		d.Evicted += s.Evicted - b.Evicted
	}
	return d, len(nodes) > 0
}

// max is the largest mempool of any node, -1 when none was read.
func (m *mempools) max() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := -1.0
	for _, v := range m.size {
		out = max(out, v)
	}
	return out
}
