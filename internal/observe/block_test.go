package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	cmtjson "github.com/cometbft/cometbft/libs/json"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	rpctypes "github.com/cometbft/cometbft/rpc/jsonrpc/types"
	"github.com/cometbft/cometbft/types"

	"github.com/chainperf/chainperf/internal/load"
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

// sameAsCometBFT says how b, decoded keeping every tx, differs from the
// block CometBFT's own decoding made ("" if in nothing): the header,
// evidence and commit, the tx count, the size, and each tx's place and
// hash. It takes want's txs out.
func sameAsCometBFT(b *block, want *types.Block) string {
	if b.txs != len(want.Txs) || b.bytes != want.Size() || len(b.ours) != len(want.Txs) {
		return fmt.Sprintf("%d txs of %d bytes, %d kept; CometBFT: %d txs of %d bytes", b.txs, b.bytes, len(b.ours), len(want.Txs), want.Size())
	}
	for i, tx := range want.Txs {
		if b.ours[i].i != i || b.ours[i].hash != load.Hash(tx.Hash()) {
			return fmt.Sprintf("tx %d: kept as %d, %x; CometBFT's hash %X", i, b.ours[i].i, b.ours[i].hash, tx.Hash())
		}
	}
	want.Data.Txs = nil
	if !reflect.DeepEqual(b.Block, want) {
		return fmt.Sprintf("decoded\n%+v\nwant\n%+v", b.Block, want)
	}
	return ""
}

func keepAll(load.Hash) bool { return true }

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
		got, err := decodeBlock(data, 42, keepAll)
		if err != nil {
			t.Fatalf("%d txs: %v", txs, err)
		}
		if len(want.Evidence.Evidence) != 1 || want.LastCommit.Round != 2 {
			t.Fatalf("%d txs: %d evidence, round %d", txs, len(want.Evidence.Evidence), want.LastCommit.Round)
		}
		var third load.Hash
		if txs > 2 {
			third = load.Hash(want.Txs[2].Hash())
		}
		if diff := sameAsCometBFT(got, want); diff != "" {
			t.Fatalf("%d txs: %s", txs, diff)
		}
		// Kept: only what keep takes, in place.
		if txs > 2 {
			got, _ := decodeBlock(data, 42, func(h load.Hash) bool { return h == third })
			if len(got.ours) != 1 || got.ours[0].i != 2 || got.txs != txs {
				t.Errorf("%d txs, keeping the third: kept %+v of %d", txs, got.ours, got.txs)
			}
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
		_, err := decodeBlock([]byte(c.answer), h, keepAll)
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
		got, err := decodeBlock(data, 42, keepAll)
		if !asNodesWrite(data) {
			return
		}
		want, werr := cometbftDecode(data, 42)
		if err == nil && werr == nil {
			if diff := sameAsCometBFT(got, want); diff != "" {
				t.Fatal(diff)
			}
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

// tinyTxs is a /block answer of n one-byte txs ("AA==" each, 7 bytes of
// JSON: 9.6 million fill the 64 MiB answer cap).
func tinyTxs(t testing.TB, n int) []byte {
	t.Helper()
	empty := blockAnswer(t, 42, 0)
	at := regexp.MustCompile(`"txs":(null|\[\])`).FindIndex(empty)
	if at == nil {
		t.Fatalf("no txs in %s", empty)
	}
	var b bytes.Buffer
	b.Grow(len(empty) + 7*n)
	b.Write(empty[:at[0]])
	b.WriteString(`"txs":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"AA=="`)
	}
	b.WriteByte(']')
	b.Write(empty[at[1]:])
	return b.Bytes()
}

// A block of two million tiny txs, none the ledger's: decoding it
// allocates next to nothing per tx, and counts and sizes them all. (When
// every tx became a []byte, was hashed after, and the block was
// marshalled again for its size, a 64 MiB answer of 9.6 million took
// 2.5 GB a decode and 1.5 GB of RSS: bench/blockmem.sh.)
func TestDecodeBlockKeepsWhatIsOurs(t *testing.T) {
	const n = 2_000_000
	data := tinyTxs(t, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b, err := decodeBlock(data, 42, func(load.Hash) bool { return false })
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if b.txs != n || len(b.ours) != 0 || b.bytes < 3*n {
		t.Fatalf("%d txs, %d kept, %d bytes; want %d, none, over %d", b.txs, len(b.ours), b.bytes, n, 3*n)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("decoding %d tiny txs allocated %.1f MB; want under 4 MB (nothing a tx)", n, float64(alloc)/(1<<20))
	}
}

// BenchmarkDecodeTinyTxs decodes the 64 MiB /block answer of tiny txs
// (bench/blockmem.sh): the answer itself, then what decoding adds, as
// MB allocated and the process's peak RSS.
func BenchmarkDecodeTinyTxs(b *testing.B) {
	data := tinyTxs(b, (64<<20-4096)/7)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := decodeBlock(data, 42, func(load.Hash) bool { return false }); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		if m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status); m != nil {
			kb, _ := strconv.Atoi(string(m[1]))
			b.ReportMetric(float64(kb)/1024, "peak-RSS-MB")
		}
	}
}
