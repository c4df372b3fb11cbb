package load

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// Methods maps the scenario's method names to CometBFT RPC methods.
var Methods = map[string]string{
	"sync":   "broadcast_tx_sync",
	"async":  "broadcast_tx_async",
	"commit": "broadcast_tx_commit",
}

// AppendRequest appends a JSON-RPC 2.0 request that broadcasts tx with
// method to buf. It does not allocate when buf has room.
func AppendRequest(buf []byte, method string, id uint64, tx []byte) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendUint(buf, id, 10)
	buf = append(buf, `,"method":"`...)
	buf = append(buf, method...)
	buf = append(buf, `","params":{"tx":"`...)
	buf = base64.StdEncoding.AppendEncode(buf, tx)
	return append(buf, `"}}`...)
}

// reply is the part of a broadcast answer the ledger needs. For
// broadcast_tx_commit the CheckTx result sits in check_tx.
type reply struct {
	ok     bool   // accepted, known without decoding
	ID     uint64 `json:"id"`
	Result *struct {
		Code    uint32 `json:"code"`
		Log     string `json:"log"`
		CheckTx *struct {
			Code uint32 `json:"code"`
			Log  string `json:"log"`
		} `json:"check_tx"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    string `json:"data"`
	} `json:"error"`
}

// outcomeOf is the outcome of the tx with JSON-RPC id seq among replies
// (a batch's answer): a send error when none answers it.
func outcomeOf(replies []reply, seq uint64) (Outcome, string) {
	for k := range replies {
		if replies[k].ID == seq {
			return replies[k].outcome()
		}
	}
	return SendError, "no answer for this tx in the batch"
}

// outcome classifies one reply.
func (r *reply) outcome() (Outcome, string) {
	switch {
	case r.ok:
		return Accepted, ""
	case r.Error != nil:
		if r.Error.Data != "" {
			return Rejected, r.Error.Data
		}
		return Rejected, r.Error.Message
	case r.Result == nil:
		return SendError, "answer without result or error"
	case r.Result.CheckTx != nil && r.Result.CheckTx.Code != 0:
		return Rejected, fmt.Sprintf("CheckTx code %d: %s", r.Result.CheckTx.Code, r.Result.CheckTx.Log)
	case r.Result.Code != 0:
		return Rejected, fmt.Sprintf("CheckTx code %d: %s", r.Result.Code, r.Result.Log)
	}
	return Accepted, ""
}

var (
	keyID      = []byte(`"id":`)
	keyCode    = []byte(`"code":`)
	keyCodeOK  = []byte(`"code":0,`)
	keyError   = []byte(`"error"`)
	keyCheckTx = []byte(`"check_tx"`)
)

// acceptedIDs is the fast path for the common answer: every tx accepted.
// It reads the ids without decoding JSON when the body holds no error, no
// check_tx (broadcast_tx_commit) and only zero codes; ok is false otherwise
// and the caller decodes properly.
func acceptedIDs(body []byte, into []reply) ([]reply, bool) {
	if bytes.Contains(body, keyError) || bytes.Contains(body, keyCheckTx) ||
		bytes.Count(body, keyCode) != bytes.Count(body, keyCodeOK) {
		return into, false
	}
	for rest := body; ; {
		i := bytes.Index(rest, keyID)
		if i < 0 {
			return into, len(into) > 0
		}
		rest = rest[i+len(keyID):]
		var id uint64
		j := 0
		for ; j < len(rest) && rest[j] >= '0' && rest[j] <= '9'; j++ {
			id = id*10 + uint64(rest[j]-'0')
		}
		if j == 0 {
			return into, false
		}
		into = append(into, reply{ID: id, ok: true})
	}
}

// parseReplies decodes a single or batch answer.
func parseReplies(body []byte, into []reply) ([]reply, error) {
	into = into[:0]
	if fast, ok := acceptedIDs(body, into); ok {
		return fast, nil
	}
	into = into[:0]
	trimmed := strings.TrimSpace(string(body[:min(len(body), 8)]))
	return decodeReplies(body, into, strings.HasPrefix(trimmed, "["))
}

// decodeReplies decodes a single or batch answer with encoding/json. Apart
// from parseReplies so that what escapes to the decoder (into's header, the
// reply) is allocated on this slow path only.
func decodeReplies(body []byte, into []reply, batch bool) ([]reply, error) {
	if batch {
		err := json.Unmarshal(body, &into)
		return into, err
	}
	var r reply
	if err := json.Unmarshal(body, &r); err != nil {
		return into, err
	}
	return append(into, r), nil
}

// MaxAnswer is the largest answer to a broadcast (or a batch of them)
// read from a node.
const MaxAnswer = 4 << 20

// newClient returns an HTTP client with keep-alive connections, up to
// conns per node.
// MaxConnsPerNode caps the connections to one RPC node below CometBFT's
// default rpc.max_open_connections (900), past which the node closes new
// ones: more requests in flight than that wait for a free connection (and
// show as schedule lag) instead of failing.
const MaxConnsPerNode = 850

// connSet tracks a client's open connections, so that a run that is
// stopped (Ctrl-C, a workload error) ends its requests in flight at once
// instead of at their timeout: fasthttp takes no context per request.
type connSet struct {
	mu     sync.Mutex
	open   map[*trackedConn]struct{}
	closed bool
}

// errStopped is the send error of a request cut short by the run's stop.
var errStopped = errors.New("the run stopped: request not sent or cut short")

func (s *connSet) dial(addr string) (net.Conn, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, errStopped
	}
	c, err := fasthttp.DialTimeout(addr, 3*time.Second)
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, set: s}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return nil, errStopped
	}
	s.open[tc] = struct{}{}
	return tc, nil
}

func newConnSet() *connSet { return &connSet{open: map[*trackedConn]struct{}{}} }

// stopped reports whether closeAll ended the set.
func (s *connSet) stopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// closeAll closes every open connection and refuses new ones.
func (s *connSet) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for c := range s.open {
		c.Conn.Close()
	}
	clear(s.open)
}

type trackedConn struct {
	net.Conn
	set *connSet
}

func (c *trackedConn) Close() error {
	c.set.mu.Lock()
	delete(c.set.open, c)
	c.set.mu.Unlock()
	return c.Conn.Close()
}

// newClient returns a client whose connections are set's (closeAll cuts
// every request short).
func newClient(conns int, timeout time.Duration, set *connSet) *fasthttp.Client {
	return &fasthttp.Client{
		Name:            "chainperf",
		MaxConnsPerHost: min(conns, MaxConnsPerNode),
		// Under CometBFT's idle timeout (its read timeout, 10 s): a node
		// that closes an idle connection just as a request goes out on it
		// makes a send error of a tx it never saw.
		MaxIdleConnDuration: 5 * time.Second,
		// The connection used last is used next, so that those a burst
		// opened sit idle and close (fasthttp's default takes the oldest,
		// keeping every one ever opened in use).
		ConnPoolStrategy: fasthttp.LIFO,
		// A node's answer to a broadcast is small: one of many megabytes
		// is a send error, not a read into memory.
		MaxResponseBodySize: MaxAnswer,
		ReadTimeout:         timeout,
		WriteTimeout:        timeout,
		MaxConnWaitTimeout:  timeout,
		Dial:                set.dial,
	}
}

// CheckTargets makes sure every RPC URL answers /health before a run, so
// that a wrong URL is one clear error instead of thousands of send errors.
func CheckTargets(ctx context.Context, targets []string) error {
	if len(targets) == 0 {
		return fmt.Errorf("no RPC node to send to")
	}
	c := newClient(1, 3*time.Second, newConnSet())
	for _, t := range targets {
		if !strings.HasPrefix(t, "http://") && !strings.HasPrefix(t, "https://") {
			return fmt.Errorf("RPC URL %q: write it as http://host:port", t)
		}
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI(strings.TrimRight(t, "/") + "/health")
		err := c.DoTimeout(req, resp, 3*time.Second)
		code := resp.StatusCode()
		fasthttp.ReleaseRequest(req)
		fasthttp.ReleaseResponse(resp)
		if err != nil {
			return fmt.Errorf("RPC node %s is unreachable: %v (is the node running, is the URL right?)", t, err)
		}
		if code != 200 {
			return fmt.Errorf("RPC node %s answers /health with HTTP %d: is it a CometBFT RPC endpoint?", t, code)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}
