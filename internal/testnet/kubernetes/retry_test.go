package kubernetes

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chainperf/chainperf/internal/testnet"
)

// dropping is a server that closes the connection of its first drop
// requests without an answer and echoes the body of the others.
func dropping(t *testing.T, drop int32) (*httptest.Server, *atomic.Int32) {
	var seen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if seen.Add(1) <= drop {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

// A request whose connection is lost before an answer is sent again with
// its body, up to lostTries times in all; an answer of any status is
// not sent again; a cancelled request is not waited for.
func TestRetryLost(t *testing.T) {
	defer func(w time.Duration) { lostWait = w }(lostWait)
	lostWait = time.Millisecond
	// Keep-alives off: every try dials anew, as after a lost HTTP/2 connection.
	client := &http.Client{Transport: retryLost{next: &http.Transport{DisableKeepAlives: true}}}
	post := func(url string) (string, error) {
		resp, err := client.Post(url, "application/json", bytes.NewReader([]byte(`{"kind":"Pod"}`)))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}

	srv, seen := dropping(t, lostTries-1)
	if got, err := post(srv.URL); err != nil || got != `{"kind":"Pod"}` {
		t.Errorf("lost %d times, then answered: %q, %v; want the body echoed", lostTries-1, got, err)
	}
	if seen.Load() != lostTries {
		t.Errorf("%d tries; want %d", seen.Load(), lostTries)
	}

	srv, seen = dropping(t, lostTries)
	if _, err := post(srv.URL); err == nil || !connectionLost(err) {
		t.Errorf("lost every time: %v; want the lost connection's error", err)
	}
	if seen.Load() != lostTries {
		t.Errorf("lost every time: %d tries; want %d", seen.Load(), lostTries)
	}

	var refused atomic.Int32
	five := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refused.Add(1)
		http.Error(w, "etcdserver: request timed out", http.StatusInternalServerError)
	}))
	defer five.Close()
	if got, err := post(five.URL); err != nil || !strings.Contains(got, "timed out") || refused.Load() != 1 {
		t.Errorf("an answer of 500: %q, %v after %d tries; want it as it came, once", got, err, refused.Load())
	}

	lostWait = time.Hour
	srv, seen = dropping(t, lostTries)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	start := time.Now()
	if _, err := client.Do(req); err == nil || time.Since(start) > 10*time.Second || seen.Load() != 1 {
		t.Errorf("cancelled while waiting to send again: %v after %v and %d tries; want the error at once", err, time.Since(start), seen.Load())
	}

	for _, err := range []error{&testError{"http2: client connection lost"}, &testError{"read: connection reset by peer"}, io.EOF} {
		if !connectionLost(err) {
			t.Errorf("%q: not taken as lost", err)
		}
	}
	for _, msg := range []string{"context deadline exceeded", "x509: certificate signed by unknown authority", "dial tcp: connection refused"} {
		if connectionLost(&testError{msg}) {
			t.Errorf("%q: taken as lost", msg)
		}
	}
}

type testError struct{ msg string }

func (e *testError) Error() string { return e.msg }

// A pod create that finds the pod this testnet made for the node takes
// it as made (the first attempt of a create sent again); one of another
// testnet or node, or one being deleted, is the error it was.
func TestCreatePodFindsItsOwn(t *testing.T) {
	ctx := context.Background()
	n := &testnet.Node{Name: "validator3", Role: testnet.RoleValidator}
	for _, tc := range []struct {
		name   string
		labels func(p *Provider) map[string]string
		gone   bool
		ok     bool
	}{
		{"ours", func(p *Provider) map[string]string { return p.labels(n) }, false, true},
		{"another testnet's", func(p *Provider) map[string]string {
			l := p.labels(n)
			l[LabelTestnet] = "tn-000002"
			return l
		}, false, false},
		{"ours, being deleted", func(p *Provider) map[string]string { return p.labels(n) }, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := fakeProvider()
			p.files = map[string]nodeFiles{n.Name: {cm: "validator3-files", sec: "validator3-keys"}}
			there := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "validator3", Namespace: "ns", Labels: tc.labels(p)}}
			if tc.gone {
				now := metav1.Now()
				there.DeletionTimestamp = &now
			}
			if _, err := p.cs.CoreV1().Pods("ns").Create(ctx, there, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			err := p.createPod(ctx, n)
			if tc.ok && err != nil {
				t.Errorf("createPod: %v; want the pod taken as made", err)
			}
			if !tc.ok && (err == nil || !strings.Contains(err.Error(), "already exists")) {
				t.Errorf("createPod: %v; want AlreadyExists", err)
			}
		})
	}
}
