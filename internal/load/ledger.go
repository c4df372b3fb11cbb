package load

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Fate is what finally happened to a tx. The values are also the JSON and
// database values.
type Fate string

const (
	FateSendError       Fate = "send_error"       // the request failed: no answer from the node
	FateRejected        Fate = "rejected"         // the node said no (CheckTx code != 0, mempool full)
	FateCommitted       Fate = "committed"        // in a block, result code 0
	FateCommittedFailed Fate = "committed_failed" // in a block, result code != 0
	FateUnresolved      Fate = "unresolved"       // accepted, never seen in a block before the drain ended
)

// Fates lists every fate in report order.
var Fates = []Fate{FateCommitted, FateCommittedFailed, FateRejected, FateSendError, FateUnresolved}

// Hash is a tx hash as CometBFT computes it: sha256 of the tx bytes.
type Hash [sha256.Size]byte

// A TxResult is what a block's results say of one tx.
type TxResult struct {
	Code uint32
	Gas  int64  // gas used; 0 for apps that do not count it
	Log  string // why it failed (code != 0)
	// Reverted is why an EVM tx failed in its block with code 0 (receipt
	// status 0: the VM's error, e.g. "execution reverted").
	Reverted string
}

// OK says whether the tx did what it asked: code 0 and not reverted.
func (r TxResult) OK() bool { return r.Code == 0 && r.Reverted == "" }

// Outcome is how a send ended, as far as the sender can tell.
type Outcome uint8

const (
	Accepted  Outcome = iota // the node took the tx into its mempool (or said it did)
	Rejected                 // the node answered with an error or CheckTx code != 0
	SendError                // no usable answer
	// Queued: the node answered a refusal but holds the tx in a queue of
	// its own (an EVM application-side mempool's nonce gap, Queuer), to
	// be proposed once the gap fills; the ledger counts it accepted and
	// follows it to its block.
	Queued
)

// pending is a tx whose fate is not final yet.
type pending struct {
	intended time.Duration // since the ledger's start
	sent     bool          // the send has finished
	outcome  Outcome
	height   int64 // > 0 once seen in a block
	code     uint32
	// noResult: seen in a block whose results could not be read, so its
	// code is not known; it stays unresolved, with that reason.
	noResult bool
	queued   bool // answered Queued
}

// waits says whether the tx counts in Unresolved: accepted, and a block
// with its result may still come.
func (p *pending) waits() bool {
	return p.sent && p.outcome == Accepted && !p.noResult && p.height == 0
}

// A Ledger follows every tx of a run from its intended time to its fate.
// Per-tx state lives only until the fate is final; everything else is
// aggregated into counters and HDR histograms, so memory stays flat in the
// length of a run. Track false (a sink, or no block follower) keeps no
// per-tx state: accepted txs then end as unresolved.
type Ledger struct {
	start time.Time
	track bool

	mu       sync.Mutex
	pend     map[Hash]pending // by value: a tx costs no allocation of its own
	fates    map[Fate]int64
	sent     int64
	accepted int64
	queued   int64 // of accepted, the ones answered Queued
	// queuedLost: of the unresolved, the ones answered Queued.
	queuedLost int64
	// repeats: sends whose tx had the bytes of one still without a fate
	// (Begin found its hash pending).
	repeats  int64
	rejected int64
	failed   int64                     // sends that got no usable answer
	reasons  map[string]int64          // rejection and send-error reasons
	inBlock  map[int64][]time.Duration // intended times of txs per height, until the next block's time is known
	lag      *hdrhistogram.Histogram   // send start - intended, µs
	latency  *hdrhistogram.Histogram   // first seen in a block - intended, µs
	incl     *hdrhistogram.Histogram   // CometBFT QA: time of block H+1 - intended, µs
	perSec   []Second
	closed   bool
	// waiting: accepted txs not seen in a block yet (Unresolved), kept as
	// a count so the drain's question costs nothing.
	waiting int64
	// npend is len(pend), kept so that senders can ask whether the ledger
	// is full without taking its lock; maxPending bounds it (each tx
	// ~150 B, measured with 1,000,000 in the map).
	npend      atomic.Int64
	maxPending int

	// The measured window (by block-seen time since start) and the
	// latency of the txs committed in it: the rates' window, so that
	// latency and throughput describe the same seconds.
	winFrom, winTo time.Duration
	winLat         *hdrhistogram.Histogram
	// The second being filled and the latency of its commits; its
	// percentiles go into perSec when a later second begins.
	secAt  int
	secLat *hdrhistogram.Histogram
	// secHists, when kept (KeepSeconds), holds each past second's latency
	// histogram, for a merge.
	secHists map[int]*hdrhistogram.Histogram
}

// A Second holds what happened in one second of the run, by send time for
// sends and by block-seen time for commits.
type Second struct {
	Sent      int64 `json:"sent"`
	Accepted  int64 `json:"accepted"`
	Rejected  int64 `json:"rejected"`
	SendError int64 `json:"send_error"`
	Committed int64 `json:"committed"`        // in a block with result code 0
	Failed    int64 `json:"failed,omitempty"` // in a block with a result code != 0
	// Unresolved: txs due in this second that ended unresolved (counted
	// when the drain ends), so that what happened meanwhile can explain them.
	Unresolved int64 `json:"unresolved,omitempty"`
	// Latency percentiles (ms) of the txs seen committed in this second:
	// the per-second samples compare's test takes (0 when none).
	LatencyP50 float64 `json:"latency_p50_ms,omitempty"`
	LatencyP99 float64 `json:"latency_p99_ms,omitempty"`
}

// Add adds o's counts to s (not its latency percentiles: those of parts
// do not add up).
func (s *Second) Add(o Second) {
	s.Sent += o.Sent
	s.Accepted += o.Accepted
	s.Rejected += o.Rejected
	s.SendError += o.SendError
	s.Committed += o.Committed
	s.Failed += o.Failed
	s.Unresolved += o.Unresolved
}

// NewLedger returns a ledger whose time zero is start.
func NewLedger(start time.Time, track bool) *Ledger {
	return &Ledger{
		start:   start,
		track:   track,
		pend:    map[Hash]pending{},
		fates:   map[Fate]int64{},
		reasons: map[string]int64{},
		inBlock: map[int64][]time.Duration{},
		lag:     hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3),
		latency: hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3),
		incl:    hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3),
		winLat:  hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3),
		// Per-second samples need less precision: 2 digits, ms.
		secLat:     hdrhistogram.New(1, int64(time.Hour/time.Millisecond), 2),
		secAt:      -1,
		winTo:      1<<63 - 1,
		maxPending: DefaultMaxPending,
	}
}

// DefaultMaxPending: txs in flight or waiting for a block at most, ~150
// MB of ledger; a node that takes txs and never commits them stops the
// run there instead of growing the harness without bound.
const DefaultMaxPending = 1_000_000

// ErrTooManyPending: the ledger holds its cap of txs without a fate.
var ErrTooManyPending = errors.New("too many unresolved txs")

// SetMaxPending sets the cap on txs without a final fate (0: the default).
func (l *Ledger) SetMaxPending(n int) {
	l.mu.Lock()
	l.maxPending = cmp.Or(n, DefaultMaxPending)
	l.mu.Unlock()
}

// SetWindow sets the measured window, as offsets from the start: the
// window's latency percentiles count txs seen committed inside it. Without
// it, the window is the whole run.
func (l *Ledger) SetWindow(from, to time.Duration) {
	l.mu.Lock()
	l.winFrom, l.winTo = from, to
	l.mu.Unlock()
}

// flushSecond writes the percentiles of the second being filled into
// perSec and starts at second at.
func (l *Ledger) flushSecond(at int) {
	if l.secAt >= 0 && l.secLat.TotalCount() > 0 {
		s := l.second(time.Duration(l.secAt) * time.Second)
		s.LatencyP50 = float64(l.secLat.ValueAtQuantile(50))
		s.LatencyP99 = float64(l.secLat.ValueAtQuantile(99))
		if l.secHists != nil {
			h := hdrhistogram.New(l.secLat.LowestTrackableValue(), l.secLat.HighestTrackableValue(), int(l.secLat.SignificantFigures()))
			h.Merge(l.secLat)
			l.secHists[l.secAt] = h
		}
	}
	l.secLat.Reset()
	l.secAt = at
}

// record counts v in h, at h's top when above it: a latency of more
// than an hour still counts (as an hour), it is not lost.
func record(h *hdrhistogram.Histogram, v int64) {
	_ = h.RecordValue(min(max(0, v), h.HighestTrackableValue()))
}

// Start is the ledger's time zero.
func (l *Ledger) Start() time.Time { return l.start }

func (l *Ledger) second(d time.Duration) *Second {
	i := max(0, int(d/time.Second))
	for len(l.perSec) <= i {
		l.perSec = append(l.perSec, Second{})
	}
	return &l.perSec[i]
}

// Full says, as an error, that the ledger holds its cap of txs without a
// fate: the run must stop sending (senders ask before a request, so the
// cap may be passed by the requests being made at that moment).
func (l *Ledger) Full() error {
	if l.npend.Load() < int64(l.maxPending) {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Errorf("%w: %d sent txs have no fate yet (%d accepted and waiting for a block): the nodes are not keeping up; lower the rate, or raise load.max_pending (about 150 B a tx)",
		ErrTooManyPending, len(l.pend), l.waiting)
}

// Begin registers a tx before its send, so that a block that holds it can
// never arrive before the ledger knows it.
func (l *Ledger) Begin(h Hash, intended time.Duration) {
	if !l.track {
		return
	}
	l.mu.Lock()
	if _, again := l.pend[h]; !again {
		l.npend.Add(1)
	} else {
		l.repeats++
	}
	l.pend[h] = pending{intended: intended}
	l.mu.Unlock()
}

// drop forgets a tx whose fate is final (mu held).
func (l *Ledger) drop(h Hash) {
	delete(l.pend, h)
	l.npend.Add(-1)
}

// neverArrived says whether a send error shows the request never reached
// the node (no connection), so that the tx cannot be in a block.
func neverArrived(reason string) bool {
	return strings.Contains(reason, "connection refused") || strings.Contains(reason, "dial") ||
		strings.Contains(reason, "no route to host") || strings.Contains(reason, "no free connections")
}

// Sent records how the send of a tx ended: when it started (for the lag),
// its outcome and, for a rejection or error, the reason.
func (l *Ledger) Sent(h Hash, intended time.Duration, started time.Time, o Outcome, reason string) {
	lag := started.Sub(l.start) - intended
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent++
	queued := o == Queued
	if queued {
		l.queued++
		o = Accepted
	}
	record(l.lag, int64(lag/time.Microsecond))
	sec := l.second(started.Sub(l.start))
	sec.Sent++
	switch o {
	case Accepted:
		l.accepted++
		sec.Accepted++
	case Rejected:
		l.rejected++
		sec.Rejected++
		l.reasons[reasonKey(reason)]++
	case SendError:
		l.failed++
		sec.SendError++
		l.reasons["send error: "+reasonKey(reason)]++
	}
	p, ok := l.pend[h]
	if !l.track || !ok {
		switch o {
		case Rejected:
			l.fates[FateRejected]++
		case SendError:
			l.fates[FateSendError]++
		case Accepted:
			if !l.track {
				l.fates[FateUnresolved]++
			}
		}
		return
	}
	p.sent, p.outcome, p.queued = true, o, queued
	switch {
	case p.height > 0: // a block already held it
		l.drop(h)
		return
	case o == Rejected: // final: the node does not hold it
		l.fates[FateRejected]++
		l.drop(h)
		return
	case o == SendError && neverArrived(reason): // final: no node saw it
		l.fates[FateSendError]++
		l.drop(h)
		return
	case p.waits():
		l.waiting++
	}
	// Accepted txs wait for a block; failed sends too, since a node may
	// have taken a tx whose answer was lost.
	l.pend[h] = p
}

// Committed records that a tx was seen in block height with result r,
// first seen at seen (a failed one with its reason). It reports whether
// the tx is one of this ledger's.
func (l *Ledger) Committed(h Hash, height int64, r TxResult, seen time.Time) (latency time.Duration, ours bool) {
	code := r.Code
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.pend[h]
	if !ok || p.height > 0 {
		return 0, false
	}
	if p.waits() {
		l.waiting--
	}
	p.height, p.code = height, code
	at := seen.Sub(l.start)
	latency = max(0, at-p.intended)
	switch {
	case r.OK():
		l.fates[FateCommitted]++
		l.second(at).Committed++
	case code == 0:
		l.fates[FateCommittedFailed]++
		l.second(at).Failed++
		l.reasons["in block: reverted ("+reasonKey(r.Reverted)+")"]++
	default:
		l.fates[FateCommittedFailed]++
		l.second(at).Failed++
		l.reasons["in block: "+codeKey(strconv.FormatUint(uint64(code), 10), r.Log)]++
	}
	record(l.latency, int64(latency/time.Microsecond))
	if at >= l.winFrom && at < l.winTo {
		record(l.winLat, int64(latency/time.Microsecond))
	}
	// Blocks are seen in order, so a second's commits come together; a
	// late one (a slow read) joins the second being filled.
	if sec := max(0, int(at/time.Second)); sec > l.secAt {
		l.flushSecond(sec)
	}
	record(l.secLat, max(1, int64(latency/time.Millisecond)))
	l.inBlock[height] = append(l.inBlock[height], p.intended)
	if p.sent {
		l.drop(h)
	} else {
		l.pend[h] = p // its send has not finished: Sent drops it
	}
	return latency, true
}

// NoResult records that a tx was seen in a block whose results could not
// be read: it is not assumed committed (its code may be a failure) and
// ends unresolved with that reason. It reports whether the tx is ours.
func (l *Ledger) NoResult(h Hash) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.pend[h]
	if !ok || p.height > 0 {
		return false
	}
	if p.waits() {
		l.waiting-- // it will never be seen with a result: nothing to wait for
	}
	p.noResult = true
	l.pend[h] = p
	return true
}

// Pending says whether the tx of hash h is the ledger's and in no block
// yet (a tx the follower must keep from a block it reads).
func (l *Ledger) Pending(h Hash) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.pend[h]
	return ok && p.height == 0
}

// BlockTime records the header time of block height; it completes the
// CometBFT QA latency (time of block H+1 - send time) of the txs in H-1.
func (l *Ledger) BlockTime(height int64, t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	at := t.Sub(l.start)
	for _, intended := range l.inBlock[height-1] {
		record(l.incl, int64((at-intended)/time.Microsecond))
	}
	delete(l.inBlock, height-1)
}

// Refusals returns how many txs were sent and how many of them the nodes
// refused so far: cheap enough to ask once a block.
func (l *Ledger) Refusals() (sent, rejected int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sent, l.rejected
}

// Unresolved is how many accepted txs wait for a block.
func (l *Ledger) Unresolved() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(l.waiting)
}

// Waits reports whether h is one of this ledger's txs that a node
// accepted and no block has held yet.
func (l *Ledger) Waits(h Hash) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.pend[h]
	return ok && p.waits()
}

// Close ends the drain: txs not seen in a block get their final fate
// (unresolved if accepted, send_error if the send failed).
func (l *Ledger) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	l.waiting = 0
	for h, p := range l.pend {
		if p.height > 0 {
			continue
		}
		switch {
		case p.noResult:
			l.fates[FateUnresolved]++
			l.reasons["unresolved: in a block whose results could not be read"]++
		case p.outcome == SendError:
			l.fates[FateSendError]++
		default:
			l.fates[FateUnresolved]++
			l.second(p.intended).Unresolved++
			if p.queued {
				l.queuedLost++
			}
		}
		l.drop(h)
	}
}

// telling are refusals whose kind ("invalid request") says less than
// their words: the Cosmos SDK's answers to unordered txs, Cosmos EVM's to
// EVM txs.
var telling = []struct{ has, key string }{
	{"timeout_timestamp that has already passed", "timeout (unordered tx expired)"},
	{"failed to add unordered nonce", "duplicate (unordered tx seen before)"},
	// Cosmos EVM's answers to EVM txs
	{"invalid chain id for signer", "wrong EVM chain ID"},
	{"incorrect chain-id", "wrong EVM chain ID"},
	{"tx nonce is lower than account nonce", "nonce too low"},
	{"tx nonce is higher than account nonce", "nonce too high (a gap)"},
	{"max fee per gas less than block base fee", "fee cap below the base fee"},
	{"is lower than the base fee", "fee cap below the base fee"}, // v0.7's mempool
}

// reasonKey shortens an error message to its kind, so that "mempool is
// full: number of txs 5000 (max: 5000)" counts with its peers.
// A CheckTx refusal keeps its code and the last part of its log, where the
// Cosmos SDK writes the error's kind ("...: insufficient funds").
func reasonKey(s string) string {
	if rest, ok := strings.CutPrefix(s, "CheckTx code "); ok {
		code, log, _ := strings.Cut(rest, ": ")
		return "CheckTx " + codeKey(code, log)
	}
	for _, t := range telling { // a JSON-RPC error's message
		if strings.Contains(s, t.has) {
			return t.key
		}
	}
	if i := strings.IndexAny(s, ":("); i > 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// codeKey is "code N: kind" of a result code and its log: the last part
// of the log, where the Cosmos SDK writes the error's kind, or what a
// telling refusal says.
func codeKey(code, log string) string {
	for _, t := range telling {
		if strings.Contains(log, t.has) {
			return "code " + code + ": " + t.key
		}
	}
	if i := strings.LastIndex(log, ": "); i >= 0 {
		log = log[i+2:]
	}
	if log = strings.TrimSpace(log); len(log) > 60 || strings.ContainsAny(log, "0123456789") {
		log = "" // a detail, not a kind
	}
	if log == "" {
		return "code " + code
	}
	return "code " + code + ": " + log
}
