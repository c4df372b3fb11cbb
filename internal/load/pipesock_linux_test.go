package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// bigAnswers serves, one request at a time a connection, an answer of
// pad bytes more than its replies (a node that stops reading requests
// while it cannot write its answers); each tx accepted.
func bigAnswers(t *testing.T, pad int, hold <-chan struct{}) string {
	t.Helper()
	pipelineAll(t)
	// Small socket buffers on both sides: a few requests or answers fill them.
	old := sockBuffers
	sockBuffers = 64 << 10
	t.Cleanup(func() { sockBuffers = old })
	small := true
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	filler := strings.Repeat("x", pad)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if small {
				_ = c.(*net.TCPConn).SetReadBuffer(64 << 10)
				_ = c.(*net.TCPConn).SetWriteBuffer(64 << 10)
			}
			go func() {
				defer c.Close()
				if hold != nil {
					<-hold // never reads: requests pile up in the sockets
					return
				}
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					var out strings.Builder
					ids := idRe.FindAllSubmatch(body, -1)
					batch := len(body) > 0 && body[0] == '['
					if batch {
						out.WriteByte('[')
					}
					for i, m := range ids {
						if i > 0 {
							out.WriteByte(',')
						}
						fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%s,"result":{"code":0,"data":"","log":"%s","codespace":"","hash":""}}`, m[1], filler)
					}
					if batch {
						out.WriteByte(']')
					}
					if _, err := fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", out.Len(), out.String()); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + l.Addr().String()
}

// Big txs whose writes fill the socket while the node's big answers fill
// the other way: the pacer reads the answers while it waits to write,
// and every tx is answered (a pacer that only waited would hold both
// sides until the timeout).
func TestPipelinedWriteWaitsReadingAnswers(t *testing.T) {
	url := bigAnswers(t, 1<<20, nil)
	_, sum := runGen(t, Config{Model: Constant{R: 100, D: 500 * time.Millisecond}, Workload: KVStore{RunID: "t", Size: 256 << 10},
		Targets: []string{url}, Method: "sync", MaxInFlight: 64, Timeout: 5 * time.Second}, false)
	if sum.Sent != 50 || sum.Accepted != 50 {
		t.Fatalf("summary %+v; want 50 sent and accepted", sum)
	}
}

// A node that reads nothing: the pacer's write waits for room up to the
// timeout, then the requests fail, named.
func TestPipelinedNodeTakesNoRequest(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	url := bigAnswers(t, 0, hold)
	start := time.Now()
	_, sum := runGen(t, Config{Model: Constant{R: 20, D: 500 * time.Millisecond}, Workload: KVStore{RunID: "t", Size: 1 << 20},
		Targets: []string{url}, Method: "sync", MaxInFlight: 64, Timeout: 500 * time.Millisecond}, false)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the run took %v; want its end soon after the timeouts", took)
	}
	if sum.Sent != 10 || sum.SendErrors != 10 {
		t.Fatalf("summary %+v; want 10 sent, 10 send errors", sum)
	}
	for why := range sum.Reasons {
		if !strings.Contains(why, "took no request for 500ms") && !strings.Contains(why, "no answer within 500ms") {
			t.Errorf("send error %q; want the timeout named", why)
		}
	}
}

// Stopped (Ctrl-C) with requests unanswered and a long timeout: the run
// ends at once, its requests failed as stopped.
func TestPipelinedStopped(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	url := bigAnswers(t, 0, hold)
	l := NewLedger(time.Now(), false)
	g, err := NewGenerator(Config{Model: Constant{R: 100, D: 10 * time.Second}, Workload: KVStore{RunID: "t", Size: 64},
		Targets: []string{url}, Method: "sync", MaxInFlight: 64, Timeout: time.Minute}, l)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := g.Run(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run: %v; want the context's end", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the run took %v after a stop at 300ms", took)
	}
	l.Close()
	sum := l.Summary()
	if sum.Sent == 0 || sum.SendErrors != sum.Sent {
		t.Fatalf("summary %+v; want every tx sent a send error", sum)
	}
	for why := range sum.Reasons {
		if !strings.Contains(why, "the run stopped") {
			t.Errorf("send error %q; want the stop named", why)
		}
	}
}
