package observe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	cmtjson "github.com/cometbft/cometbft/libs/json"
	rpctypes "github.com/cometbft/cometbft/rpc/jsonrpc/types"
	"github.com/cometbft/cometbft/types"
)

// decodeBlock reads a /block answer in one pass of encoding/json, the txs
// as base64 (as CometBFT writes them), then the header, evidence and last
// commit, small, with CometBFT's own JSON. CometBFT's reflection over
// every tx of a 600-tx block was most of the follower's CPU; the block
// made is the one CometBFT's decoding makes of what a node writes
// (FuzzDecodeBlock; encoding/json matches keys in any case and merges a
// repeated object, CometBFT's does neither).
func decodeBlock(data []byte, h int64) (*types.Block, error) {
	var resp struct {
		Result *struct {
			Block *struct {
				Header json.RawMessage `json:"header"`
				Data   struct {
					Txs [][]byte `json:"txs"`
				} `json:"data"`
				Evidence   json.RawMessage `json:"evidence"`
				LastCommit json.RawMessage `json:"last_commit"`
			} `json:"block"`
		} `json:"result"`
		Error *rpctypes.RPCError `json:"error"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &badBlock{fmt.Sprintf("block %d: not a JSON-RPC answer", h)}
		}
		return nil, &badBlock{fmt.Sprintf("block %d: not a CometBFT block (%v)", h, err)}
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("block %d: %s %s", h, resp.Error.Message, clip(resp.Error.Data, 200))
	}
	if resp.Result == nil || resp.Result.Block == nil {
		return nil, &badBlock{fmt.Sprintf("block %d: not a CometBFT block (no block)", h)}
	}
	rb := resp.Result.Block
	blk := &types.Block{}
	for _, tx := range rb.Data.Txs {
		blk.Data.Txs = append(blk.Data.Txs, tx)
	}
	for _, part := range []struct {
		raw  json.RawMessage
		into any
	}{{rb.Header, &blk.Header}, {rb.Evidence, &blk.Evidence}, {rb.LastCommit, &blk.LastCommit}} {
		if len(part.raw) > 0 && string(part.raw) != "null" {
			if err := cmtjson.Unmarshal(part.raw, part.into); err != nil {
				return nil, &badBlock{fmt.Sprintf("block %d: not a CometBFT block (%v)", h, err)}
			}
		}
	}
	if blk.Height != h {
		return nil, &badBlock{fmt.Sprintf("asked for block %d, answered a block of height %d", h, blk.Height)}
	}
	return blk, nil
}
