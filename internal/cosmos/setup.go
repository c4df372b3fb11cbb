package cosmos

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/msgtemplate"
)

// A SetupStep is a tx sent before the load: its template, how many times
// (its {counter} 0, 1, ...), and the placeholders it binds from the
// chain's events ("type.attribute").
type SetupStep struct {
	Text  string
	Count int
	Bind  map[string]string
	Where string // "file:line" of the step in the scenario
}

// SetupConfig is where set-up txs go and who pays for them.
type SetupConfig struct {
	RPC      string
	ChainID  string
	Denom    string
	GasPrice float64
	Wallet   Wallet // a wallet of its own, not one the load sends from
	Desc     *msgtemplate.Descriptors
	File     func(kind, path string) ([]byte, error)
	Wait     time.Duration // for each tx's block
	Logf     func(string, ...any)
}

// A SetupTx is one set-up tx as the chain ran it.
type SetupTx struct {
	Step    int    `json:"step"`
	Msg     string `json:"msg"` // type URL
	Hash    string `json:"hash"`
	Height  int64  `json:"height"`
	GasUsed int64  `json:"gas_used"`
	Bound   string `json:"bound,omitempty"` // name=value, ...
}

// maxAnswer bounds a node's JSON answer (a block or its results: a busy
// chain's may be large).
const maxAnswer = 64 << 20

// RunSetup sends every step's txs one after another, each simulated for
// its gas, signed, and waited for in a block; a step that fails fails the
// set-up with the chain's own log and the step's place in the scenario.
// It returns what the steps bound.
func RunSetup(ctx context.Context, c *http.Client, cfg SetupConfig, steps []SetupStep) (map[string][]string, []SetupTx, error) {
	bound := map[string][]string{}
	var done []SetupTx
	acct, err := QueryAccount(ctx, c, cfg.RPC, cfg.Wallet.Address)
	if err != nil {
		return nil, nil, fmt.Errorf("set-up: read the set-up wallet %s: %w", cfg.Wallet.Address, err)
	}
	w := cfg.Wallet
	w.Number = acct.Number
	seq := acct.Sequence
	for i, st := range steps {
		tmpl, err := msgtemplate.Compile(cfg.Desc, st.Text, msgtemplate.Options{Bound: bound, File: cfg.File})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: workload.setup[%d].msg: %w", st.Where, i, err)
		}
		got := map[string][]string{}
		for j := range max(st.Count, 1) {
			fail := func(format string, a ...any) error {
				return fmt.Errorf("%s: workload.setup[%d] (%s), tx %d of %d: %s", st.Where, i, tmpl.URL, j+1, max(st.Count, 1), fmt.Sprintf(format, a...))
			}
			msg, err := tmpl.Append(nil, &msgtemplate.Vars{Wallet: w.Address, Other: w.Address, Denom: cfg.Denom, N: uint64(j)})
			if err != nil {
				return nil, nil, fail("%v", err)
			}
			spec := TxSpec{ChainID: cfg.ChainID, Msgs: One(tmpl.URL, msg), Fee: Coin{Denom: cfg.Denom, Amount: 1}, GasLimit: 100_000_000,
				Memo: "chainperf set-up " + strconv.Itoa(i)}
			var b Builder
			tx, err := b.Append(nil, &spec, &w, seq)
			if err != nil {
				return nil, nil, fail("%v", err)
			}
			used, err := Simulate(ctx, c, cfg.RPC, tx)
			if err != nil {
				return nil, nil, fail("the chain refused it in a simulation: %v", err)
			}
			spec.GasLimit = uint64(math.Ceil(float64(used) * GasAdjustment))
			spec.Fee.Amount = max(1, uint64(math.Ceil(float64(spec.GasLimit)*cfg.GasPrice)))
			if tx, err = b.Append(nil, &spec, &w, seq); err != nil {
				return nil, nil, fail("%v", err)
			}
			from, _ := chainHeight(ctx, c, cfg.RPC)
			code, log, err := BroadcastSync(ctx, c, cfg.RPC, tx)
			switch {
			case err != nil:
				return nil, nil, fail("%v", err)
			case code != 0:
				return nil, nil, fail("refused at CheckTx: code %d: %s", code, log)
			}
			seq++
			res, height, err := waitTx(ctx, c, cfg.RPC, tx, from, cfg.Wait)
			if err != nil {
				return nil, nil, fail("%v", err)
			}
			if res.Code != 0 {
				return nil, nil, fail("failed in block %d: code %d: %s", height, res.Code, res.Log)
			}
			var said []string
			for _, name := range sortedNames(st.Bind) {
				v, ok := attribute(res.Events, st.Bind[name])
				if !ok {
					return nil, nil, fail("bind.%s: the tx emitted no %q (its events: %s)", name, st.Bind[name], eventTypes(res.Events))
				}
				got[name] = append(got[name], v)
				said = append(said, name+"="+v)
			}
			gas, _ := strconv.ParseInt(res.GasUsed, 10, 64)
			sum := sha256.Sum256(tx)
			done = append(done, SetupTx{Step: i, Msg: tmpl.URL, Hash: strings.ToUpper(hex.EncodeToString(sum[:])), Height: height, GasUsed: gas, Bound: strings.Join(said, ", ")})
			cfg.Logf("set-up step %d, tx %d: %s in block %d, gas %d %s", i, j+1, tmpl.URL, height, gas, strings.Join(said, ", "))
		}
		for k, v := range got {
			bound[k] = v
		}
	}
	return bound, done, nil
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// attribute finds "type.key" in events: the first such attribute's value.
func attribute(events []event, typeKey string) (string, bool) {
	typ, key, _ := strings.Cut(typeKey, ".")
	for _, e := range events {
		if e.Type != typ {
			continue
		}
		for _, a := range e.Attributes {
			if a.Key == key {
				return a.Value, true
			}
		}
	}
	return "", false
}

func eventTypes(events []event) string {
	var out []string
	for _, e := range events {
		for _, a := range e.Attributes {
			out = append(out, e.Type+"."+a.Key)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > 40 {
		out = append(out[:40], "...")
	}
	return strings.Join(out, ", ")
}

// A txResult is a tx's result as a block's results hold it.
type txResult struct {
	Code    uint32  `json:"code"`
	Log     string  `json:"log"`
	GasUsed string  `json:"gas_used"`
	Events  []event `json:"events"`
}

// waitTx waits for tx in the blocks after height from and returns its
// result and height. It reads blocks, not the tx index: a node may keep
// none.
func waitTx(ctx context.Context, c *http.Client, rpc string, tx []byte, from int64, wait time.Duration) (txResult, int64, error) {
	deadline := time.Now().Add(wait)
	want := sha256.Sum256(tx)
	for h := from + 1; ; {
		tip, err := chainHeight(ctx, c, rpc)
		for err == nil && h <= tip {
			var txs [][]byte
			if txs, err = blockTxs(ctx, c, rpc, h); err != nil {
				break
			}
			for i, t := range txs {
				if sha256.Sum256(t) == want {
					return blockResult(ctx, c, rpc, h, i, deadline)
				}
			}
			h++
		}
		if time.Now().After(deadline) {
			return txResult{}, 0, fmt.Errorf("not in a block after %s (blocks %d to %d read; %v)", wait, from+1, h-1, err)
		}
		select {
		case <-ctx.Done():
			return txResult{}, 0, ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// blockResult is the result of tx i of block h: a node stores a block
// before its results, so they are asked for again until they are there.
func blockResult(ctx context.Context, c *http.Client, rpc string, h int64, i int, deadline time.Time) (txResult, int64, error) {
	for {
		var res struct {
			Result struct {
				TxsResults []txResult `json:"txs_results"`
			} `json:"result"`
		}
		err := getJSON(ctx, c, fmt.Sprintf("%s/block_results?height=%d", rpc, h), &res)
		if err == nil && i < len(res.Result.TxsResults) {
			return res.Result.TxsResults[i], h, nil
		}
		if time.Now().After(deadline) {
			return txResult{}, h, fmt.Errorf("block %d holds the tx (its %d.), but its results were not there by the deadline (%d results; %v)", h, i+1, len(res.Result.TxsResults), err)
		}
		select {
		case <-ctx.Done():
			return txResult{}, h, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// blockTxs are the txs of block h.
func blockTxs(ctx context.Context, c *http.Client, rpc string, h int64) ([][]byte, error) {
	var blk struct {
		Result struct {
			Block struct {
				Data struct {
					Txs [][]byte `json:"txs"`
				} `json:"data"`
			} `json:"block"`
		} `json:"result"`
	}
	err := getJSON(ctx, c, fmt.Sprintf("%s/block?height=%d", rpc, h), &blk)
	return blk.Result.Block.Data.Txs, err
}

// chainHeight is the node's latest height.
func chainHeight(ctx context.Context, c *http.Client, rpc string) (int64, error) {
	var r struct {
		Result struct {
			SyncInfo struct {
				Height string `json:"latest_block_height"`
			} `json:"sync_info"`
		} `json:"result"`
	}
	if err := getJSON(ctx, c, rpc+"/status", &r); err != nil {
		return 0, err
	}
	return strconv.ParseInt(r.Result.SyncInfo.Height, 10, 64)
}

// Descriptors reads the chain's message descriptors from its reflection
// service (Cosmos SDK v0.47 and later).
func Descriptors(ctx context.Context, c *http.Client, rpc string) (*msgtemplate.Descriptors, error) {
	resp, err := Query(ctx, c, rpc, msgtemplate.ReflectionPath, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("read the chain's message descriptors (%s, SDK v0.47 and later): %w", msgtemplate.ReflectionPath, err)
	}
	return msgtemplate.ParseDescriptors(resp)
}
