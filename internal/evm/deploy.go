package evm

import (
	"context"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/nodehttp"
)

// A Deploy says where and how the token is deployed and funded.
type Deploy struct {
	RPC, JSONRPC string // a node's CometBFT RPC (txs go there) and JSON-RPC (receipts)
	ChainID      uint64
	Denom        string
	MaxFee, Tip  uint64
	Deployer     Wallet // funded
	Nonce        uint64 // the deployer's next nonce (0 on a testnet's genesis)
	Wallets      []Wallet
	Each         *big.Int // token units each wallet gets
	Wait         time.Duration
}

// distributeChunk is how many wallets one distribute call funds.
const distributeChunk = 200

// TokenSetupTxs is how many txs DeployToken sends for n wallets (the
// deployment, then a distribute call a chunk).
func TokenSetupTxs(n int) uint64 { return 1 + uint64((n+distributeChunk-1)/distributeChunk) }

// DeployToken deploys contracts/Token.sol from the deployer with a supply
// of Each per wallet, hands every wallet Each tokens (distribute calls of
// 200 wallets) and waits for every receipt: the token's address, or why
// the chain would not have it.
func DeployToken(ctx context.Context, d Deploy) (Address, error) {
	supply := new(big.Int).Mul(d.Each, big.NewInt(int64(len(d.Wallets))))
	data, err := DeployData(supply)
	if err != nil {
		return Address{}, err
	}
	token := CreateAddress(d.Deployer.Address, d.Nonce)
	txs := []Tx{{ChainID: d.ChainID, Nonce: d.Nonce, Tip: d.Tip, GasPrice: d.MaxFee, Gas: 3_000_000, Create: true, Data: data}}
	for i := 0; i < len(d.Wallets); i += distributeChunk {
		to := make([]Address, 0, distributeChunk)
		for _, w := range d.Wallets[i:min(i+distributeChunk, len(d.Wallets))] {
			to = append(to, w.Address)
		}
		txs = append(txs, Tx{ChainID: d.ChainID, Nonce: d.Nonce + uint64(len(txs)), Tip: d.Tip, GasPrice: d.MaxFee,
			Gas: 200_000 + 35_000*uint64(len(to)), To: token, Data: DistributeCall(to, d.Each)})
	}
	name := func(i int) string {
		if i == 0 {
			return "the token's deployment"
		}
		return fmt.Sprintf("the token's funding of the wallets (tx %d)", i)
	}
	rs, err := setUp(ctx, d, txs, name)
	if err != nil {
		return Address{}, err
	}
	for i, r := range rs {
		if r.Status != "0x1" {
			return Address{}, fmt.Errorf("%s failed in its block (status %s): the chain cannot run contracts/Token.sol", name(i), r.Status)
		}
	}
	if rs[0].ContractAddress != token.String() {
		return Address{}, fmt.Errorf("the token was deployed at %s, not at %s as its deployer and nonce say", rs[0].ContractAddress, token)
	}
	return token, nil
}

// setUp signs and sends the deployer's txs in order, then waits for each
// one's receipt (d.Wait at most): their receipts, or why the chain did not
// take one. name(i) says what tx i is, for the errors.
func setUp(ctx context.Context, d Deploy, txs []Tx, name func(int) string) ([]*Receipt, error) {
	return sendFrom(ctx, d, func(int) Wallet { return d.Deployer }, txs, name)
}

// sendFrom is setUp with tx i signed by from(i).
func sendFrom(ctx context.Context, d Deploy, from func(int) Wallet, txs []Tx, name func(int) string) ([]*Receipt, error) {
	c := nodehttp.Client(nodehttp.Query)
	var hashes [][]byte
	for i := range txs {
		w := from(i)
		raw, hash := txs[i].Sign(w.Key)
		env := Envelope(nil, w.Address, raw, txs[i].Gas, txs[i].Fee(), d.Denom)
		code, log, err := cosmos.BroadcastSync(ctx, c, d.RPC, env)
		if err != nil {
			return nil, fmt.Errorf("send %s: %w", name(i), err)
		}
		if code != 0 {
			return nil, fmt.Errorf("the chain refused %s (code %d): %s", name(i), code, log)
		}
		hashes = append(hashes, hash)
	}
	// The receipts, accountReaders at a time: a receipt makes the node
	// read its whole block's results, long for a block of many txs.
	rs := make([]*Receipt, len(hashes))
	errs := make([]error, len(hashes))
	slots := make(chan struct{}, accountReaders)
	var wg sync.WaitGroup
	for i, h := range hashes {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			if rs[i], errs[i] = WaitReceipt(ctx, c, d.JSONRPC, h, d.Wait); errs[i] != nil {
				errs[i] = fmt.Errorf("%s (0x%x): %w", name(i), h, errs[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return rs, nil
}
