package evm

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/selfcost"
)

const (
	// maxPoolAnswer bounds one txpool_inspect answer (~150 bytes a tx:
	// the app mempool's 5,000 txs by default take ~0.75 MB).
	maxPoolAnswer = 16 << 20
	// maxPoolTimes bounds the times kept for the percentiles.
	maxPoolTimes = 1 << 20
)

// A poolWatch reads the application-side EVM mempool of each node the
// txs go to (txpool_inspect: its pending and queued txs by account and
// nonce) every interval while the load runs, and follows the load's txs
// in it: a tx a read names queued (a nonce gap before it) is timed from
// its node's answer until a read names it pending (an upper bound on
// its time queued, by up to an interval), and from then until a block
// holds it. This is the mempool's word; the answer's (a gap refusal,
// Queued) is counted beside it.
type poolWatch struct {
	urls  []string // a node's JSON-RPC server, by target
	every time.Duration
	index map[Address]int32
	http  *http.Client
	stop  context.CancelFunc
	done  chan struct{}

	mu       sync.Mutex
	txs      map[poolKey]*poolTx // the load's txs a node took, until their block
	stats    PoolStats
	readSum  time.Duration
	promoted []float64 // ms from answer to the read naming it pending
	pending  []float64 // ms from that read to the block
}

type poolKey struct {
	from  int32
	nonce uint64
}

type poolTx struct {
	node                int
	gap                 bool // answered with a nonce gap
	answered            time.Time
	queuedAt, pendingAt time.Time // the reads that first named it so
}

// PoolStats are what the pool watch read: the reads, the most of the
// load's txs one node's pool held queued and pending in a read, and the
// load's txs the pool named queued with their times (milliseconds).
type PoolStats struct {
	EveryMs      float64 `json:"every_ms"`
	Reads        int64   `json:"reads"`
	ReadFailed   int64   `json:"read_failed"`
	ReadMeanMs   float64 `json:"read_mean_ms"`
	FirstFailure string  `json:"first_failure,omitempty"`
	MostQueued   int     `json:"most_queued"`
	MostPending  int     `json:"most_pending"`
	// AnsweredGap: txs their node answered with a nonce gap (queued, on
	// the answer's word); SeenQueued: txs a read named queued (the
	// pool's), of which GapQueued were answered with a gap; Promoted: of
	// SeenQueued, named pending by a later read; Committed: of
	// SeenQueued, in a block.
	AnsweredGap int64 `json:"answered_gap"`
	SeenQueued  int64 `json:"seen_queued"`
	GapQueued   int64 `json:"gap_queued"`
	Promoted    int64 `json:"promoted"`
	Committed   int64 `json:"committed"`
	// To pending: from the node's answer to the read naming the tx
	// pending; then pending: from that read to the block.
	ToPendingP50 float64 `json:"to_pending_p50_ms"`
	ToPendingP99 float64 `json:"to_pending_p99_ms"`
	ToPendingMax float64 `json:"to_pending_max_ms"`
	PendingP50   float64 `json:"pending_p50_ms"`
	PendingP99   float64 `json:"pending_p99_ms"`
}

// startPool starts the watch over the nodes at urls (one per target).
func startPool(ctx context.Context, urls []string, every time.Duration, wallets []Wallet) *poolWatch {
	ctx, stop := context.WithCancel(ctx)
	p := &poolWatch{urls: urls, every: every, index: make(map[Address]int32, len(wallets)), http: nodehttp.Client(nodehttp.Query),
		stop: stop, done: make(chan struct{}), txs: map[poolKey]*poolTx{}}
	p.stats.EveryMs = ms(every)
	for i, w := range wallets {
		p.index[w.Address] = int32(i)
	}
	// Reading the nodes is observing them: its CPU is the observer's.
	go selfcost.Do(ctx, selfcost.Observer, p.run)
	return p
}

func (p *poolWatch) run(ctx context.Context) {
	defer close(p.done)
	tick := time.NewTicker(p.every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for node, url := range p.urls {
			if url == "" {
				continue
			}
			began := time.Now()
			pending, queued, err := p.inspect(ctx, url)
			if ctx.Err() != nil {
				return
			}
			p.read(node, began, time.Since(began), pending, queued, err)
		}
	}
}

// took says node took the tx at at (gap: answered with a nonce gap).
func (p *poolWatch) took(from int, nonce uint64, node int, gap bool, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.txs[poolKey{int32(from), nonce}] = &poolTx{node: node, gap: gap, answered: at}
	if gap {
		p.stats.AnsweredGap++
	}
}

// committed says a block held the tx (seen at at).
func (p *poolWatch) committed(from int, nonce uint64, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := poolKey{int32(from), nonce}
	t, ok := p.txs[k]
	if !ok {
		return
	}
	delete(p.txs, k)
	if t.queuedAt.IsZero() {
		return
	}
	p.stats.Committed++
	if !t.pendingAt.IsZero() && len(p.pending) < maxPoolTimes {
		p.pending = append(p.pending, ms(at.Sub(t.pendingAt)))
	}
}

// read takes in one node's pool as a read that began at began saw it.
func (p *poolWatch) read(node int, began time.Time, took time.Duration, pending, queued map[poolKey]bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Reads++
	p.readSum += took
	if err != nil {
		if p.stats.ReadFailed++; p.stats.FirstFailure == "" {
			p.stats.FirstFailure = err.Error()
		}
		return
	}
	p.stats.MostQueued = max(p.stats.MostQueued, len(queued))
	p.stats.MostPending = max(p.stats.MostPending, len(pending))
	for k := range queued {
		if t, ok := p.txs[k]; ok && t.node == node && t.queuedAt.IsZero() {
			t.queuedAt = began
			p.stats.SeenQueued++
			if t.gap {
				p.stats.GapQueued++
			}
		}
	}
	for k := range pending {
		t, ok := p.txs[k]
		if !ok || t.node != node || t.queuedAt.IsZero() || !t.pendingAt.IsZero() {
			continue
		}
		t.pendingAt = began
		p.stats.Promoted++
		if len(p.promoted) < maxPoolTimes {
			p.promoted = append(p.promoted, ms(began.Sub(t.answered)))
		}
	}
}

// Stop ends the watch and says what it saw.
func (p *poolWatch) Stop() PoolStats {
	p.stop()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	if s.Reads > 0 {
		s.ReadMeanMs = ms(p.readSum) / float64(s.Reads)
	}
	s.ToPendingP50, s.ToPendingP99, s.ToPendingMax = percentile(p.promoted, 0.5), percentile(p.promoted, 0.99), percentile(p.promoted, 1)
	s.PendingP50, s.PendingP99 = percentile(p.pending, 0.5), percentile(p.pending, 0.99)
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile is the q-th of xs by rank (0 when empty); it sorts xs.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	i := int(q*float64(len(xs))+0.5) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// inspect reads a node's txpool_inspect: the load's wallets' txs it holds
// pending and queued, by sender and nonce (other accounts' are in
// neither).
func (p *poolWatch) inspect(ctx context.Context, url string) (pending, queued map[poolKey]bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := post(ctx, p.http, url, []byte(`{"jsonrpc":"2.0","id":1,"method":"txpool_inspect","params":[]}`))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Result *struct {
			Pending map[string]map[string]json.RawMessage `json:"pending"`
			Queued  map[string]map[string]json.RawMessage `json:"queued"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, maxPoolAnswer)).Decode(&r); err != nil {
		return nil, nil, fmt.Errorf("%s txpool_inspect: not a JSON-RPC answer (HTTP %d): %w", url, resp.StatusCode, err)
	}
	if r.Error != nil {
		return nil, nil, fmt.Errorf("%s txpool_inspect: %s", url, clip([]byte(r.Error.Message), 200))
	}
	if r.Result == nil {
		return nil, nil, fmt.Errorf("%s txpool_inspect: no result", url)
	}
	if pending, err = p.keys(r.Result.Pending); err != nil {
		return nil, nil, fmt.Errorf("%s txpool_inspect: %w", url, err)
	}
	if queued, err = p.keys(r.Result.Queued); err != nil {
		return nil, nil, fmt.Errorf("%s txpool_inspect: %w", url, err)
	}
	return pending, queued, nil
}

// keys are the (sender, nonce) of the load's wallets in one status of an
// inspect answer: accounts as 0x and 40 hex digits, nonces in decimal.
func (p *poolWatch) keys(byAccount map[string]map[string]json.RawMessage) (map[poolKey]bool, error) {
	out := map[poolKey]bool{}
	for account, nonces := range byAccount {
		var a Address
		h, ok := strings.CutPrefix(account, "0x")
		if !ok || len(h) != 2*len(a) {
			return nil, fmt.Errorf("account %.50q is not 0x and 40 hex digits", account)
		}
		if _, err := hex.Decode(a[:], []byte(h)); err != nil {
			return nil, fmt.Errorf("account %.50q: %w", account, err)
		}
		from, ours := p.index[a]
		for n := range nonces {
			nonce, err := strconv.ParseUint(n, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("account %s: nonce %.30q is not a decimal number", account, n)
			}
			if ours {
				out[poolKey{from, nonce}] = true
			}
		}
	}
	return out, nil
}
