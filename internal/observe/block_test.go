package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	cmtjson "github.com/cometbft/cometbft/libs/json"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	rpctypes "github.com/cometbft/cometbft/rpc/jsonrpc/types"
	"github.com/cometbft/cometbft/types"
)

// cometbftDecode is how the follower read a /block answer before
// decodeBlock: the whole answer through CometBFT's own JSON. That panics
// on some answers (RPCResponse.UnmarshalJSON of `null`, v0.38.19, found by
// FuzzDecodeBlock in CI): a refusal here, as decodeBlock refuses them.
func cometbftDecode(data []byte, h int64) (b *types.Block, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, fmt.Errorf("CometBFT's decoding panics: %v", p)
		}
	}()
	var resp rpctypes.RPCResponse
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	var rb ctypes.ResultBlock
	if err := cmtjson.Unmarshal(resp.Result, &rb); err != nil {
		return nil, err
	}
	if rb.Block == nil || rb.Block.Height != h {
		return nil, fmt.Errorf("no block %d", h)
	}
	return rb.Block, nil
}

// blockAnswer is a node's /block answer for a block of h with txs, a
// commit with a precommit absent, and a piece of evidence.
func blockAnswer(t testing.TB, h int64, txs int) []byte {
	t.Helper()
	at := time.Date(2026, 11, 27, 10, 0, 0, 123456789, time.UTC)
	var list []types.Tx
	for i := range txs {
		list = append(list, types.Tx(fmt.Sprintf("key%04d=value%04d-%s", i, i, strings.Repeat("x", i%50))))
	}
	commit := &types.Commit{Height: h - 1, Round: 2, BlockID: types.BlockID{Hash: bytes.Repeat([]byte{7}, 32),
		PartSetHeader: types.PartSetHeader{Total: 3, Hash: bytes.Repeat([]byte{8}, 32)}}}
	for i := range 4 {
		sig := types.CommitSig{BlockIDFlag: types.BlockIDFlagCommit, ValidatorAddress: bytes.Repeat([]byte{byte(i + 1)}, 20),
			Timestamp: at.Add(time.Duration(i) * time.Millisecond), Signature: bytes.Repeat([]byte{byte(i + 9)}, 64)}
		if i == 2 {
			sig = types.CommitSig{BlockIDFlag: types.BlockIDFlagAbsent}
		}
		commit.Signatures = append(commit.Signatures, sig)
	}
	ev, err := types.NewMockDuplicateVoteEvidence(h-2, at, "chainperf")
	if err != nil {
		t.Fatal(err)
	}
	blk := types.MakeBlock(h, list, commit, []types.Evidence{ev})
	blk.ChainID, blk.Time, blk.ProposerAddress = "chainperf", at, bytes.Repeat([]byte{3}, 20)
	blk.Hash()
	result, err := cmtjson.Marshal(&ctypes.ResultBlock{Block: blk, BlockID: types.BlockID{Hash: blk.Hash()}})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":-1,"result":%s}`, result)
}

// decodeBlock makes the block CometBFT's own decoding makes, its size
// included, and refuses what is not a block of the height asked, saying
// which.
func TestDecodeBlock(t *testing.T) {
	for _, txs := range []int{0, 1, 625} {
		data := blockAnswer(t, 42, txs)
		want, err := cometbftDecode(data, 42)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeBlock(data, 42)
		if err != nil {
			t.Fatalf("%d txs: %v", txs, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d txs: decoded\n%+v\nwant\n%+v", txs, got, want)
		}
		if got.Size() != want.Size() || len(got.Txs) != txs || len(got.Evidence.Evidence) != 1 || got.LastCommit.Round != 2 {
			t.Fatalf("%d txs: size %d (want %d), %d txs, %d evidence, round %d", txs, got.Size(), want.Size(), len(got.Txs), len(got.Evidence.Evidence), got.LastCommit.Round)
		}
	}
	good := string(blockAnswer(t, 42, 3))
	for _, c := range []struct{ name, answer, says string }{
		{"not JSON", "<html>busy</html>", "not a JSON-RPC answer"},
		{"cut short", good[:len(good)/2], "not a JSON-RPC answer"},
		{"an error", `{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"height 42 is not available","data":"lowest height is 50"}}`, "height 42 is not available lowest height is 50"},
		{"no block", `{"jsonrpc":"2.0","id":-1,"result":{"block":null}}`, "no block"},
		{"another height", good, "answered a block of height 42"},
		{"a tx not base64", strings.Replace(good, `"txs":["`, `"txs":["%%`, 1), "not a CometBFT block"},
		{"a header of another shape", strings.Replace(good, `"height":"42"`, `"height":{}`, 1), "not a CometBFT block"},
	} {
		h := int64(42)
		if c.name == "another height" {
			h = 43
		}
		_, err := decodeBlock([]byte(c.answer), h)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v; want it to say %q", c.name, err, c.says)
		}
	}
}

// Of what a node could write (asNodesWrite), decodeBlock takes what
// CometBFT's decoding takes, and makes the same block of it.
func FuzzDecodeBlock(f *testing.F) {
	f.Add(blockAnswer(f, 42, 3))
	f.Add(blockAnswer(f, 42, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeBlock(data, 42)
		if !asNodesWrite(data) {
			return
		}
		want, werr := cometbftDecode(data, 42)
		if err == nil && werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded\n%+v\nCometBFT decodes\n%+v", got, want)
		}
		if werr == nil && err != nil {
			t.Fatalf("CometBFT decodes a block decodeBlock refuses: %v", err)
		}
	})
}

// asNodesWrite reports whether the keys on the way to what decodeBlock
// reads are spelled as CometBFT writes them, each once: encoding/json
// matches a key in any case (and Unicode's folds) and decodes a repeated
// object into the one before, CometBFT's JSON does neither. Past those
// keys the two read alike.
func asNodesWrite(data []byte) bool {
	keys := map[string][]string{
		"":                  {"result", "error"},
		"result":            {"block"},
		"result.block":      {"header", "data", "evidence", "last_commit"},
		"result.block.data": {"txs"},
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var value func(path string) bool
	value = func(path string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return true
		}
		seen := map[string]bool{}
		for dec.More() {
			child := path + "[]"
			if d == '{' {
				kt, err := dec.Token()
				k, ok := kt.(string)
				if err != nil || !ok {
					return false
				}
				for _, want := range keys[path] {
					if strings.EqualFold(k, want) && (k != want || seen[k]) {
						return false
					}
				}
				seen[k] = true
				child = strings.TrimPrefix(path+"."+k, ".")
			}
			if !value(child) {
				return false
			}
		}
		_, err = dec.Token()
		return err == nil
	}
	return value("") && !dec.More()
}
