package evm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// FromHexKey is the wallet of a hex secp256k1 private key (64 hex digits,
// "0x" and surrounding space allowed). Errors never repeat the key.
func FromHexKey(s string) (Wallet, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "0x")
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return Wallet{}, fmt.Errorf("not a private key: 64 hex digits (32 bytes) are expected, as an Ethereum wallet exports one")
	}
	var k secp256k1.ModNScalar
	if overflow := k.SetByteSlice(b); overflow || k.IsZero() {
		return Wallet{}, fmt.Errorf("not a private key: the number is 0 or not below the curve's order")
	}
	key := secp256k1.NewPrivateKey(&k)
	return Wallet{Key: key, Address: AddressOf(key.PubKey())}, nil
}

// FunderSeed is the seed the wallets of a funder's runs are derived from:
// its key's hash and seed, so that two funders never share wallets and
// nobody without the key can derive them.
func FunderSeed(funder Wallet, seed string) string {
	var d [32]byte
	funder.Key.Key.PutBytes(&d)
	sum := sha256.Sum256(append([]byte("chainperf-evm-funder/"), d[:]...))
	return fmt.Sprintf("%x/%s", sum[:16], seed)
}

// A Funding is what topping the wallets up cost the funder.
type Funding struct {
	Txs  int      // transfers sent
	Paid *big.Int // wei sent to the wallets
	Fees *big.Int // wei the transfers paid in fees (their gas at their price)
}

// Fund tops every wallet below each wei up to each with one transfer from
// d.Deployer (the funder), whose nonce and balance are read first: the
// cost, or why the funder cannot pay (its balance against what the
// top-ups and their fees need, exactly: a legacy tx pays its price).
func Fund(ctx context.Context, d Deploy, wallets []Wallet, each *big.Int) (*Funding, error) {
	c := nodehttp.Client(nodehttp.Query)
	funder := d.Deployer.Address
	nonce, err := NonceAt(ctx, c, d.JSONRPC, funder, 0)
	if err != nil {
		return nil, fmt.Errorf("the funder %s's nonce: %w", funder, err)
	}
	held, err := BalanceAt(ctx, c, d.JSONRPC, funder, 0)
	if err != nil {
		return nil, fmt.Errorf("the funder %s's balance: %w", funder, err)
	}
	price, err := legacyPrice(ctx, c, d.JSONRPC)
	if err != nil {
		return nil, err
	}
	f := &Funding{Paid: new(big.Int), Fees: new(big.Int)}
	var txs []Tx
	var to []Wallet
	for _, w := range wallets {
		b, err := BalanceAt(ctx, c, d.JSONRPC, w.Address, 0)
		if err != nil {
			return nil, fmt.Errorf("the balance of wallet %s: %w", w.Address, err)
		}
		if b.Cmp(each) >= 0 {
			continue
		}
		top := new(big.Int).Sub(each, b)
		tx := Tx{Legacy: true, ChainID: d.ChainID, Nonce: nonce + uint64(len(txs)), GasPrice: price, Gas: TransferGas, To: w.Address, BigValue: top}
		txs, to = append(txs, tx), append(to, w)
		f.Paid.Add(f.Paid, top)
		f.Fees.Add(f.Fees, tx.Fee())
	}
	if need := new(big.Int).Add(f.Paid, f.Fees); need.Cmp(held) > 0 {
		return nil, fmt.Errorf("the funder %s holds %s wei; topping %d wallets up to %s wei each needs %s with the transfers' fees: fund it, or lower testnet.evm.wallets or wallet_balance",
			funder, held, len(txs), each, need)
	}
	name := func(i int) string { return fmt.Sprintf("the funder's transfer to %s", to[i].Address) }
	rs, err := setUp(ctx, d, txs, name)
	if err != nil {
		return nil, err
	}
	for i, r := range rs {
		if r.Status != "0x1" {
			return nil, fmt.Errorf("%s failed in its block (status %s)", name(i), r.Status)
		}
	}
	f.Txs = len(txs)
	return f, nil
}

// legacyPrice is the gas price funding and sweeps pay: twice the latest
// base fee (room for it to rise), at least 1 wei. A legacy tx pays its
// price exactly, so a sweep leaves nothing behind.
func legacyPrice(ctx context.Context, c *http.Client, url string) (uint64, error) {
	base, err := BaseFeeAt(ctx, c, url, 0)
	if err != nil {
		return 0, err
	}
	price := new(big.Int).Lsh(base, 1)
	if !price.IsUint64() || price.Uint64() > 1e15 {
		return 0, fmt.Errorf("the chain's base fee is %s wei a gas: too high to pay", base)
	}
	return max(1, price.Uint64()), nil
}

// Sweep sends what each wallet holds back to the funder (d.Deployer),
// less the transfer's fee, so that nothing is left. It returns the wei
// swept back.
func Sweep(ctx context.Context, d Deploy, wallets []Wallet) (*big.Int, error) {
	c := nodehttp.Client(nodehttp.Query)
	price, err := legacyPrice(ctx, c, d.JSONRPC)
	if err != nil {
		return nil, err
	}
	fee := FeeOf(TransferGas, price)
	swept := new(big.Int)
	var txs []Tx
	var from []Wallet
	for _, w := range wallets {
		b, err := BalanceAt(ctx, c, d.JSONRPC, w.Address, 0)
		if err != nil {
			return swept, fmt.Errorf("the balance of wallet %s: %w", w.Address, err)
		}
		if b.Cmp(fee) <= 0 {
			continue
		}
		nonce, err := NonceAt(ctx, c, d.JSONRPC, w.Address, 0)
		if err != nil {
			return swept, fmt.Errorf("the nonce of wallet %s: %w", w.Address, err)
		}
		back := new(big.Int).Sub(b, fee)
		txs = append(txs, Tx{Legacy: true, ChainID: d.ChainID, Nonce: nonce, GasPrice: price, Gas: TransferGas, To: d.Deployer.Address, BigValue: back})
		from = append(from, w)
	}
	name := func(i int) string { return fmt.Sprintf("the sweep from %s", from[i].Address) }
	rs, err := sendFrom(ctx, d, func(i int) Wallet { return from[i] }, txs, name)
	if err != nil {
		return swept, err
	}
	for i, r := range rs {
		if r.Status == "0x1" {
			swept.Add(swept, txs[i].BigValue)
		}
	}
	return swept, nil
}
