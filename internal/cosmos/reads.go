package cosmos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/chainperf/chainperf/internal/msgtemplate"
	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/readload"
)

// The reads a Cosmos read load sends in turn, through the interfaces a
// wallet or an explorer uses: the app's queries over CometBFT's
// abci_query, CometBFT's own RPC, and where the nodes serve them the app's
// REST gateway and gRPC server.
const (
	ReadBalance     = "bank balance (abci_query)"
	ReadAccount     = "account (abci_query)"
	ReadBlock       = "latest block (rpc /block)"
	ReadTxSearch    = "txs of a sender (rpc /tx_search)"
	ReadBalanceREST = "bank balance (REST /cosmos/bank/v1beta1/balances)"
	ReadBalanceGRPC = "bank balance (gRPC cosmos.bank.v1beta1.Query/Balance)"
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
	APIs    []string // the app's REST gateways (http://host:port), taken in turn; none: no REST read
	GRPCs   []*GRPC  // the app's gRPC servers, taken in turn; none: no gRPC read
	Rate    float64  // reads a second, all kinds together
	Wallets []Wallet // the accounts asked about, taken in turn
	Denom   string
	Custom  []CustomRead
	Seed    uint64
}

// StartReads starts the read load beside the txs (readload): the four
// reads every chain answers, the REST and gRPC balances where the nodes
// serve them, then the custom ones, in turn.
func StartReads(ctx context.Context, cfg ReadConfig) (*readload.Reads, error) {
	if len(cfg.RPCs) == 0 || len(cfg.Wallets) == 0 {
		return nil, fmt.Errorf("read load: %d servers, %d wallets: need one of each", len(cfg.RPCs), len(cfg.Wallets))
	}
	c := nodehttp.Client(nodehttp.Query)
	var kinds []readload.Kind
	var n uint64 // the kinds, once all are added: a kind's servers are taken in turn across its reads
	addVia := func(name string, servers int, read func(ctx context.Context, server int, w Wallet, i uint64) error) {
		k := uint64(len(kinds))
		kinds = append(kinds, readload.Kind{Name: name, Read: func(ctx context.Context, i uint64) error {
			return read(ctx, int((i*n+k)%uint64(servers)), cfg.Wallets[i%uint64(len(cfg.Wallets))], i)
		}})
	}
	add := func(name string, read func(ctx context.Context, rpc string, w Wallet, i uint64) error) {
		addVia(name, len(cfg.RPCs), func(ctx context.Context, server int, w Wallet, i uint64) error {
			return read(ctx, cfg.RPCs[server], w, i)
		})
	}
	add(ReadBalance, func(ctx context.Context, rpc string, w Wallet, _ uint64) error {
		_, err := QueryBalance(ctx, c, rpc, w.Address, cfg.Denom, 0)
		return err
	})
	add(ReadAccount, func(ctx context.Context, rpc string, w Wallet, _ uint64) error {
		_, err := QueryAccount(ctx, c, rpc, w.Address)
		return err
	})
	add(ReadBlock, func(ctx context.Context, rpc string, _ Wallet, _ uint64) error { return latestBlock(ctx, c, rpc) })
	add(ReadTxSearch, func(ctx context.Context, rpc string, w Wallet, _ uint64) error { return txsOf(ctx, c, rpc, w.Address) })
	if len(cfg.APIs) > 0 {
		addVia(ReadBalanceREST, len(cfg.APIs), func(ctx context.Context, server int, w Wallet, _ uint64) error {
			return restBalance(ctx, c, cfg.APIs[server], w.Address, cfg.Denom)
		})
	}
	if len(cfg.GRPCs) > 0 {
		addVia(ReadBalanceGRPC, len(cfg.GRPCs), func(ctx context.Context, server int, w Wallet, _ uint64) error {
			resp, err := cfg.GRPCs[server].Query(ctx, "/cosmos.bank.v1beta1.Query/Balance", appendString(appendString(nil, 1, w.Address), 2, cfg.Denom))
			if err != nil {
				return err
			}
			_, err = coinIn(resp)
			return err
		})
	}
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
	n = uint64(len(kinds))
	return readload.Start(ctx, readload.Config{Rate: cfg.Rate, Kinds: kinds})
}

// latestBlock reads the latest block over CometBFT's RPC, as an explorer
// does.
func latestBlock(ctx context.Context, c *http.Client, rpc string) error {
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
}

// txsOf searches an address's txs sent over CometBFT's RPC (the newest
// one), as a wallet's history does.
func txsOf(ctx context.Context, c *http.Client, rpc, address string) error {
	q := url.QueryEscape(strconv.Quote("message.sender='" + address + "'"))
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
}

// restBalance reads an address's balance of denom through the app's REST
// gateway (app.toml [api]), as a wallet's web page does.
func restBalance(ctx context.Context, c *http.Client, api, address, denom string) error {
	var r struct {
		Balance *struct {
			Denom  string `json:"denom"`
			Amount string `json:"amount"`
		} `json:"balance"`
		Message string `json:"message"`
	}
	u := api + "/cosmos/bank/v1beta1/balances/" + url.PathEscape(address) + "/by_denom?denom=" + url.QueryEscape(denom)
	if err := getJSON(ctx, c, u, &r); err != nil {
		return err
	}
	if r.Balance == nil || r.Balance.Amount == "" {
		return fmt.Errorf("%s: no balance in the answer: %s", api, printable.Line(r.Message))
	}
	return nil
}
