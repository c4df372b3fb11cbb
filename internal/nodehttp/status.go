package nodehttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Status is what a node says of itself (GET /status), as far as
// chainperf reads it.
type Status struct {
	Moniker, Network, Version string
	Height                    int64 // latest block height
	Earliest                  int64 // earliest block it holds (after a state sync: the snapshot's height + 1)
	Time                      time.Time
	CatchingUp                bool
	Address                   string // the validator address
	Power                     int64
}

var smallClient = Client(Small)

// ReadStatus asks the node at rpc for its status, within Small's caps. A
// height that is not a whole number from 0 to 2^63-1 is an error.
func ReadStatus(ctx context.Context, rpc string) (Status, error) {
	return ReadStatusWith(ctx, smallClient, rpc)
}

// ReadStatusWith is ReadStatus through c (a client with tighter caps).
func ReadStatusWith(ctx context.Context, c *http.Client, rpc string) (Status, error) {
	data, err := Get(ctx, c, strings.TrimRight(rpc, "/")+"/status")
	if err != nil {
		return Status{}, err
	}
	var r struct {
		Result *struct {
			NodeInfo struct {
				Moniker, Network, Version string
			} `json:"node_info"`
			SyncInfo struct {
				Height     json.RawMessage `json:"latest_block_height"`
				Earliest   json.RawMessage `json:"earliest_block_height"`
				Time       time.Time       `json:"latest_block_time"`
				CatchingUp bool            `json:"catching_up"`
			} `json:"sync_info"`
			ValidatorInfo struct {
				Address string          `json:"address"`
				Power   json.RawMessage `json:"voting_power"`
			} `json:"validator_info"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &r); err != nil || r.Result == nil {
		return Status{}, fmt.Errorf("%s/status: not a CometBFT status answer", RedactString(rpc))
	}
	res := r.Result
	st := Status{Moniker: res.NodeInfo.Moniker, Network: res.NodeInfo.Network, Version: res.NodeInfo.Version,
		Time: res.SyncInfo.Time, CatchingUp: res.SyncInfo.CatchingUp, Address: res.ValidatorInfo.Address}
	if st.Height, err = Height(res.SyncInfo.Height); err != nil {
		return st, fmt.Errorf("%s/status: latest_block_height %w", RedactString(rpc), err)
	}
	if len(res.ValidatorInfo.Power) > 0 {
		st.Power, _ = Int64(res.ValidatorInfo.Power)
	}
	if len(res.SyncInfo.Earliest) > 0 {
		st.Earliest, _ = Height(res.SyncInfo.Earliest)
	}
	return st, nil
}

// ReadBlockHash is the hash of the block at height (GET /commit: its
// signed header's block ID), as hex: what a state-sync join trusts.
func ReadBlockHash(ctx context.Context, rpc string, height int64) (string, error) {
	data, err := Get(ctx, smallClient, fmt.Sprintf("%s/commit?height=%d", strings.TrimRight(rpc, "/"), height))
	if err != nil {
		return "", err
	}
	var r struct {
		Result *struct {
			SignedHeader struct {
				Commit struct {
					BlockID struct {
						Hash string `json:"hash"`
					} `json:"block_id"`
				} `json:"commit"`
			} `json:"signed_header"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &r); err != nil || r.Result == nil {
		return "", fmt.Errorf("%s/commit: not a CometBFT commit answer", RedactString(rpc))
	}
	h := r.Result.SignedHeader.Commit.BlockID.Hash
	if len(h) != 64 || strings.Trim(strings.ToUpper(h), "0123456789ABCDEF") != "" {
		if len(h) > 80 {
			h = h[:80] + "..."
		}
		return "", fmt.Errorf("%s/commit?height=%d: block hash %q is not 32 bytes of hex", RedactString(rpc), height, h)
	}
	return strings.ToUpper(h), nil
}

// ErrBadNumber is a height or count a node gave that is not one.
var ErrBadNumber = errors.New("not a height or count from 0 to 2^63-1")

// MaxHeight is the highest height believed (2^53): a chain making a
// block a millisecond would need 285,000 years to reach it, and every
// height+1 and height difference the harness computes stays far from
// int64's edge.
const MaxHeight = 1 << 53

// Height is Int64 for a block height: above MaxHeight is ErrBadNumber.
func Height(raw json.RawMessage) (int64, error) {
	n, err := Int64(raw)
	if err == nil && n > MaxHeight {
		return 0, fmt.Errorf("%d is above any chain's height (at most 2^53): %w", n, ErrBadNumber)
	}
	return n, err
}

// Int64 reads a CometBFT integer: a JSON string (or number) of a whole
// number from 0 to 2^63-1. What is not is an error quoting at most 32
// bytes of it.
func Int64(raw json.RawMessage) (int64, error) {
	s := strings.Trim(string(raw), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		if len(s) > 32 {
			s = s[:32] + "..."
		}
		return 0, fmt.Errorf("%q: %w", s, ErrBadNumber)
	}
	return n, nil
}
