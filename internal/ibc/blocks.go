package ibc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// maxBlockAnswer bounds what one node answer may be: a block's results
// with every tx's events are a few MB at most on a chain chainperf loads.
const maxBlockAnswer = 32 << 20

// BlockEvents reads the events of height on the node at rpc (its txs' and
// the block's own) and the block's time.
func BlockEvents(ctx context.Context, c *http.Client, rpc string, height int64) (time.Time, []Event, error) {
	var res struct {
		TxsResults []struct {
			Events []Event `json:"events"`
		} `json:"txs_results"`
		FinalizeBlockEvents []Event `json:"finalize_block_events"`
	}
	if err := get(ctx, c, fmt.Sprintf("%s/block_results?height=%d", rpc, height), &res); err != nil {
		return time.Time{}, nil, err
	}
	var hdr struct {
		Header struct {
			Time time.Time `json:"time"`
		} `json:"header"`
	}
	if err := get(ctx, c, fmt.Sprintf("%s/header?height=%d", rpc, height), &hdr); err != nil {
		return time.Time{}, nil, err
	}
	var out []Event
	for _, tx := range res.TxsResults {
		out = append(out, tx.Events...)
	}
	return hdr.Header.Time, append(out, res.FinalizeBlockEvents...), nil
}

// Height is the node's latest height.
func Height(ctx context.Context, c *http.Client, rpc string) (int64, error) {
	var st struct {
		SyncInfo struct {
			Height int64 `json:"latest_block_height,string"`
		} `json:"sync_info"`
	}
	err := get(ctx, c, rpc+"/status", &st)
	return st.SyncInfo.Height, err
}

// get reads a CometBFT JSON-RPC answer's result into v, at most
// maxBlockAnswer bytes of it.
func get(ctx context.Context, c *http.Client, url string, v any) error {
	b, err := read(ctx, c, url)
	if err != nil {
		return err
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
			Data    string `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%s: not a JSON-RPC answer: %v", url, err)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: %s %s", url, cutText(r.Error.Message, 200), cutText(r.Error.Data, 200))
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		return fmt.Errorf("%s: %v", url, err)
	}
	return nil
}

// getREST reads a REST gateway's JSON answer into v, of the state at
// height (the SDK's x-cosmos-block-height header).
func getREST(ctx context.Context, c *http.Client, url string, height int64, v any) error {
	b, err := read(ctx, c, url, "x-cosmos-block-height", strconv.FormatInt(height, 10))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v: %s", url, err, cutText(string(b), 200))
	}
	return nil
}

// read is a GET's body, at most maxBlockAnswer bytes, from a 200; header
// is pairs of a name and a value.
func read(ctx context.Context, c *http.Client, url string, header ...string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBlockAnswer+1))
	switch {
	case err != nil:
		return nil, err
	case len(b) > maxBlockAnswer:
		return nil, fmt.Errorf("%s: the answer is over %d MB", url, maxBlockAnswer>>20)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s: %s: %s", url, resp.Status, cutText(string(b), 200))
	}
	return b, nil
}
