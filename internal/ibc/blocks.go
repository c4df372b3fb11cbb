package ibc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/chainperf/chainperf/internal/nodehttp"
)

// The relay's reads of the nodes, each within nodehttp's caps.
var (
	blockClient = nodehttp.Client(nodehttp.Block) // block_results, header
	queryClient = nodehttp.Client(nodehttp.Query) // the REST gateway
)

// BlockEvents reads the events of height on the node at rpc (its txs' and
// the block's own) and the block's time.
func BlockEvents(ctx context.Context, rpc string, height int64) (time.Time, []Event, error) {
	var res struct {
		TxsResults []struct {
			Events []Event `json:"events"`
		} `json:"txs_results"`
		FinalizeBlockEvents []Event `json:"finalize_block_events"`
	}
	if err := get(ctx, fmt.Sprintf("%s/block_results?height=%d", rpc, height), &res); err != nil {
		return time.Time{}, nil, err
	}
	var hdr struct {
		Header struct {
			Time time.Time `json:"time"`
		} `json:"header"`
	}
	if err := get(ctx, fmt.Sprintf("%s/header?height=%d", rpc, height), &hdr); err != nil {
		return time.Time{}, nil, err
	}
	var out []Event
	for _, tx := range res.TxsResults {
		out = append(out, tx.Events...)
	}
	return hdr.Header.Time, append(out, res.FinalizeBlockEvents...), nil
}

// Height is the node's latest height.
func Height(ctx context.Context, rpc string) (int64, error) {
	st, err := nodehttp.ReadStatus(ctx, rpc)
	return st.Height, err
}

// get reads a CometBFT JSON-RPC answer's result into v.
func get(ctx context.Context, url string, v any) error {
	b, err := nodehttp.Get(ctx, blockClient, url)
	if err != nil {
		return err
	}
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil || len(r.Result) == 0 {
		return fmt.Errorf("%s: not a JSON-RPC result (%v): %s", url, err, cutText(string(b), 200))
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		return fmt.Errorf("%s: %v", url, err)
	}
	return nil
}

// getREST reads a REST gateway's JSON answer into v, of the state at
// height (the SDK's x-cosmos-block-height header).
func getREST(ctx context.Context, url string, height int64, v any) error {
	b, err := nodehttp.GetWith(ctx, queryClient, url, http.Header{"X-Cosmos-Block-Height": {strconv.FormatInt(height, 10)}})
	if err != nil {
		return fmt.Errorf("%w: %s", err, cutText(string(b), 200))
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v: %s", url, err, cutText(string(b), 200))
	}
	return nil
}
