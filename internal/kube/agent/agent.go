// Package agent is the node's supervisor in its pod (`chainperf pod`): it
// runs the node as its child and answers the harness's fault requests on
// a port of its own, doing inside the pod what the cluster's API cannot:
// pause the node (SIGSTOP), cut it off the network or from some peers
// (nftables rules in the pod's network namespace, which needs
// CAP_NET_ADMIN) and undo it.
package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Post posts a JSON body of any kind (a DelayRequest) to the agent.
func (c Client) Post(ctx context.Context, path string, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return c.send(ctx, path, b)
}

// RTT asks the agent how long a TCP connect from its pod to addr
// (IP:PORT) takes.
func (c Client) RTT(ctx context.Context, addr string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+"/rtt?to="+url.QueryEscape(addr), nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return 0, fmt.Errorf("the node's agent at %s: %w", c.Base, err)
	}
	defer resp.Body.Close()
	var out struct {
		RTT int64 `json:"rtt_ns"`
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return 0, errors.New("the node's agent: " + resp.Status + ": " + string(msg))
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return 0, err
	}
	return time.Duration(out.RTT), nil
}

// Request is the body of POST /cut: cut the node off every address but the
// agent's port (All), or from the listed peer addresses.
type Request struct {
	All   bool     `json:"all,omitempty"`
	Peers []string `json:"peers,omitempty"`
}

// Run starts argv as the node, serves the agent on port and returns the
// node's exit: the pod ends when the node does. SIGTERM and SIGINT are
// passed on to the node.
func Run(port uint16, argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for s := range sig {
			_ = cmd.Process.Signal(syscall.SIGCONT) // a paused node must see it
			_ = cmd.Process.Signal(s)
		}
	}()
	a := &server{node: cmd.Process, port: port}
	ln, err := net.Listen("tcp", ":"+strconv.Itoa(int(port)))
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("agent port %d: %w", port, err)
	}
	srv := &http.Server{Handler: a.routes(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	err = cmd.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
	return err
}

type server struct {
	node  *os.Process
	port  uint16
	mu    sync.Mutex
	cut   cut
	delay delayer
}

func (a *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /pause", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, a.node.Signal(syscall.SIGSTOP))
	})
	mux.HandleFunc("POST /resume", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, a.node.Signal(syscall.SIGCONT))
	})
	mux.HandleFunc("POST /cut", func(w http.ResponseWriter, r *http.Request) {
		var req Request
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		next := cut{all: a.cut.all || req.All, peers: a.cut.peers}
		for _, p := range req.Peers {
			ip, err := netip.ParseAddr(p)
			if err != nil || !ip.Is4() {
				http.Error(w, fmt.Sprintf("peer %q is not an IPv4 address", p), http.StatusBadRequest)
				return
			}
			next.peers = append(next.peers, ip)
		}
		if err := apply(next, a.port); err != nil {
			reply(w, err)
			return
		}
		a.cut = next
		reply(w, nil)
	})
	mux.HandleFunc("POST /delay", func(w http.ResponseWriter, r *http.Request) {
		var req DelayRequest
		if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&req); err != nil {
			http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
			return
		}
		err := a.delay.set(req)
		var bad badRequest
		if errors.As(err, &bad) {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		reply(w, err)
	})
	// The time a TCP connect from this pod to an address takes (its
	// handshake's round trip): how the emulated delays are checked.
	mux.HandleFunc("GET /rtt", func(w http.ResponseWriter, r *http.Request) {
		to := r.URL.Query().Get("to")
		if _, err := netip.ParseAddrPort(to); err != nil {
			http.Error(w, fmt.Sprintf("to=%q: give IP:PORT", to), http.StatusBadRequest)
			return
		}
		start := time.Now()
		c, err := net.DialTimeout("tcp", to, 5*time.Second)
		if err != nil {
			reply(w, err)
			return
		}
		rtt := time.Since(start)
		c.Close()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]int64{"rtt_ns": rtt.Nanoseconds()})
	})
	mux.HandleFunc("POST /restore", func(w http.ResponseWriter, _ *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if err := apply(cut{}, a.port); err != nil {
			reply(w, err)
			return
		}
		a.cut = cut{}
		reply(w, nil)
	})
	return mux
}

func reply(w http.ResponseWriter, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Client is the harness's side: the agent of one pod.
type Client struct {
	Base string // http://POD-IP:PORT
}

// Do posts to the agent (path "/pause", "/resume", "/cut", "/restore").
// A request the agent did not answer is sent again, 10 s a try, for 60 s
// in all: a pod just made again (a kill's) on a busy machine can take
// that long to answer (CI runs had a partition fail on one 3 s and then
// 33 s after the pod came back, beside two other real-node tests), and
// every request is idempotent (a cut replaces the one before).
func (c Client) Do(ctx context.Context, path string, req *Request) error {
	var b []byte
	if req != nil {
		b, _ = json.Marshal(req)
	}
	return c.send(ctx, path, b)
}

// send posts b (nil: no body) to the agent, again while unanswered.
func (c Client) send(ctx context.Context, path string, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, agentPatience)
	defer cancel()
	for {
		err := c.do(ctx, path, b)
		var unanswered *unansweredError
		if !errors.As(err, &unanswered) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// agentPatience is how long Do asks again an agent that does not answer.
const agentPatience = 60 * time.Second

// unansweredError is a request that got no answer (as against an answer
// that is an error).
type unansweredError struct{ err error }

func (e *unansweredError) Error() string { return e.err.Error() }
func (e *unansweredError) Unwrap() error { return e.err }

func (c Client) do(ctx context.Context, path string, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var body io.Reader
	if b != nil {
		body = bytes.NewReader(b)
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Base+path, body)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return &unansweredError{fmt.Errorf("the node's agent at %s: %w", c.Base, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return errors.New("the node's agent: " + resp.Status + ": " + string(msg))
	}
	return nil
}
