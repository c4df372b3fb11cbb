package kubernetes

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"

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

// The other objects a testnet makes take theirs the same way (a node's
// files and keys here, the namespace); one of another testnet's stays an
// error, and nothing is taken as made without labels to check.
func TestCreatesFindTheirOwn(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	for f, text := range map[string]string{"config/config.toml": "moniker = \"validator3\"\n", "config/node_key.json": "{}"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	n := &testnet.Node{Name: "validator3", Role: testnet.RoleValidator, Home: home}
	for _, ours := range []bool{true, false} {
		p := fakeProvider()
		p.files = map[string]nodeFiles{}
		labels := p.labels(n)
		if !ours {
			labels[LabelTestnet] = "tn-000002"
		}
		meta := func(name string) metav1.ObjectMeta {
			return metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: labels}
		}
		nsLabels := p.labels(nil)
		if !ours {
			nsLabels[LabelTestnet] = "tn-000002"
		}
		for _, obj := range []runtime.Object{
			&corev1.ConfigMap{ObjectMeta: meta("validator3-files")},
			&corev1.Secret{ObjectMeta: meta("validator3-keys")},
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: nsLabels}},
		} {
			if err := p.cs.(*fake.Clientset).Tracker().Add(obj); err != nil {
				t.Fatal(err)
			}
		}
		err := p.writeFiles(ctx, n)
		if ours && err != nil {
			t.Errorf("writeFiles over its own ConfigMap and Secret: %v; want them taken as made", err)
		}
		if !ours && (err == nil || !strings.Contains(err.Error(), "already exists")) {
			t.Errorf("writeFiles over another testnet's: %v; want AlreadyExists", err)
		}
		if got := madeBefore(ctx, apierrors.NewAlreadyExists(schema.GroupResource{Resource: "namespaces"}, "ns"), p.labels(nil),
			func(ctx context.Context) (metav1.Object, error) {
				return p.cs.CoreV1().Namespaces().Get(ctx, "ns", metav1.GetOptions{})
			}); got != ours {
			t.Errorf("the namespace (ours %v) taken as made: %v", ours, got)
		}
	}
	if madeBefore(ctx, apierrors.NewAlreadyExists(schema.GroupResource{Resource: "pods"}, "x"), nil,
		func(context.Context) (metav1.Object, error) { return &corev1.Pod{}, nil }) {
		t.Error("an object taken as made with no labels to check")
	}
}
