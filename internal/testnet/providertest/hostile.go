package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Trick is one way a hostile node misbehaves.
type Trick string

// The tricks: each a class of answer a node chainperf does not own may
// give. Huge answers are streamed, never held: HugeBytes of them.
const (
	HugeStatus      Trick = "huge-status"        // /status answers HugeBytes
	HugeBlock       Trick = "huge-block"         // /block answers HugeBytes
	HugeResults     Trick = "huge-block-results" // /block_results answers HugeBytes
	HangStatus      Trick = "hang-status"        // /status never answers
	HeightOverflow  Trick = "height-overflow"    // /status says a height past 2^63-1
	HeightBackwards Trick = "height-backwards"   // /status says height 1
	WrongHeight     Trick = "wrong-height"       // /block?height=h answers block h-1
	StopBlocks      Trick = "stop-blocks"        // /block answers an error
	Cardinality     Trick = "cardinality"        // /metrics adds CardinalitySeries series of a kept family
	HugeMetrics     Trick = "huge-metrics"       // /metrics answers HugeBytes of ordinary lines
	Redirect        Trick = "redirect"           // every answer is a redirect to another host
	ControlChars    Trick = "control-chars"      // the moniker holds terminal escapes (EscapeText)
	TinyTxs         Trick = "tiny-txs"           // one /block answer holds TinyTxCount one-byte txs more
	HoldBlock       Trick = "hold-block"         // one /block request is held until its reader goes
)

const (
	HugeBytes         = 200 << 20
	TinyTxCount       = 1_000_000 // 7 MB of JSON, within the 64 MiB answer cap
	CardinalitySeries = 200_000
	EscapeText        = "\x1b]0;pwned\x07\x1b[2J\x1b[31mFAKE PASS\r"
	escapeTextJSON    = `\u001b]0;pwned\u0007\u001b[2J\u001b[31mFAKE PASS\r`
)

// Hostile is a node that answers like the node behind it (the fake's or
// a real one) until a time has passed since its first request, then plays
// its trick. It is an HTTP reverse proxy on 127.0.0.1.
type Hostile struct {
	URL string
	// Elsewhere counts requests that reached the other host a Redirect
	// sends to (127.0.0.2): a client that follows it went off the node.
	Elsewhere atomic.Int64

	trick Trick
	after time.Duration
	up    *url.URL
	proxy *httputil.ReverseProxy
	srv   *http.Server
	other *http.Server

	once      sync.Once
	first     time.Time
	otherAddr string
	played    atomic.Bool // a trick played once (TinyTxs, HoldBlock) was
}

// NewHostile starts a hostile node in front of upstream.
func NewHostile(upstream string, trick Trick, after time.Duration) (*Hostile, error) {
	up, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	h := &Hostile{trick: trick, after: after, up: up, proxy: httputil.NewSingleHostReverseProxy(up)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h.URL = "http://" + ln.Addr().String()
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go h.srv.Serve(ln)
	if trick == Redirect {
		oln, err := net.Listen("tcp", "127.0.0.2:"+strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
		if err != nil {
			oln, err = net.Listen("tcp", "127.0.0.2:0")
		}
		if err == nil {
			h.other = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.Elsewhere.Add(1)
				h.proxy.ServeHTTP(w, r)
			}), ReadHeaderTimeout: 5 * time.Second}
			go h.other.Serve(oln)
			h.otherAddr = oln.Addr().String()
		}
	}
	return h, nil
}

// Close stops the servers.
func (h *Hostile) Close() {
	h.srv.Close()
	if h.other != nil {
		h.other.Close()
	}
}

func (h *Hostile) due() bool {
	h.once.Do(func() { h.first = time.Now() })
	return time.Since(h.first) >= h.after
}

// method is the RPC method of a request: the path of a GET, the method
// of a JSON-RPC POST.
func method(r *http.Request, body []byte) string {
	if r.Method == http.MethodGet {
		return strings.TrimPrefix(r.URL.Path, "/")
	}
	var q struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &q)
	return q.Method
}

func (h *Hostile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	m := method(r, body)
	if !h.due() {
		h.proxy.ServeHTTP(w, r)
		return
	}
	switch {
	case h.trick == HugeStatus && m == "status", h.trick == HugeBlock && m == "block",
		h.trick == HugeResults && m == "block_results":
		huge(w)
	case h.trick == HugeMetrics && m == "metrics":
		hugePage(w)
	case h.trick == HangStatus && m == "status":
		<-r.Context().Done()
	case h.trick == HeightOverflow && m == "status":
		h.rewrite(w, r, `"latest_block_height":"`, `"latest_block_height":"99999999999999999999`, true)
	case h.trick == HeightBackwards && m == "status":
		h.rewrite(w, r, `"latest_block_height":"`, `"latest_block_height":"1`, true)
	case h.trick == WrongHeight && m == "block":
		if hh, err := strconv.ParseInt(r.URL.Query().Get("height"), 10, 64); err == nil && hh > 1 {
			q := r.URL.Query()
			q.Set("height", strconv.FormatInt(hh-1, 10))
			r.URL.RawQuery = q.Encode()
		}
		h.proxy.ServeHTTP(w, r)
	case h.trick == StopBlocks && m == "block":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"Internal error","data":"block store unavailable"}}`)
	case h.trick == TinyTxs && m == "block" && !h.played.Swap(true):
		h.tinyTxs(w, r)
	case h.trick == HoldBlock && m == "block" && !h.played.Swap(true):
		<-r.Context().Done()
	case h.trick == Cardinality && m == "metrics":
		h.cardinal(w, r)
	case h.trick == Redirect:
		if h.otherAddr == "" {
			http.Error(w, "no other host", http.StatusInternalServerError)
			return
		}
		u := *r.URL
		u.Scheme, u.Host = "http", h.otherAddr
		http.Redirect(w, r, u.String(), http.StatusTemporaryRedirect)
	case h.trick == ControlChars && m == "status":
		h.rewrite(w, r, `"moniker":"`, `"moniker":"`+escapeTextJSON, false)
	default:
		h.proxy.ServeHTTP(w, r)
	}
}

// rewrite answers the node's answer with the first old replaced by new
// (drop: and the value after it up to its closing quote).
func (h *Hostile) rewrite(w http.ResponseWriter, r *http.Request, old, new string, drop bool) {
	data, code := h.fetch(r)
	i := bytes.Index(data, []byte(old))
	if i >= 0 {
		rest := data[i+len(old):]
		if drop {
			if j := bytes.IndexByte(rest, '"'); j >= 0 {
				rest = rest[j:]
			}
		}
		data = append(append(append([]byte(nil), data[:i]...), new...), rest...)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(data)
}

// tinyTxs answers the node's block with TinyTxCount one-byte txs after
// its own (so that its own keep their places and results).
func (h *Hostile) tinyTxs(w http.ResponseWriter, r *http.Request) {
	data, code := h.fetch(r)
	at := tinyTxsAt.FindIndex(data)
	if at == nil {
		w.WriteHeader(code)
		w.Write(data)
		return
	}
	list := bytes.TrimSuffix(bytes.TrimPrefix(bytes.TrimPrefix(data[at[0]:at[1]], []byte(`"txs":`)), []byte("[")), []byte("]"))
	if string(list) == "null" {
		list = nil
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(data[:at[0]])
	io.WriteString(w, `"txs":[`)
	w.Write(list)
	tiny := bytes.Repeat([]byte(`,"AA=="`), TinyTxCount)
	if len(list) == 0 {
		tiny = tiny[1:]
	}
	w.Write(tiny)
	io.WriteString(w, "]")
	w.Write(data[at[1]:])
}

// tinyTxsAt finds a block's txs in a /block answer: a list of base64
// strings, or null.
var tinyTxsAt = regexp.MustCompile(`"txs":(null|\[[^\]]*\])`)

func (h *Hostile) fetch(r *http.Request) ([]byte, int) {
	u := *h.up
	u.Path, u.RawQuery = r.URL.Path, r.URL.RawQuery
	req, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), r.Body)
	if err != nil {
		return nil, http.StatusBadGateway
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, http.StatusBadGateway
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return data, resp.StatusCode
}

// cardinal is the node's page and CardinalitySeries more series of a
// kept family, each with its own label.
func (h *Hostile) cardinal(w http.ResponseWriter, r *http.Request) {
	data, _ := h.fetch(r)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	w.Write(data)
	var b bytes.Buffer
	b.WriteString("# TYPE cometbft_consensus_rounds gauge\n") // a kept family the fake does not export
	for i := range CardinalitySeries {
		fmt.Fprintf(&b, "cometbft_consensus_rounds{chain_id=\"x\",peer=\"p%07d\"} %d\n", i, i)
		if b.Len() > 64<<10 {
			w.Write(b.Bytes())
			b.Reset()
		}
	}
	w.Write(b.Bytes())
}

// huge streams HugeBytes of a JSON string that never ends.
func huge(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":-1,"result":{"node_info":{"moniker":"`)
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range HugeBytes >> 20 {
		if _, err := w.Write(chunk); err != nil {
			return // the reader stopped: as it should
		}
	}
	io.WriteString(w, `"}}}`)
}

// hugePage streams HugeBytes of a metrics page of ordinary lines.
func hugePage(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "node_filler_total{i=\"%d\"} 1\n", i)
	}
	for range HugeBytes / b.Len() {
		if _, err := w.Write(b.Bytes()); err != nil {
			return
		}
	}
}
