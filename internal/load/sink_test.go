package load

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// The sink answers broadcasts over /websocket as tm-load-test (CometBFT's
// loadtime tool) sends them, one answer a message with the request's id,
// and counts their txs with the rest.
func TestSinkWebsocket(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Sink{}
	done := make(chan error, 1)
	go func() { done <- s.ServeWebsocket(ctx, l) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeWebsocket: %v", err)
		}
	}()
	c, _, err := websocket.DefaultDialer.Dial("ws://"+l.Addr().String()+"/websocket", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// tm-load-test's request: id -1, broadcast_tx_async, params {"tx": base64}.
	for i := 0; i < 3; i++ {
		if err := c.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":-1,"method":"broadcast_tx_async","params":{"tx":"a2V5PXZhbHVl"}}`)); err != nil {
			t.Fatal(err)
		}
		_, msg, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			ID     int `json:"id"`
			Result struct {
				Code *int `json:"code"`
			} `json:"result"`
		}
		if err := json.Unmarshal(msg, &r); err != nil || r.ID != -1 || r.Result.Code == nil || *r.Result.Code != 0 {
			t.Fatalf("answer %s (%v); want code 0 for id -1", msg, err)
		}
	}
	if err := c.WriteMessage(websocket.TextMessage, []byte(`[{"jsonrpc":"2.0","id":7,"method":"broadcast_tx_sync","params":{"tx":"AA=="}},{"jsonrpc":"2.0","id":8,"method":"broadcast_tx_sync","params":{"tx":"AQ=="}}]`)); err != nil {
		t.Fatal(err)
	}
	_, msg, err := c.ReadMessage()
	var batch []struct {
		ID int `json:"id"`
	}
	if err != nil || json.Unmarshal(msg, &batch) != nil || len(batch) != 2 || batch[0].ID != 7 || batch[1].ID != 8 {
		t.Fatalf("batch answer %s (%v); want ids 7 and 8", msg, err)
	}
	if st := s.Stats(); st.Txs != 5 {
		t.Errorf("sink counted %d txs; want 5", st.Txs)
	}
	// A message past the limit ends the connection, unanswered.
	if err := c.WriteMessage(websocket.TextMessage, make([]byte, maxWebsocketMessage+1)); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := c.ReadMessage(); err == nil {
		t.Errorf("a message past %d bytes was answered: %.80s", maxWebsocketMessage, msg)
	}
	// Not a websocket: refused, and counted as nothing.
	if _, resp, err := websocket.DefaultDialer.Dial("ws://"+l.Addr().String()+"/other", nil); err == nil || resp == nil || resp.StatusCode != 404 {
		t.Errorf("dial /other: %v %v; want 404", err, resp)
	}
}

// A sink with Work spends it on each tx: 40 txs at 2 ms each take 80 ms
// (40 ms at least is asked: half for the calibration's error; a busy
// machine only makes it slower).
func TestSinkWork(t *testing.T) {
	body := bytes.Repeat([]byte(`{"jsonrpc":"2.0","id":1,"method":"broadcast_tx_sync","params":{"tx":"AA=="}}`), 40)
	s := &Sink{Work: 2 * time.Millisecond}
	start := time.Now()
	var out bytes.Buffer
	s.answer(&out, body)
	if took := time.Since(start); took < 40*time.Millisecond || s.Txs.Load() != 40 {
		t.Errorf("40 txs at 2 ms of work answered in %v (%d counted); want 40 ms or more, 40", took, s.Txs.Load())
	}
}
