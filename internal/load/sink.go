package load

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/valyala/fasthttp"
)

// A Sink speaks the broadcast part of the CometBFT RPC and accepts every
// tx, so that the generator's own ceiling can be measured without a chain.
// It answers /health and /status too, so that CheckTargets passes.
type Sink struct {
	Txs   atomic.Int64  // txs accepted
	Delay time.Duration // each broadcast request is answered this late
	// FlushEach writes every answer at once, as CometBFT's net/http server
	// does; without it (and without Delay) answers to pipelined requests go
	// out together once none is left to read (fasthttp's way, fewer writes
	// and reads).
	FlushEach bool
	// Work is CPU each tx costs the sink (SHA-256 rounds timed at its first
	// answer):
	// a node whose CPU bounds it, taking about one core / Work tx/s.
	Work time.Duration

	rounds int       // SHA-256 rounds that take Work
	timed  sync.Once // rounds set, at the first answer
	mu     sync.Mutex
	sync.Mutex
	perSec map[int64]int64 // txs received, by unix second

	slept, sleeps atomic.Int64 // the delays as slept (ns) and how many
}

// StatsPath answers the sink's own count of what it received, by second:
// what a generator delivered, counted where it arrives.
const StatsPath = "/chainperf/sink_stats"

// SinkStats is what StatsPath answers.
type SinkStats struct {
	Txs       int64           `json:"txs"`
	PerSecond map[int64]int64 `json:"per_second"` // unix second -> txs received
	// DelayMean: the mean of the --delay sleeps as they took (a loaded
	// sink sleeps longer than asked), in milliseconds.
	DelayMean float64 `json:"delay_mean_ms,omitempty"`
}

// Stats returns the counts so far.
func (s *Sink) Stats() SinkStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := SinkStats{Txs: s.Txs.Load(), PerSecond: make(map[int64]int64, len(s.perSec))}
	if n := s.sleeps.Load(); n > 0 {
		out.DelayMean = float64(s.slept.Load()) / float64(n) / 1e6
	}
	for k, v := range s.perSec {
		out.PerSecond[k] = v
	}
	return out
}

var idKey = []byte(`"id":`)

// SinkMoniker is the moniker the sink's /status answers with.
const SinkMoniker = "chainperf-sink"

// Handle answers one request.
func (s *Sink) Handle(ctx *fasthttp.RequestCtx) {
	switch string(ctx.Path()) {
	case "/health":
		ctx.SetContentType("application/json")
		ctx.SetBodyString(`{"jsonrpc":"2.0","id":-1,"result":{}}`)
		return
	case "/status":
		ctx.SetContentType("application/json")
		ctx.SetBodyString(`{"jsonrpc":"2.0","id":-1,"result":{"node_info":{"moniker":"chainperf-sink"},"sync_info":{"latest_block_height":"0"}}}`)
		return
	case StatsPath:
		ctx.SetContentType("application/json")
		_ = json.NewEncoder(ctx).Encode(s.Stats())
		return
	}
	if s.Delay > 0 {
		t := time.Now()
		time.Sleep(s.Delay)
		s.slept.Add(int64(time.Since(t)))
		s.sleeps.Add(1)
	}
	ctx.SetContentType("application/json")
	s.answer(ctx.Response.BodyWriter(), ctx.PostBody())
}

// answer writes to out the answers to the broadcast requests in body (one
// or a batch) and counts their txs.
func (s *Sink) answer(out io.Writer, body []byte) {
	batch := len(body) > 0 && body[0] == '['
	if batch {
		out.Write([]byte{'['})
	}
	s.timed.Do(func() {
		if s.Work > 0 {
			s.rounds = roundsFor(s.Work)
		}
	})
	var buf [96]byte
	n := 0
	for rest := body; ; {
		i := bytes.Index(rest, idKey)
		if i < 0 {
			break
		}
		rest = rest[i+len(idKey):]
		j := 0
		for j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || rest[j] == '-') {
			j++
		}
		b := buf[:0]
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, rest[:j]...)
		b = append(b, `,"result":{"code":0,"data":"","log":"","codespace":"","hash":""}}`...)
		out.Write(b)
		burn(s.rounds)
		n++
	}
	if batch {
		out.Write([]byte{']'})
	}
	s.Txs.Add(int64(n))
	sec := time.Now().Unix()
	s.mu.Lock()
	if s.perSec == nil {
		s.perSec = map[int64]int64{}
	}
	s.perSec[sec] += int64(n)
	s.mu.Unlock()
}

// maxWebsocketMessage: a longer message ends its connection (CometBFT's
// own websocket limit is 1 MB by default; batches may be larger here).
const maxWebsocketMessage = 16 << 20

// Websocket answers broadcasts sent as JSON-RPC messages over CometBFT's
// /websocket (how tm-load-test and CometBFT's loadtime tool send them),
// each with its answer, as a node does.
func (s *Sink) Websocket() http.Handler {
	up := websocket.Upgrader{ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10, CheckOrigin: func(*http.Request) bool { return true }}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return // Upgrade answered the client
		}
		defer c.Close()
		c.SetReadLimit(maxWebsocketMessage)
		var in, out bytes.Buffer
		for {
			_, msg, err := c.NextReader()
			if err != nil {
				return
			}
			in.Reset()
			if _, err := in.ReadFrom(msg); err != nil {
				return
			}
			out.Reset()
			s.answer(&out, in.Bytes())
			if err := c.WriteMessage(websocket.TextMessage, out.Bytes()); err != nil {
				return
			}
		}
	})
}

// ServeWebsocket answers /websocket on l until ctx ends.
func (s *Sink) ServeWebsocket(ctx context.Context, l net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("/websocket", s.Websocket())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Serve answers on l until ctx ends.
func (s *Sink) Serve(ctx context.Context, l net.Listener) error {
	srv := &fasthttp.Server{Handler: s.Handle, Name: "chainperf-sink", ReduceMemoryUsage: s.FlushEach || s.Delay > 0}
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown()
	}()
	return srv.Serve(l)
}

// ListenSink listens on addr ("127.0.0.1:26657"); port 0 picks one.
func ListenSink(addr string) (net.Listener, string, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	return l, "http://" + l.Addr().String(), nil
}

// roundsFor is how many SHA-256 rounds of burn take d here: the best of
// five timings of 2,000 (the least disturbed).
func roundsFor(d time.Duration) int {
	const n = 2000
	best := time.Duration(math.MaxInt64)
	for range 5 {
		t := time.Now()
		burn(n)
		best = min(best, time.Since(t))
	}
	return max(1, int(float64(n)*float64(d)/float64(max(best, 1))))
}

var burnSink atomic.Uint32

// burn spends n SHA-256 rounds of CPU.
func burn(n int) {
	var h [32]byte
	for range n {
		h = sha256.Sum256(h[:])
	}
	burnSink.Add(uint32(h[0])) // so the loop is not optimised away
}
