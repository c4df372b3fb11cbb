package cosmos

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// maxQueryAnswer bounds an abci_query answer.
const maxQueryAnswer = 128 << 20

// Query runs a gRPC query of the app through CometBFT's abci_query on the
// node at rpc ("http://host:port") and returns the response message. Height
// 0 asks for the latest state. It is a JSON-RPC POST: a request (a tx to
// simulate, a contract's code) can be larger than a URL may be.
func Query(ctx context.Context, c *http.Client, rpc, path string, req []byte, height int64) ([]byte, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "abci_query",
		"params": map[string]any{"path": path, "data": hex.EncodeToString(req), "height": strconv.FormatInt(height, 10)}})
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, rpc, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Result *struct {
			Response struct {
				Code  uint32 `json:"code"`
				Log   string `json:"log"`
				Value []byte `json:"value"`
			} `json:"response"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
			Data    string `json:"data"`
		} `json:"error"`
	}
	// The largest answer read is the chain's descriptors (a few MB, as
	// base64 in JSON).
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxQueryAnswer)).Decode(&out); err != nil {
		return nil, fmt.Errorf("%s %s: %w", rpc, path, err)
	}
	switch {
	case out.Error != nil:
		return nil, fmt.Errorf("%s %s: %s %s", rpc, path, out.Error.Message, out.Error.Data)
	case out.Result == nil:
		return nil, fmt.Errorf("%s %s: answer without result", rpc, path)
	case out.Result.Response.Code != 0:
		return nil, fmt.Errorf("%s %s: code %d: %s", rpc, path, out.Result.Response.Code, out.Result.Response.Log)
	}
	return out.Result.Response.Value, nil
}

// Fields reads the top-level fields of a message: varints as numbers,
// length-delimited ones as bytes, the last of each field number winning
// (repeated fields are read with each).
func Fields(b []byte, each func(num protowire.Number, v uint64, bs []byte)) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			each(num, v, nil)
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			each(num, 0, v)
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	return nil
}

// An Account is what the chain holds of an account's auth state.
type Account struct {
	Number, Sequence uint64
}

// QueryAccount reads an account's number and sequence (committed state).
func QueryAccount(ctx context.Context, c *http.Client, rpc, address string) (Account, error) {
	resp, err := Query(ctx, c, rpc, "/cosmos.auth.v1beta1.Query/Account", appendString(nil, 1, address), 0)
	if err != nil {
		return Account{}, err
	}
	var anyMsg []byte
	if err := Fields(resp, func(num protowire.Number, _ uint64, b []byte) {
		if num == 1 {
			anyMsg = b
		}
	}); err != nil {
		return Account{}, err
	}
	var base []byte
	if err := Fields(anyMsg, func(num protowire.Number, _ uint64, b []byte) {
		if num == 2 {
			base = b
		}
	}); err != nil {
		return Account{}, err
	}
	var a Account
	err = Fields(base, func(num protowire.Number, v uint64, _ []byte) {
		switch num {
		case 3:
			a.Number = v
		case 4:
			a.Sequence = v
		}
	})
	return a, err
}

// QueryBalance reads an address's balance of denom at height (0: latest).
func QueryBalance(ctx context.Context, c *http.Client, rpc, address, denom string, height int64) (uint64, error) {
	resp, err := Query(ctx, c, rpc, "/cosmos.bank.v1beta1.Query/Balance", appendString(appendString(nil, 1, address), 2, denom), height)
	if err != nil {
		return 0, err
	}
	return coinIn(resp)
}

// QueryBalanceBig reads an address's balance of denom at height (0:
// latest), however large (an 18-decimal token's pass 2^64).
func QueryBalanceBig(ctx context.Context, c *http.Client, rpc, address, denom string, height int64) (*big.Int, error) {
	resp, err := Query(ctx, c, rpc, "/cosmos.bank.v1beta1.Query/Balance", appendString(appendString(nil, 1, address), 2, denom), height)
	if err != nil {
		return nil, err
	}
	var coin []byte
	if err := Fields(resp, func(num protowire.Number, _ uint64, b []byte) {
		if num == 1 {
			coin = b
		}
	}); err != nil {
		return nil, err
	}
	n, err := bigAmount(coin)
	if err != nil {
		return nil, fmt.Errorf("balance of %s: %w", address, err)
	}
	return n, nil
}

// QuerySupply reads the total supply of denom.
func QuerySupply(ctx context.Context, c *http.Client, rpc, denom string) (uint64, error) {
	resp, err := Query(ctx, c, rpc, "/cosmos.bank.v1beta1.Query/SupplyOf", appendString(nil, 1, denom), 0)
	if err != nil {
		return 0, err
	}
	return coinIn(resp)
}

// coinIn reads the Coin in field 1 of a response.
func coinIn(resp []byte) (uint64, error) {
	var coin []byte
	if err := Fields(resp, func(num protowire.Number, _ uint64, b []byte) {
		if num == 1 {
			coin = b
		}
	}); err != nil {
		return 0, err
	}
	return coinAmount(coin)
}

// coinAmount reads a Coin's amount, which must fit 64 bits.
func coinAmount(coin []byte) (uint64, error) {
	v, err := bigAmount(coin)
	if err != nil {
		return 0, err
	}
	if !v.IsUint64() {
		return 0, fmt.Errorf("amount %s is past 2^64", v)
	}
	return v.Uint64(), nil
}

// Simulate runs tx through the app's simulation (the ante handler without
// the signature check, then the message) on the node at rpc and returns the
// gas it used.
func Simulate(ctx context.Context, c *http.Client, rpc string, tx []byte) (uint64, error) {
	resp, err := Query(ctx, c, rpc, "/app/simulate", tx, 0)
	if err != nil {
		return 0, err
	}
	var r struct {
		GasInfo struct {
			GasUsed string `json:"gas_used"`
		} `json:"gas_info"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return 0, fmt.Errorf("simulate: %w", err)
	}
	used, err := strconv.ParseUint(r.GasInfo.GasUsed, 10, 64)
	if err != nil || used == 0 {
		return 0, fmt.Errorf("simulate: no gas used in %q", resp)
	}
	return used, nil
}

// QueryValidators reads the operator addresses of the bonded validators
// (at most 100: the staking module's default active set).
func QueryValidators(ctx context.Context, c *http.Client, rpc string) ([]string, error) {
	req := appendString(nil, 1, "BOND_STATUS_BONDED")
	req = appendMessage(req, 2, func(b []byte) []byte { return appendUint(b, 3, 100) }) // pagination.limit
	resp, err := Query(ctx, c, rpc, "/cosmos.staking.v1beta1.Query/Validators", req, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	err = Fields(resp, func(num protowire.Number, _ uint64, v []byte) {
		if num != 1 {
			return
		}
		_ = Fields(v, func(num protowire.Number, _ uint64, op []byte) {
			if num == 1 {
				out = append(out, string(op))
			}
		})
	})
	return out, err
}

// Staked is what a delegator has at stake: bonded to validators, and
// unbonding (it returns to the balance when its entries mature).
type Staked struct {
	Delegated, Unbonding uint64
}

// QueryStaked reads a delegator's delegations and unbonding entries at
// height (0: latest), summed over validators.
func QueryStaked(ctx context.Context, c *http.Client, rpc, delegator string, height int64) (Staked, error) {
	var s Staked
	req := appendString(nil, 1, delegator)
	req = appendMessage(req, 2, func(b []byte) []byte { return appendUint(b, 3, 1000) })
	resp, err := Query(ctx, c, rpc, "/cosmos.staking.v1beta1.Query/DelegatorDelegations", req, height)
	if err != nil {
		return s, err
	}
	var bad error
	err = Fields(resp, func(num protowire.Number, _ uint64, v []byte) {
		if num != 1 { // DelegationResponse: balance is field 2, a Coin
			return
		}
		_ = Fields(v, func(num protowire.Number, _ uint64, coin []byte) {
			if num == 2 {
				n, err := coinAmount(coin)
				bad = errors.Join(bad, err)
				s.Delegated += n
			}
		})
	})
	if err = errors.Join(err, bad); err != nil {
		return s, fmt.Errorf("delegations of %s: %w", delegator, err)
	}
	resp, err = Query(ctx, c, rpc, "/cosmos.staking.v1beta1.Query/DelegatorUnbondingDelegations", req, height)
	if err != nil {
		return s, err
	}
	err = Fields(resp, func(num protowire.Number, _ uint64, v []byte) {
		if num != 1 { // UnbondingDelegation: entries are field 3, balance their field 4
			return
		}
		_ = Fields(v, func(num protowire.Number, _ uint64, entry []byte) {
			if num != 3 {
				return
			}
			_ = Fields(entry, func(num protowire.Number, _ uint64, bal []byte) {
				if num == 4 {
					n, err := strconv.ParseUint(string(bal), 10, 64)
					bad = errors.Join(bad, err)
					s.Unbonding += n
				}
			})
		})
	})
	if err = errors.Join(err, bad); err != nil {
		return s, fmt.Errorf("unbonding delegations of %s: %w", delegator, err)
	}
	return s, nil
}

// BlockMaxGas reads the chain's block gas limit from the node's consensus
// parameters (-1: none).
func BlockMaxGas(ctx context.Context, c *http.Client, rpc string) (int64, error) {
	var r struct {
		Result struct {
			Params struct {
				Block struct {
					MaxGas string `json:"max_gas"`
				} `json:"block"`
			} `json:"consensus_params"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
			Data    string `json:"data"`
		} `json:"error"`
	}
	// The node answers for its block store's height, whose parameters its
	// state store saves a moment after the block: just after a commit it
	// says "could not find consensus params for height #H" (a CI run saw
	// it on an external EVM chain). A few tries 200 ms apart ride that out.
	for try := 1; ; try++ {
		r.Error = nil
		if err := getJSON(ctx, c, rpc+"/consensus_params", &r); err != nil {
			return 0, err
		}
		if r.Error == nil {
			break
		}
		if try == 5 || !strings.Contains(r.Error.Data, "could not find consensus params") {
			return 0, fmt.Errorf("%s/consensus_params: %s %s", rpc, r.Error.Message, r.Error.Data)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	n, err := strconv.ParseInt(r.Result.Params.Block.MaxGas, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s/consensus_params: block max_gas %q: %w", rpc, r.Result.Params.Block.MaxGas, err)
	}
	return n, nil
}
