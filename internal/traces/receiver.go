// Package traces receives the application's own OpenTelemetry spans (a
// Cosmos SDK v0.54+ node's BaseApp: runTx, anteHandler, msgHandler by
// message type, internalFinalizeBlock, Commit) over OTLP/HTTP on loopback
// and keeps what a run needs of them: time per message type, ante against
// handler, execution and commit per height. Everything a node sends is
// input: bodies, names, counts and samples are bounded, and what was cut
// is counted.
package traces

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Path is where the nodes send their spans (OTLP/HTTP's own path).
const Path = "/v1/traces"

// maxBody bounds one export request, after decompression: the SDK's
// batches are 512 spans by default, well under 1 MiB.
const maxBody = 8 << 20

// A Receiver takes the nodes' span exports and keeps them by node.
type Receiver struct {
	ln  net.Listener
	srv *http.Server
	agg *Aggregate
}

// Listen starts a receiver on loopback.
func Listen() (*Receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("traces: %w", err)
	}
	r := &Receiver{ln: ln, agg: NewAggregate()}
	mux := http.NewServeMux()
	mux.HandleFunc(Path, r.export)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second}
	go r.srv.Serve(ln) //nolint:errcheck // ends with Close
	return r, nil
}

// URL is the endpoint to give the nodes' OTLP/HTTP exporter.
func (r *Receiver) URL() string { return "http://" + r.ln.Addr().String() + Path }

// Close stops the receiver and returns what it kept.
func (r *Receiver) Close() *Aggregate {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r.srv.Shutdown(ctx) //nolint:errcheck // a slow exporter is cut off
	return r.agg
}

// export takes one OTLP/HTTP request: protobuf only (what the SDK's
// exporter sends), gzip or not, answered with an empty response.
func (r *Receiver) export(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		http.Error(w, "POST spans here", http.StatusMethodNotAllowed)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		r.agg.refuse("content type " + ct)
		http.Error(w, "only application/x-protobuf", http.StatusUnsupportedMediaType)
		return
	}
	body, err := readBody(req)
	if err != nil {
		r.agg.refuse(err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := r.agg.Add(body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func readBody(req *http.Request) ([]byte, error) {
	var in io.Reader = http.MaxBytesReader(nil, req.Body, maxBody)
	switch req.Header.Get("Content-Encoding") {
	case "", "identity":
	case "gzip":
		z, err := gzip.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		defer z.Close()
		in = z
	default:
		return nil, errors.New("content encoding " + req.Header.Get("Content-Encoding"))
	}
	b, err := io.ReadAll(io.LimitReader(in, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxBody {
		return nil, fmt.Errorf("a request over %d MiB", maxBody>>20)
	}
	return b, nil
}

// Add decodes one export request's body and keeps its spans. An
// ExportTraceServiceRequest is TracesData on the wire (both are field 1,
// repeated ResourceSpans), which needs no gRPC package.
func (a *Aggregate) Add(body []byte) error {
	var d tracepb.TracesData
	if err := proto.Unmarshal(body, &d); err != nil {
		a.refuse("not OTLP protobuf")
		return fmt.Errorf("not an OTLP trace export: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, rs := range d.ResourceSpans {
		n := a.node(serviceName(rs))
		if n == nil {
			a.unknown += countSpans(rs)
			continue
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				n.add(s)
			}
		}
	}
	return nil
}
