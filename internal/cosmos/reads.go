package cosmos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/chainperf/chainperf/internal/msgtemplate"
	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/readload"
)

// The reads a Cosmos read load sends in turn, through the interfaces a
// wallet or an explorer uses: the app's queries over CometBFT's
// abci_query, and CometBFT's own RPC.
const (
	ReadBalance  = "bank balance (abci_query)"
	ReadAccount  = "account (abci_query)"
	ReadBlock    = "latest block (rpc /block)"
	ReadTxSearch = "txs of a sender (rpc /tx_search)"
)

// A CustomRead is a query of the chain's own (a contract's smart query):
// its gRPC method's path and its request as a template.
type CustomRead struct {
	Name    string
	Path    string // "/cosmwasm.wasm.v1.Query/SmartContractState"
	Request *msgtemplate.Template
}

// A ReadConfig says where, how fast and about whom the reads ask.
type ReadConfig struct {
	RPCs    []string // CometBFT RPC servers, taken in turn
	Rate    float64  // reads a second, all kinds together
	Wallets []Wallet // the accounts asked about, taken in turn
	Denom   string
	Custom  []CustomRead
	Seed    uint64
}

// StartReads starts the read load beside the txs (readload): the four
// reads every chain answers, then the custom ones, in turn.
func StartReads(ctx context.Context, cfg ReadConfig) (*readload.Reads, error) {
	if len(cfg.RPCs) == 0 || len(cfg.Wallets) == 0 {
		return nil, fmt.Errorf("read load: %d servers, %d wallets: need one of each", len(cfg.RPCs), len(cfg.Wallets))
	}
	c := nodehttp.Client(nodehttp.Query)
	var kinds []readload.Kind
	add := func(name string, read func(ctx context.Context, rpc string, w Wallet, i uint64) error) {
		k := uint64(len(kinds))
		kinds = append(kinds, readload.Kind{Name: name, Read: func(ctx context.Context, i uint64) error {
			n := uint64(4 + len(cfg.Custom))
			return read(ctx, cfg.RPCs[(i*n+k)%uint64(len(cfg.RPCs))], cfg.Wallets[i%uint64(len(cfg.Wallets))], i)
		}})
	}
	add(ReadBalance, func(ctx context.Context, rpc string, w Wallet, _ uint64) error {
		_, err := QueryBalance(ctx, c, rpc, w.Address, cfg.Denom, 0)
		return err
	})
	add(ReadAccount, func(ctx context.Context, rpc string, w Wallet, _ uint64) error {
		_, err := QueryAccount(ctx, c, rpc, w.Address)
		return err
	})
	add(ReadBlock, func(ctx context.Context, rpc string, _ Wallet, _ uint64) error {
		var r struct {
			Result *struct {
				Block json.RawMessage `json:"block"`
			} `json:"result"`
		}
		if err := getJSON(ctx, c, rpc+"/block", &r); err != nil {
			return err
		}
		if r.Result == nil || len(r.Result.Block) == 0 {
			return fmt.Errorf("%s/block: no block in the answer", rpc)
		}
		return nil
	})
	add(ReadTxSearch, func(ctx context.Context, rpc string, w Wallet, _ uint64) error {
		q := url.QueryEscape(strconv.Quote("message.sender='" + w.Address + "'"))
		var r struct {
			Result *struct {
				Total string `json:"total_count"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
				Data    string `json:"data"`
			} `json:"error"`
		}
		if err := getJSON(ctx, c, rpc+"/tx_search?query="+q+"&per_page=1&order_by=%22desc%22", &r); err != nil {
			return err
		}
		if r.Error != nil || r.Result == nil {
			return fmt.Errorf("%s/tx_search: %+v", rpc, r.Error)
		}
		return nil
	})
	for _, q := range cfg.Custom {
		add(q.Name, func(ctx context.Context, rpc string, w Wallet, i uint64) error {
			other := cfg.Wallets[(i+1)%uint64(len(cfg.Wallets))]
			req, err := q.Request.Append(nil, &msgtemplate.Vars{Wallet: w.Address, Other: other.Address, Denom: cfg.Denom, N: i, Seed: cfg.Seed})
			if err != nil {
				return err
			}
			_, err = Query(ctx, c, rpc, q.Path, req, 0)
			return err
		})
	}
	return readload.Start(ctx, readload.Config{Rate: cfg.Rate, Kinds: kinds})
}
