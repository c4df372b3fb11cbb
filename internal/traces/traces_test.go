package traces

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/chainperf/chainperf/internal/finding"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// sp is a span of trace tr with id and parent (0: a root), starting at
// ms after t0 and lasting took ms.
func sp(name string, tr, id, parent byte, at, took float64, attrs ...*commonpb.KeyValue) *tracepb.Span {
	s := &tracepb.Span{Name: name, TraceId: bytes.Repeat([]byte{tr}, 16), SpanId: bytes.Repeat([]byte{id}, 8),
		StartTimeUnixNano: uint64(t0.Add(time.Duration(at * 1e6)).UnixNano()), Attributes: attrs}
	s.EndTimeUnixNano = s.StartTimeUnixNano + uint64(took*1e6)
	if parent != 0 {
		s.ParentSpanId = bytes.Repeat([]byte{parent}, 8)
	}
	return s
}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func num(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}

// export is one node's export request of spans.
func export(t testing.TB, node string, spans ...*tracepb.Span) []byte {
	t.Helper()
	b, err := proto.Marshal(&tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource:   &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", node)}},
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func post(t *testing.T, url string, body []byte, header ...string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// block is the spans of a validator's height h as the SDK sends them:
// the proposal checked (its tx run in ProcessProposal mode), then the
// block executed (two txs, a send and a vote), a child before its parent,
// the block's own span in a later request.
func block(h int64, tr byte, at float64) (first, later []*tracepb.Span) {
	first = []*tracepb.Span{
		sp("anteHandler", tr+1, 12, 11, at, 0.2),
		sp("runTx", tr+1, 11, 10, at, 0.5),
		sp("ProcessProposal", tr+1, 10, 0, at, 1, num("height", h)),
		sp("anteHandler", tr, 3, 2, at+2, 1),
		sp("msgHandler", tr, 5, 4, at+3, 2, str("msg_type", "/cosmos.bank.v1beta1.MsgSend")),
		sp("runMsgs", tr, 4, 2, at+3, 2),
		sp("runTx", tr, 2, 1, at+2, 3.5),
		sp("anteHandler", tr, 7, 6, at+6, 1),
		sp("msgHandler", tr, 9, 8, at+7, 5, str("msg_type", "/cosmos.gov.v1.MsgVote")),
		sp("runMsgs", tr, 8, 6, at+7, 5),
		sp("runTx", tr, 6, 1, at+6, 6.5),
	}
	later = []*tracepb.Span{sp("Commit", tr, 13, 1, at+13, 3), sp("internalFinalizeBlock", tr, 1, 0, at+2, 12)}
	return first, later
}

func TestSpansJoinedToTheirCall(t *testing.T) {
	r, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	first, later := block(7, 1, 0)
	// A tx entering the mempool: its runTx is a trace's root.
	first = append(first, sp("anteHandler", 30, 21, 20, 0, 0.4), sp("runTx", 30, 20, 0, 0, 0.6))
	if code := post(t, r.URL(), export(t, "validator0", first...)); code != http.StatusOK {
		t.Fatalf("export: %d", code)
	}
	a := r.agg
	n := a.Nodes()[0]
	if len(n.Msg) != 0 || n.Unresolved() != 6 {
		t.Fatalf("before the block's span: msgs %v, %d waiting; want none filed, 6 waiting", n.Msg, n.Unresolved())
	}
	if code := post(t, r.URL(), export(t, "validator0", later...)); code != http.StatusOK {
		t.Fatalf("export: %d", code)
	}
	r.Close()
	if n.Unresolved() != 0 || n.RunTx[InBlock].N != 2 || n.RunTx["ProcessProposal"].N != 1 || n.RunTx["CheckTx"].N != 1 ||
		n.Ante[InBlock].N != 2 || n.Ante["CheckTx"].N != 1 || n.Msg["/cosmos.gov.v1.MsgVote"].Mean() != 5 {
		t.Fatalf("runTx %v, ante %v, msgs %v, waiting %d", n.RunTx, n.Ante, n.Msg, n.Unresolved())
	}
	f := Finding(a, "none")
	want := map[string]float64{
		Execution:                                    12,
		Execution + ": ante handlers":                2,
		Execution + ": /cosmos.gov.v1.MsgVote":       5,
		Execution + ": /cosmos.bank.v1beta1.MsgSend": 2,
		Execution + ": rest":                         3,
		"app commit per block":                       3,
		"ante share of a tx's execution":             0.2,
	}
	for name, v := range want {
		if x, ok := f.Figure(name); !ok || x.Value != v {
			t.Errorf("%s: %+v, want %g", name, x, v)
		}
	}
	if x, _ := f.Figure(Execution + ": /cosmos.gov.v1.MsgVote"); x.PartOf != Execution {
		t.Errorf("a message type's time is not a part of the execution: %+v", x)
	}
	if len(f.Charts) != 1 || len(f.Charts[0].X) != 1 || f.Charts[0].X[0] != 7 || f.Charts[0].Lines[0].Values[0] != 12 {
		t.Errorf("chart by height %+v", f.Charts)
	}
	if s := f.Summary[0].Text; !strings.Contains(s, "execution 12 ms a block (ante handlers 2, MsgVote 5, MsgSend 2), commit 3 ms; MsgVote 5 ms a message") {
		t.Errorf("summary %q", s)
	}
}

// TestHeightsFromTheProposalCalls: a validator's FinalizeBlock takes the
// height its last proposal call said; a full node (no proposal call)
// gives none.
func TestHeightsFromTheProposalCalls(t *testing.T) {
	a := NewAggregate()
	for i, tr := range []byte{1, 40, 80} {
		first, later := block(int64(10+i), tr, float64(1000*i))
		a.Add(export(t, "validator0", append(first, later...)...))
		a.Add(export(t, "full0", later...))
	}
	hs := byHeight(a.Nodes())
	if len(hs) != 3 || hs[0].h != 10 || hs[2].h != 12 || hs[1].exec.N != 1 || hs[1].commit.N != 1 {
		t.Fatalf("heights %+v", hs)
	}
	f := Finding(a, "none")
	if x, _ := f.Figure(Execution); x.Value != 12 { // both nodes' blocks
		t.Errorf("execution %+v", x)
	}
}

func TestHostileExports(t *testing.T) {
	r, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ok := export(t, "validator0", sp("msgHandler", 1, 2, 3, 0, 1, str("msg_type", "/x.Msg\x1b[2J<b>bold</b>")), sp("runMsgs", 1, 3, 4, 0, 1),
		sp("internalFinalizeBlock", 1, 4, 0, 0, 2))
	var zipped bytes.Buffer
	z := gzip.NewWriter(&zipped)
	z.Write(ok)
	z.Close()
	for _, c := range []struct {
		name   string
		body   []byte
		header []string
		code   int
	}{
		{"json", []byte(`{}`), []string{"Content-Type", "application/json"}, http.StatusUnsupportedMediaType},
		{"not protobuf", []byte("\xff\xff\xff"), nil, http.StatusBadRequest},
		{"too big", make([]byte, maxBody+10), nil, http.StatusBadRequest},
		{"bad gzip", []byte("not gzip"), []string{"Content-Encoding", "gzip"}, http.StatusBadRequest},
		{"unknown encoding", ok, []string{"Content-Encoding", "br"}, http.StatusBadRequest},
		{"gzip", zipped.Bytes(), []string{"Content-Encoding", "gzip"}, http.StatusOK},
	} {
		if code := post(t, r.URL(), c.body, c.header...); code != c.code {
			t.Errorf("%s: %d, want %d", c.name, code, c.code)
		}
	}
	// More service names than a run has nodes: counted, not kept.
	for i := range maxNodes + 5 {
		r.agg.Add(export(t, fmt.Sprintf("n%d", i), sp("Commit", 1, 1, 0, 0, 1)))
	}
	// A trace whose root never comes: its spans wait, then count as not kept.
	r.agg.Add(export(t, "validator0", sp("runTx", 9, 1, 2, 0, 1)))
	f := Finding(r.agg, "none")
	if len(r.agg.Nodes()) != maxNodes || r.agg.unknown != 6 {
		t.Errorf("%d nodes, %d spans from unknown names", len(r.agg.Nodes()), r.agg.unknown)
	}
	text := f.Note + fmt.Sprint(f.Tables)
	for _, want := range []string{`/x.Msg\x1b[2J<b>bold</b>`, "7 not kept", "content type application/json (1)", "not OTLP protobuf (1)", "gzip"} {
		if !strings.Contains(text, want) {
			t.Errorf("finding lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b") {
		t.Errorf("a control character printed as it came:\n%q", text)
	}
}

// Spans of txs entering the mempool only: the summary says no block's
// execution came, and gives no block figure.
func TestNoBlockAmongTheSpans(t *testing.T) {
	a := NewAggregate()
	a.Add(export(t, "validator0", sp("anteHandler", 3, 2, 1, 0, 0.4), sp("runTx", 3, 1, 0, 0, 0.6)))
	f := Finding(a, "none")
	if _, ok := f.Figure(Execution); ok || !strings.Contains(f.Summary[0].Text, "none of a block's execution") {
		t.Fatalf("%+v", f)
	}
}

func TestMemoryBounded(t *testing.T) {
	a := NewAggregate()
	a.room = 100
	var spans []*tracepb.Span
	for i := range 300 {
		spans = append(spans, sp("Commit", 1, byte(i), 0, float64(i), 1))
	}
	a.Add(export(t, "validator0", spans...))
	n := a.Nodes()[0]
	if len(n.Blocks) != 100 || n.Cut != 200 || a.room != 0 {
		t.Fatalf("%d blocks kept, %d cut, room %d", len(n.Blocks), n.Cut, a.room)
	}
	// Past the budget, a figure still counts every span: only samples go.
	var d Durations
	room := 2
	for range 5 {
		d.addIn(time.Millisecond, &room)
	}
	if d.N != 5 || d.Mean() != 1 || len(d.samples) != 2 {
		t.Fatalf("%d, mean %g, %d samples", d.N, d.Mean(), len(d.samples))
	}
}

func TestNoSpans(t *testing.T) {
	f := Finding(NewAggregate(), "the chain has no tracing")
	if !strings.Contains(f.Note, "No spans arrived: the chain has no tracing.") || len(f.Figures) != 0 {
		t.Fatalf("%+v", f)
	}
	if f := NotAsked("kvstore sends none"); f.Source != Source || !strings.Contains(f.Note, "kvstore sends none") {
		t.Fatalf("%+v", f)
	}
	var _ finding.Finding = f
}

func FuzzAdd(f *testing.F) {
	first, later := block(3, 1, 0)
	f.Add(export(f, "validator0", append(first, later...)...))
	f.Add(export(f, "", sp("msgHandler", 1, 1, 2, 0, -1)))
	f.Add([]byte{0x0a, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, body []byte) {
		a := NewAggregate()
		a.Add(body) //nolint:errcheck // any input: only a panic fails
		Finding(a, "none")
	})
}
