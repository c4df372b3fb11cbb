package traces

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/chainperf/chainperf/internal/printable"
)

// Bounds on what one node's spans may cost, whatever it sends.
const (
	maxTypes   = 64      // message types kept apart per node; the rest are "other"
	maxSamples = 10_000  // durations kept per figure: a uniform sample past it
	maxBlocks  = 50_000  // block-level spans kept per node
	maxTraces  = 4096    // traces whose tx spans wait for their root, per node
	maxPending = 1 << 16 // tx spans waiting for their trace's root, per node
	maxHeld    = 2 << 20 // durations held in all nodes (tens of MiB): past it, counted but not kept
	maxName    = 128     // bytes of a message type kept
	maxReasons = 8       // refusal reasons kept apart
	maxNodes   = 256     // service names kept apart; spans of more are counted and dropped
)

// The SDK's BaseApp span names (cosmos-sdk v0.54 baseapp).
const (
	spanRunTx    = "runTx"
	spanAnte     = "anteHandler"
	spanMsg      = "msgHandler"
	spanFinalize = "internalFinalizeBlock"
	spanCommit   = "Commit"
	spanPrepare  = "PrepareProposal"
	spanProcess  = "ProcessProposal"
)

// InBlock is the label of a tx's spans in a block's execution (the
// trace of internalFinalizeBlock); the others are the ABCI call's:
// ProcessProposal (a proposal's txs checked), PrepareProposal, CheckTx.
const InBlock = "FinalizeBlock"

// Durations are one kind of span's durations on one node.
type Durations struct {
	N       int
	Sum     time.Duration
	samples []float64 // ms; a uniform sample once N passes maxSamples
	rng     *rand.Rand
}

func (d *Durations) add(x time.Duration) {
	room := 1
	d.addIn(x, &room)
}

// addIn adds x, keeping its sample only while room (the aggregate's
// budget of durations held) lasts; the count and sum are exact.
func (d *Durations) addIn(x time.Duration, room *int) {
	d.N++
	d.Sum += x
	ms := float64(x) / 1e6
	if len(d.samples) < maxSamples {
		if *room > 0 {
			*room--
			d.samples = append(d.samples, ms)
		}
		return
	}
	if d.rng == nil {
		d.rng = rand.New(rand.NewPCG(1, 2))
	}
	if i := d.rng.IntN(d.N); i < maxSamples { // reservoir: each kept with chance maxSamples/N
		d.samples[i] = ms
	}
}

// Mean is the mean duration in ms (0 with none).
func (d *Durations) Mean() float64 {
	if d.N == 0 {
		return 0
	}
	return float64(d.Sum) / 1e6 / float64(d.N)
}

// Quantile is the q-quantile of the durations in ms, from the sample.
func (d *Durations) Quantile(q float64) float64 {
	if len(d.samples) == 0 {
		return 0
	}
	s := slices.Clone(d.samples)
	sort.Float64s(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// merge adds o's durations to d (the sample of both, cut to the bound).
func (d *Durations) merge(o *Durations) {
	d.N += o.N
	d.Sum += o.Sum
	d.samples = append(d.samples, o.samples...)
	if len(d.samples) > maxSamples {
		d.samples = d.samples[:maxSamples]
	}
}

// A BlockSpan is one block-level span of a node: FinalizeBlock's
// execution, Commit, or a proposal call (which alone says the height).
type BlockSpan struct {
	Name   string
	Start  time.Time
	Took   time.Duration
	Height int64 // from the span; 0 where it says none
}

// Node is what one node's spans said.
type Node struct {
	Name  string
	Spans int // received
	Cut   int // not kept: past a bound, or of a trace whose root never came
	// Msg is msgHandler by message type, in blocks (CheckTx and the
	// proposal calls run no handler).
	Msg map[string]*Durations
	// RunTx and Ante are the txs' runTx and anteHandler by the call they
	// ran under (InBlock, ProcessProposal, CheckTx, ...).
	RunTx, Ante map[string]*Durations
	Blocks      []BlockSpan

	room        *int                  // the aggregate's budget of durations held
	types       map[string]string     // message type names as sent, to their one copy
	pending     map[[16]byte]*txSpans // by trace: until its root comes
	pendingSize int                   // durations pending
}

// txSpans are a trace's tx spans, held until the trace's root says what
// call they ran under (a child ends, and is sent, before its parent).
type txSpans struct {
	runTx, ante []time.Duration
	msgs        []typed
}

type typed struct {
	msgType string
	took    time.Duration
}

// An Aggregate is what every node's spans said.
type Aggregate struct {
	mu      sync.Mutex
	nodes   map[string]*Node
	order   []string
	unknown int            // spans past maxNodes names, or with no name
	room    int            // durations that may still be held, in all nodes
	refused map[string]int // requests not taken, by reason
}

// NewAggregate keeps spans by their service name, which chainperf sets
// to the node's name.
func NewAggregate() *Aggregate {
	return &Aggregate{nodes: map[string]*Node{}, refused: map[string]int{}, room: maxHeld}
}

// node is the node named, made on its first span; nil past maxNodes.
// The caller holds a.mu.
func (a *Aggregate) node(name string) *Node {
	name = printable.Line(clip(name))
	if n := a.nodes[name]; n != nil {
		return n
	}
	if name == "" || len(a.nodes) >= maxNodes {
		return nil
	}
	n := &Node{Name: name, Msg: map[string]*Durations{}, RunTx: map[string]*Durations{}, Ante: map[string]*Durations{},
		pending: map[[16]byte]*txSpans{}, room: &a.room, types: map[string]string{}}
	a.nodes[name] = n
	a.order = append(a.order, name)
	return n
}

func (a *Aggregate) refuse(reason string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.refused[reason]; !ok && len(a.refused) >= maxReasons {
		reason = "other"
	}
	a.refused[printable.Line(clip(reason))]++
}

// Nodes are the nodes in the order their first spans came.
func (a *Aggregate) Nodes() []*Node {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*Node
	for _, n := range a.order {
		out = append(out, a.nodes[n])
	}
	return out
}

func (n *Node) add(s *tracepb.Span) {
	n.Spans++
	took := time.Duration(s.EndTimeUnixNano - s.StartTimeUnixNano)
	if s.EndTimeUnixNano < s.StartTimeUnixNano || took > time.Hour {
		n.Cut++
		return
	}
	root := len(s.ParentSpanId) == 0
	switch s.Name {
	case spanMsg, spanRunTx, spanAnte:
		tr := n.held(s.TraceId)
		if tr == nil {
			n.Cut++
			break
		}
		n.pendingSize++
		*n.room--
		switch s.Name {
		case spanMsg:
			tr.msgs = append(tr.msgs, typed{n.intern(attrString(s.Attributes, "msg_type")), took})
		case spanRunTx:
			tr.runTx = append(tr.runTx, took)
		case spanAnte:
			tr.ante = append(tr.ante, took)
		}
	case spanFinalize, spanCommit, spanPrepare, spanProcess:
		if len(n.Blocks) >= maxBlocks || *n.room <= 0 {
			n.Cut++
			break
		}
		*n.room--
		n.Blocks = append(n.Blocks, BlockSpan{Name: s.Name, Start: time.Unix(0, int64(s.StartTimeUnixNano)), Took: took,
			Height: attrInt(s.Attributes, "height")})
	}
	if root {
		n.resolve(s)
	}
}

// held is the trace's pending tx spans; nil past the bounds.
func (n *Node) held(trace []byte) *txSpans {
	if n.pendingSize >= maxPending || *n.room <= 0 {
		return nil
	}
	id := traceID(trace)
	if tr := n.pending[id]; tr != nil {
		return tr
	}
	if len(n.pending) >= maxTraces {
		return nil
	}
	tr := &txSpans{}
	n.pending[id] = tr
	return tr
}

// resolve files a trace's tx spans under what its root says: a block's
// execution, a proposal call, CheckTx (a root runTx is a tx entering the
// mempool with no span around it).
func (n *Node) resolve(root *tracepb.Span) {
	id := traceID(root.TraceId)
	tr := n.pending[id]
	if tr == nil {
		return
	}
	delete(n.pending, id)
	held := len(tr.runTx) + len(tr.ante) + len(tr.msgs)
	n.pendingSize -= held
	*n.room += held
	label := printable.Line(clip(root.Name))
	switch root.Name {
	case spanFinalize:
		label = InBlock
		for _, m := range tr.msgs {
			keyed(n.Msg, m.msgType).addIn(m.took, n.room)
		}
	case spanRunTx:
		label = "CheckTx"
	}
	for _, d := range tr.runTx {
		keyed(n.RunTx, label).addIn(d, n.room)
	}
	for _, d := range tr.ante {
		keyed(n.Ante, label).addIn(d, n.room)
	}
}

// intern is the node's one copy of a message type's name, escaped and
// clipped; past maxTypes names, "other" (a node cannot make chainperf
// hold a new string a span).
func (n *Node) intern(msgType string) string {
	if t, ok := n.types[msgType]; ok {
		return t
	}
	if len(n.types) >= maxTypes {
		return "other"
	}
	t := printable.Line(clip(msgType))
	n.types[strings.Clone(msgType)] = t
	return t
}

// keyed is m's durations under key, made if new; past maxTypes keys,
// "other".
func keyed(m map[string]*Durations, key string) *Durations {
	d := m[key]
	if d == nil {
		if len(m) >= maxTypes {
			key = "other"
			d = m[key]
		}
		if d == nil {
			d = &Durations{}
			m[key] = d
		}
	}
	return d
}

// Unresolved counts the tx spans still waiting for their trace's root.
func (n *Node) Unresolved() int { return n.pendingSize }

func traceID(b []byte) (id [16]byte) {
	copy(id[:], b)
	return id
}

func clip(s string) string {
	if len(s) > maxName {
		return s[:maxName] + "..."
	}
	return s
}

func serviceName(rs *tracepb.ResourceSpans) string {
	if rs.Resource == nil {
		return ""
	}
	return attrString(rs.Resource.Attributes, "service.name")
}

func countSpans(rs *tracepb.ResourceSpans) int {
	n := 0
	for _, ss := range rs.ScopeSpans {
		n += len(ss.Spans)
	}
	return n
}

func attrString(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

func attrInt(kvs []*commonpb.KeyValue, key string) int64 {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.GetValue().GetIntValue()
		}
	}
	return 0
}
