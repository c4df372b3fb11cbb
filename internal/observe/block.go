package observe

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"

	cmtjson "github.com/cometbft/cometbft/libs/json"
	rpctypes "github.com/cometbft/cometbft/rpc/jsonrpc/types"
	"github.com/cometbft/cometbft/types"

	"github.com/chainperf/chainperf/internal/load"
)

// A block is a block as the follower keeps it: its header, evidence and
// last commit, how many txs it held and its size, and only the txs the
// ledger may know (a hash and a place each). Memory follows what is
// kept, not what a node sent: a 64 MiB answer of tiny txs is millions of
// them, none of them ours.
type block struct {
	*types.Block // with no txs
	txs          int
	bytes        int // the whole block's protobuf size, as types.Block.Size says
	ours         []ourTx
}

// ourTx is a tx of a block the ledger may know: its place and hash.
type ourTx struct {
	i    int
	hash load.Hash
}

// txArray is a block's txs as the answer holds them: encoding/json hands
// UnmarshalJSON a slice of the answer itself, kept (not copied) and read
// one tx at a time (eachTx).
type txArray struct{ raw []byte }

func (a *txArray) UnmarshalJSON(b []byte) error {
	a.raw = b
	return nil
}

// decodeBlock reads a /block answer: the header, evidence and last
// commit, small, with CometBFT's own JSON; the txs one at a time from
// the answer, each hashed and counted, and kept only when keep (nil:
// none) says the ledger knows its hash. CometBFT's reflection over every
// tx of a 600-tx block was most of the follower's CPU, and a [][]byte of
// a million tiny txs over a gigabyte; the block is the one CometBFT's
// decoding makes of what a node writes (FuzzDecodeBlock; encoding/json
// matches keys in any case and merges a repeated object, CometBFT's does
// neither).
func decodeBlock(data []byte, h int64, keep func(load.Hash) bool) (*block, error) {
	var resp struct {
		Result *struct {
			Block *struct {
				Header json.RawMessage `json:"header"`
				Data   struct {
					Txs txArray `json:"txs"`
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
	b := &block{Block: &types.Block{}}
	for _, part := range []struct {
		raw  json.RawMessage
		into any
	}{{rb.Header, &b.Header}, {rb.Evidence, &b.Evidence}, {rb.LastCommit, &b.LastCommit}} {
		if len(part.raw) > 0 && string(part.raw) != "null" {
			if err := cmtjson.Unmarshal(part.raw, part.into); err != nil {
				return nil, &badBlock{fmt.Sprintf("block %d: not a CometBFT block (%v)", h, err)}
			}
		}
	}
	if b.Height != h {
		return nil, &badBlock{fmt.Sprintf("asked for block %d, answered a block of height %d", h, b.Height)}
	}
	// The txs' part of the protobuf size: a tag, a length and the bytes
	// each (types.Data's encoding); the rest is the block's without txs.
	var data64 uint64
	err := eachTx(rb.Data.Txs.raw, func(tx []byte) {
		n := uint64(len(tx))
		data64 += 1 + varintLen(n) + n
		if keep != nil {
			if hash := load.Hash(sha256.Sum256(tx)); keep(hash) {
				b.ours = append(b.ours, ourTx{i: b.txs, hash: hash})
			}
		}
		b.txs++
	})
	if err != nil {
		return nil, &badBlock{fmt.Sprintf("block %d: not a CometBFT block (%v)", h, err)}
	}
	// Data, a field of its own: a tag and a length before it; empty, the
	// size below counts it as two bytes.
	if size := b.Block.Size(); size > 0 { // 0: not a block protobuf can hold
		b.bytes = size - 2 + int(1+varintLen(data64)+data64)
	}
	return b, nil
}

// varintLen is the bytes protobuf's varint of x takes.
func varintLen(x uint64) uint64 { return uint64(bits.Len64(x|1)+6) / 7 }

// eachTx calls fn with each tx of a JSON array of base64 strings (null
// or absent: none), decoded as encoding/json decodes a []byte, in a
// buffer fn must not keep. It walks raw with results.go's scanner.
func eachTx(raw []byte, fn func(tx []byte)) error {
	s := scan{b: raw}
	if s.peek() == 0 || s.literal("null") {
		return nil
	}
	var buf []byte
	var bad error
	ok := s.array(func() bool {
		if s.literal("null") { // a nil []byte, as encoding/json makes it
			fn(nil)
			return true
		}
		start := s.i
		if s.peek() != '"' || !s.str() {
			return false
		}
		quoted := raw[start:s.i]
		if bytes.IndexByte(quoted, '\\') >= 0 { // rare: encoding/json unquotes it first
			var tx []byte
			if bad = json.Unmarshal(quoted, &tx); bad != nil {
				return false
			}
			fn(tx)
			return true
		}
		text := quoted[1 : len(quoted)-1]
		if n := base64.StdEncoding.DecodedLen(len(text)); cap(buf) < n {
			buf = make([]byte, n)
		}
		n, err := base64.StdEncoding.Decode(buf[:cap(buf)], text)
		if bad = err; err != nil {
			return false
		}
		fn(buf[:n])
		return true
	})
	switch {
	case bad != nil:
		return fmt.Errorf("txs: %v", bad)
	case !ok:
		return fmt.Errorf("txs: not an array of base64 strings")
	}
	return nil
}
