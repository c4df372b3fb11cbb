package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestClientAsksAgainWhenUnanswered: a request the agent drops without an
// answer (a pod just made again) is sent again and succeeds; an answer
// that is an error is the error, asked once.
func TestClientAsksAgainWhenUnanswered(t *testing.T) {
	var calls atomic.Int32
	dropFirst := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer dropFirst.Close()
	if err := (Client{Base: dropFirst.URL}).Do(context.Background(), "/cut", &Request{All: true}); err != nil || calls.Load() != 2 {
		t.Errorf("dropped once: %v after %d calls; want success on the second", err, calls.Load())
	}
	var refused atomic.Int32
	refuses := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refused.Add(1)
		http.Error(w, "nft: no such table", http.StatusInternalServerError)
	}))
	defer refuses.Close()
	if err := (Client{Base: refuses.URL}).Do(context.Background(), "/cut", &Request{All: true}); err == nil || !strings.Contains(err.Error(), "no such table") || refused.Load() != 1 {
		t.Errorf("an error answer: %v after %d calls; want it, asked once", err, refused.Load())
	}
}
