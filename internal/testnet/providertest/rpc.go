package providertest

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/p2p"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	rpctypes "github.com/cometbft/cometbft/rpc/jsonrpc/types"
	"github.com/cometbft/cometbft/types"
)

// handler answers one fake node's HTTP requests: JSON-RPC (single or
// batch) on POST, the same methods as GET /method?params, and /metrics.
type handler struct {
	f  *Fake
	nd *node
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.f.mu.Lock()
	paused, cut := h.nd.paused, h.nd.disconnected
	h.f.mu.Unlock()
	if paused != nil { // a stopped process holds the connection
		select {
		case <-paused:
		case <-r.Context().Done():
			return
		}
	}
	if cut { // the harness cannot reach a node whose link is down
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
		return
	}
	if r.URL.Path == "/metrics" {
		h.metrics(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodGet {
		params := map[string]string{}
		for k, v := range r.URL.Query() {
			params[k] = v[0]
		}
		h.write(w, h.call(rpctypes.RPCRequest{ID: rpctypes.JSONRPCIntID(-1), Method: r.URL.Path[1:]}, params))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
		var reqs []rpctypes.RPCRequest
		if err := json.Unmarshal(body, &reqs); err != nil {
			h.write(w, rpctypes.RPCParseError(err))
			return
		}
		out := make([]rpctypes.RPCResponse, len(reqs))
		for i, q := range reqs {
			out[i] = h.call(q, params(q.Params))
		}
		h.write(w, out)
		return
	}
	var q rpctypes.RPCRequest
	if err := json.Unmarshal(body, &q); err != nil {
		h.write(w, rpctypes.RPCParseError(err))
		return
	}
	h.write(w, h.call(q, params(q.Params)))
}

// params reads named params as strings (CometBFT writes int64 as "5").
func params(raw json.RawMessage) map[string]string {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	out := map[string]string{}
	for k, v := range m {
		switch x := v.(type) {
		case string:
			out[k] = x
		case float64:
			out[k] = strconv.FormatInt(int64(x), 10)
		}
	}
	return out
}

func (h *handler) write(w http.ResponseWriter, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write(data)
}

func (h *handler) call(q rpctypes.RPCRequest, p map[string]string) rpctypes.RPCResponse {
	f, nd, id, method := h.f, h.nd, q.ID, q.Method
	f.mu.Lock()
	defer f.mu.Unlock()
	switch method {
	case "health":
		return rpctypes.NewRPCSuccessResponse(id, &ctypes.ResultHealth{})
	case "status":
		st := &ctypes.ResultStatus{NodeInfo: p2p.DefaultNodeInfo{DefaultNodeID: p2p.ID(nd.n.ID), Network: f.t.ChainID, Moniker: nd.n.Name}}
		st.SyncInfo.LatestBlockHeight = nd.height
		st.SyncInfo.CatchingUp = time.Now().Before(nd.syncedAt)
		if nd.height > 0 {
			st.SyncInfo.LatestBlockTime = f.chain[nd.height-1].time
		}
		st.ValidatorInfo.VotingPower = nd.n.Power
		return rpctypes.NewRPCSuccessResponse(id, st)
	case "block", "block_results":
		height, err := strconv.ParseInt(p["height"], 10, 64)
		if p["height"] == "" {
			height, err = nd.height, nil
		}
		if err != nil || height < 1 || height > nd.height {
			return rpctypes.RPCInvalidParamsError(id, fmt.Errorf("height %s must be from 1 to the current height %d", p["height"], nd.height))
		}
		b := f.chain[height-1]
		if method == "block_results" {
			res := &ctypes.ResultBlockResults{Height: height}
			for _, c := range b.codes {
				res.TxsResults = append(res.TxsResults, &abci.ExecTxResult{Code: c})
			}
			return rpctypes.NewRPCSuccessResponse(id, res)
		}
		return rpctypes.NewRPCSuccessResponse(id, f.blockAt(height, b))
	case "broadcast_tx_sync", "broadcast_tx_async":
		tx, err := base64.StdEncoding.DecodeString(p["tx"])
		if err != nil {
			return rpctypes.RPCInvalidParamsError(id, err)
		}
		sum := sha256.Sum256(tx)
		if f.cfg.Reject != nil {
			if why := f.cfg.Reject(tx); why != "" {
				return rpctypes.NewRPCSuccessResponse(id, &ctypes.ResultBroadcastTx{Code: 1, Log: why, Hash: sum[:]})
			}
		}
		nd.pending = append(nd.pending, tx)
		return rpctypes.NewRPCSuccessResponse(id, &ctypes.ResultBroadcastTx{Hash: sum[:]})
	}
	return rpctypes.RPCMethodNotFoundError(id)
}

// blockAt builds the CometBFT block of height h: its txs, time and a last
// commit (round 0) so that the follower can tell the previous block's round.
func (f *Fake) blockAt(h int64, b block) *ctypes.ResultBlock {
	txs := make(types.Txs, len(b.txs))
	for i, tx := range b.txs {
		txs[i] = tx
	}
	blk := types.MakeBlock(h, txs, &types.Commit{Height: h - 1}, nil)
	blk.ChainID, blk.Time = f.t.ChainID, b.time
	return &ctypes.ResultBlock{BlockID: types.BlockID{Hash: blk.Hash()}, Block: blk}
}

func (h *handler) metrics(w http.ResponseWriter) {
	f := h.f
	f.mu.Lock()
	mempool := len(f.mempool) + len(h.nd.pending)
	height := h.nd.height
	peers := 0
	for _, o := range f.nodes {
		if o != h.nd && o.up() {
			peers++
		}
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintf(w, "# TYPE cometbft_mempool_size gauge\ncometbft_mempool_size{chain_id=%q} %d\n", f.t.ChainID, mempool)
	fmt.Fprintf(w, "# TYPE cometbft_consensus_height gauge\ncometbft_consensus_height{chain_id=%q} %d\n", f.t.ChainID, height)
	fmt.Fprintf(w, "# TYPE cometbft_p2p_peers gauge\ncometbft_p2p_peers{chain_id=%q} %d\n", f.t.ChainID, peers)
}
