// Package nodehttp is how chainperf reads a node's HTTP answers (RPC,
// JSON-RPC, metrics, pprof): every answer has a size cap and a time cap,
// going over either is a typed error that names the address and the cap,
// and a redirect is never followed to another host. A node chainperf does
// not own is input like any other: it can answer 200 MB or never finish.
package nodehttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"time"
)

// Limits are the caps of one kind of answer.
type Limits struct {
	Bytes int64         // the body read, at most
	Time  time.Duration // from the request to the body's last byte
}

// The caps of each read. A block's is room for CometBFT's default
// largest block (block.max_bytes 21 MiB: 28 MiB as base64) and its
// results; the rest are small answers.
var (
	Small = Limits{Bytes: 1 << 20, Time: 5 * time.Second}   // status, health, net_info, a broadcast's answer
	Block = Limits{Bytes: 64 << 20, Time: 30 * time.Second} // block, block_results
	Query = Limits{Bytes: 4 << 20, Time: 10 * time.Second}  // validators, abci_query, JSON-RPC calls
)

// TooLarge is an answer over its size cap: it was not read.
type TooLarge struct {
	URL   string // redacted: no credentials
	Limit int64
}

func (e *TooLarge) Error() string {
	return fmt.Sprintf("%s answered more than %s: not read (a node's answer is capped)", e.URL, size(e.Limit))
}

// TooSlow is an answer not complete within its time cap.
type TooSlow struct {
	URL   string
	Limit time.Duration
}

func (e *TooSlow) Error() string {
	return fmt.Sprintf("%s did not answer within %s (a node's answer is capped)", e.URL, e.Limit)
}

// Redirected is a redirect to another host: not followed.
type Redirected struct{ From, To string }

func (e *Redirected) Error() string {
	return fmt.Sprintf("%s redirected to another host (%s): not followed", e.From, e.To)
}

// OverCap says whether err is an answer chainperf refused (over a cap, or
// a redirect off the node), and the words for it.
func OverCap(err error) (string, bool) {
	var tl *TooLarge
	var ts *TooSlow
	var rd *Redirected
	switch {
	case errors.As(err, &tl):
		return tl.Error(), true
	case errors.As(err, &ts):
		return ts.Error(), true
	case errors.As(err, &rd):
		return rd.Error(), true
	}
	return "", false
}

func size(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// Client returns an HTTP client whose every answer is held to l: the
// body errors with *TooLarge past l.Bytes, the request or the body with
// *TooSlow past l.Time. It follows a redirect only to the same scheme,
// host and port (at most 3).
func Client(l Limits) *http.Client {
	return &http.Client{Transport: &transport{base: base, l: l}, CheckRedirect: sameHost}
}

// base is shared: one pool of connections to the nodes for every cap.
var base = &http.Transport{
	Proxy:                  nil, // a node's address is never sent to a proxy from the environment
	DisableCompression:     true,
	MaxIdleConnsPerHost:    4,
	IdleConnTimeout:        30 * time.Second,
	ResponseHeaderTimeout:  0, // the time cap covers it
	MaxResponseHeaderBytes: 64 << 10,
}

func sameHost(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if len(via) > 3 {
		return fmt.Errorf("%s: more than 3 redirects: not followed", Redact(first))
	}
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return &Redirected{From: Redact(first), To: Redact(req.URL)}
	}
	return nil
}

type transport struct {
	base http.RoundTripper
	l    Limits
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	u := Redact(req.URL)
	slow := &TooSlow{URL: u, Limit: t.l.Time}
	ctx, cancel := context.WithTimeoutCause(req.Context(), t.l.Time, slow)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		if errors.Is(context.Cause(ctx), slow) {
			return nil, slow
		}
		return nil, err
	}
	resp.Body = &body{rc: resp.Body, left: t.l.Bytes, ctx: ctx, cancel: cancel, large: &TooLarge{URL: u, Limit: t.l.Bytes}, slow: slow}
	return resp, nil
}

// body reads at most left bytes; one more is an error, not a short read.
type body struct {
	rc     io.ReadCloser
	left   int64
	ctx    context.Context
	cancel context.CancelFunc
	large  *TooLarge
	slow   *TooSlow
}

func (b *body) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.large
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), b.large
	}
	if err != nil && err != io.EOF && errors.Is(context.Cause(b.ctx), b.slow) {
		return n, b.slow
	}
	return n, err
}

func (b *body) Close() error {
	b.cancel()
	return b.rc.Close()
}

// Get reads the answer to a GET of u within c's caps; any status but 200
// is an error, returned with the answer (a JSON-RPC error is in it).
func Get(ctx context.Context, c *http.Client, u string) ([]byte, error) {
	return GetWith(ctx, c, u, nil)
}

// GetWith is Get with the request's headers set from header (an SDK REST
// gateway's x-cosmos-block-height).
func GetWith(ctx context.Context, c *http.Client, u string, header http.Header) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, unwrapURL(err)
	}
	defer resp.Body.Close()
	if b, ok := resp.Body.(*body); ok && resp.ContentLength > b.left {
		return nil, b.large // said up front: not read at all
	}
	data, err := readAll(resp.Body, resp.ContentLength)
	if err != nil {
		if _, over := OverCap(err); over {
			// What was read up to the cap is garbage now: collect it at
			// once, so that a node that repeats such answers cannot grow
			// the heap to its goal (a GC percent of 400) first.
			runtime.GC()
		}
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return data, fmt.Errorf("%s: HTTP %d", Redact(req.URL), resp.StatusCode)
	}
	return data, nil
}

// readAll reads r in chunks that double from 4 KiB to 1 MiB (one of
// length+1 when the answer says its length) and joins them once at the
// end: io.ReadAll's growing buffer would hold up to twice the cap, and
// copy it on the way, before an answer over the cap is refused.
func readAll(r io.Reader, length int64) ([]byte, error) {
	var chunks [][]byte
	total, next := 0, 4<<10
	if length >= 0 && length < 64<<20 {
		next = int(length) + 1 // the read that sees EOF needs room
	}
	for {
		c := make([]byte, 0, next)
		next = min(max(2*next, 4<<10), 1<<20)
		for len(c) < cap(c) {
			n, err := r.Read(c[len(c):cap(c)])
			c = c[:len(c)+n]
			if err == io.EOF {
				return join(append(chunks, c), total+len(c)), nil
			}
			if err != nil {
				return nil, err
			}
		}
		chunks = append(chunks, c)
		total += len(c)
	}
}

func join(chunks [][]byte, total int) []byte {
	if len(chunks) == 1 {
		return chunks[0]
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}

// unwrapURL returns a cap's error alone: *url.Error would print the
// address twice.
func unwrapURL(err error) error {
	if _, ok := OverCap(err); ok {
		for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(err) {
			err = u
		}
	}
	return err
}

// Redact is u without credentials or fragment, and with a query only of
// the parameters chainperf itself adds: what may be shown.
func Redact(u *url.URL) string {
	c := *u
	c.User, c.Fragment, c.RawFragment = nil, "", ""
	for k := range c.Query() {
		if !shownParams[k] {
			c.RawQuery = ""
			break
		}
	}
	return c.String()
}

var shownParams = map[string]bool{"height": true, "page": true, "per_page": true, "seconds": true, "minHeight": true, "maxHeight": true}
