package observe

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chainperf/chainperf/internal/nodehttp"
)

// Unconfirmed is what a node's mempool held when asked (GET
// /unconfirmed_txs): how many txs in all, and the first of them (a page:
// CometBFT lists 100 at most).
type Unconfirmed struct {
	Total int64
	Txs   [][]byte
}

// unconfirmedPage: the most txs a node is asked to list; maxListed the
// most taken from its answer.
const (
	unconfirmedPage = 100
	maxListed       = 2 * unconfirmedPage
)

// ReadUnconfirmed asks the node at rpc what its mempool holds, within
// nodehttp.Query's caps. An answer that is not CometBFT's, a count that is
// not one, or a tx that is not base64 is an error naming the node.
func ReadUnconfirmed(ctx context.Context, rpc string) (Unconfirmed, error) {
	where := nodehttp.RedactString(rpc) + "/unconfirmed_txs"
	data, err := nodehttp.Get(ctx, queryClient, fmt.Sprintf("%s/unconfirmed_txs?limit=%d", strings.TrimRight(rpc, "/"), unconfirmedPage))
	if err != nil {
		return Unconfirmed{}, err
	}
	return parseUnconfirmed(where, data)
}

// parseUnconfirmed reads an /unconfirmed_txs answer; where names the node
// in errors.
func parseUnconfirmed(where string, data []byte) (Unconfirmed, error) {
	var r struct {
		Result *struct {
			Total json.RawMessage `json:"total"`
			Txs   []string        `json:"txs"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &r); err != nil || r.Result == nil {
		return Unconfirmed{}, fmt.Errorf("%s: not a CometBFT answer", where)
	}
	total, err := nodehttp.Int64(r.Result.Total)
	if err != nil {
		return Unconfirmed{}, fmt.Errorf("%s: total %w", where, err)
	}
	// CometBFT v0.38 lists one more than asked (101 for 100): a few more
	// are taken, not more than there are.
	if len(r.Result.Txs) > maxListed || int64(len(r.Result.Txs)) > total {
		return Unconfirmed{}, fmt.Errorf("%s: %d txs listed of %d in all, %d asked for", where, len(r.Result.Txs), total, unconfirmedPage)
	}
	u := Unconfirmed{Total: total}
	for i, s := range r.Result.Txs {
		tx, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return Unconfirmed{}, fmt.Errorf("%s: tx %d is not base64", where, i)
		}
		u.Txs = append(u.Txs, tx)
	}
	return u, nil
}
