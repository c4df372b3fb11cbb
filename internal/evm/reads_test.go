package evm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The read load sends the kinds in turn at its rate and counts each
// answer, error and latency by kind: a node that answers eth_call with an
// error fails those reads (the first reason kept) and answers the rest.
func TestReadsCountByKind(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.Method == "eth_call" {
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"error":{"message":"execution reverted"}}`)
			return
		}
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`)
	}))
	defer srv.Close()
	r, err := StartReads(context.Background(), ReadConfig{URLs: []string{srv.URL}, Rate: 300, Wallets: Wallets("reads", 3)})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	stats := r.Stop()
	if len(stats) != 3 {
		t.Fatalf("%d kinds: want 3", len(stats))
	}
	for _, s := range stats {
		wantFail := s.Kind == ReadCall
		switch {
		case s.Sent < 30 || s.Sent > 70:
			t.Errorf("%s: %d sent in 0.5 s at 100 a second each", s.Kind, s.Sent)
		case wantFail && (s.Failed != s.Sent || !strings.Contains(s.Example, "execution reverted")):
			t.Errorf("%s: %+v; want every read failed with the node's reason", s.Kind, s)
		case !wantFail && (s.Answered != s.Sent || s.Failed != 0 || !(s.P99 > 0) || s.P99 < s.P50):
			t.Errorf("%s: %+v; want every read answered with a latency", s.Kind, s)
		}
	}
}

// A node that does not answer: reads fail at their timeout, and those due
// while 64 wait are skipped, not piled up.
func TestReadsBoundedWhenTheNodeHangs(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	r, err := StartReads(context.Background(), ReadConfig{URLs: []string{srv.URL}, Rate: 1000, Wallets: Wallets("reads", 2), Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	var sent, failed, skipped int64
	for _, s := range r.Stop() {
		sent, failed, skipped = sent+s.Sent, failed+s.Failed, skipped+s.Skipped
		if s.Answered != 0 {
			t.Errorf("%s: %d answered by a node that answers nothing", s.Kind, s.Answered)
		}
	}
	if failed < 64 || skipped < 100 || sent < 500 {
		t.Errorf("sent %d, failed %d, skipped %d: want at least 64 timed out and the rest skipped", sent, failed, skipped)
	}
	if _, err := StartReads(context.Background(), ReadConfig{Rate: 1}); err == nil {
		t.Error("a read load with no server started")
	}
}
