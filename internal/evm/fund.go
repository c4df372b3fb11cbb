package evm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/chainperf/chainperf/internal/cosmos"
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
	Txs     int      // txs sent (transfers, or the disperser's deployment and calls)
	Wallets int      // wallets topped up
	Paid    *big.Int // wei sent to the wallets
	Fees    *big.Int // wei the funding's txs paid (their gas used at their price)
	// ReadSecs: reading the funder and the wallets; TxSecs: sending the
	// txs until every receipt was in.
	ReadSecs, TxSecs float64
	// After is what each wallet holds once funded, as the read before and
	// the top-ups that succeeded say: its nonce (funding moves none) and
	// balance, so 100,000 wallets need not be read again.
	After []Account
}

// fundWave: funding txs sent at once; the next wave goes once their
// receipts are in. A receipt makes the node read its whole block's
// results: 202 txs funding 100,000 wallets, all sent at once, landed in
// one block and took 155.8 s to their receipts read in turn; in waves
// with the receipts 8 at a time, 77.6 s (docs/guides/external.md).
const fundWave = 10

// Fund tops every wallet below each wei up to each from d.Deployer (the
// funder): every balance and the funder's nonce read first (in batches),
// then one transfer a wallet, or, for disperseFrom wallets or more, the
// disperser deployed and called with up to disperseMax wallets a tx (as
// many as a block's gas limit takes). It returns the cost, or why the
// funder cannot pay (its balance against the top-ups and their gas
// limits at the price: a legacy tx pays at most that).
func Fund(ctx context.Context, d Deploy, wallets []Wallet, each *big.Int) (*Funding, error) {
	c := nodehttp.Client(nodehttp.Query)
	funder := d.Deployer.Address
	addrs := make([]Address, 0, len(wallets)+1)
	addrs = append(addrs, funder)
	for _, w := range wallets {
		addrs = append(addrs, w.Address)
	}
	began := time.Now()
	accts, err := ReadAccounts(ctx, c, d.JSONRPC, addrs, 0)
	if err != nil {
		return nil, fmt.Errorf("reading the funder's and the wallets' accounts: %w", err)
	}
	read := time.Since(began)
	held, nonce := accts[0].Balance, accts[0].Nonce
	price, err := legacyPrice(ctx, c, d.JSONRPC)
	if err != nil {
		return nil, err
	}
	f := &Funding{Paid: new(big.Int), Fees: new(big.Int)}
	var to []Address
	var tops []*big.Int
	for i, w := range wallets {
		if b := accts[i+1].Balance; b.Cmp(each) < 0 {
			top := new(big.Int).Sub(each, b)
			to, tops = append(to, w.Address), append(tops, top)
			f.Paid.Add(f.Paid, top)
		}
	}
	var txs []Tx
	var names []string
	if len(to) < disperseFrom {
		for i := range to {
			txs = append(txs, Tx{Legacy: true, ChainID: d.ChainID, Nonce: nonce + uint64(i), GasPrice: price, Gas: TransferGas, To: to[i], BigValue: tops[i]})
			names = append(names, fmt.Sprintf("the funder's transfer to %s", to[i]))
		}
	} else {
		maxGas, err := cosmos.BlockMaxGas(ctx, c, d.RPC)
		if err != nil {
			return nil, err
		}
		chunk := DisperseChunk(maxGas)
		disperser := CreateAddress(funder, nonce)
		txs = append(txs, Tx{Legacy: true, ChainID: d.ChainID, Nonce: nonce, GasPrice: price, Gas: DisperseDeployGas, Create: true, Data: Creation(disperseCode)})
		names = append(names, "the disperser's deployment")
		for i := 0; i < len(to); i += chunk {
			j := min(i+chunk, len(to))
			data, err := DisperseCall(to[i:j], tops[i:j])
			if err != nil {
				return nil, err
			}
			sum := new(big.Int)
			for _, v := range tops[i:j] {
				sum.Add(sum, v)
			}
			txs = append(txs, Tx{Legacy: true, ChainID: d.ChainID, Nonce: nonce + uint64(len(txs)), GasPrice: price, Gas: DisperseGas(j - i), To: disperser, BigValue: sum, Data: data})
			names = append(names, fmt.Sprintf("the disperser's funding of wallets %d-%d of %d", i+1, j, len(to)))
		}
	}
	limit := new(big.Int)
	for i := range txs {
		limit.Add(limit, txs[i].Fee())
	}
	if need := new(big.Int).Add(f.Paid, limit); need.Cmp(held) > 0 {
		return nil, fmt.Errorf("the funder %s holds %s wei; topping %d wallets up to %s wei each needs %s with the gas of its %d txs: fund it, or lower testnet.evm.wallets or wallet_balance",
			funder, held, len(to), each, need, len(txs))
	}
	sent := time.Now()
	var rs []*Receipt
	for from := 0; from < len(txs); from += fundWave {
		wave := txs[from:min(from+fundWave, len(txs))]
		got, err := setUp(ctx, d, wave, func(i int) string { return names[from+i] })
		if err != nil {
			return nil, err
		}
		// A failed tx ends the funding before the next wave is sent.
		for k, r := range got {
			if r.Status != "0x1" {
				return nil, fmt.Errorf("%s failed in its block (status %s)", names[from+k], r.Status)
			}
		}
		rs = append(rs, got...)
	}
	for i, r := range rs {
		// A legacy tx pays its price for the gas its receipt says.
		used, err := quantity(r.GasUsed, "the gas used by "+names[i])
		if err != nil {
			return nil, err
		}
		f.Fees.Add(f.Fees, used.Mul(used, new(big.Int).SetUint64(price)))
	}
	f.Txs, f.Wallets = len(txs), len(to)
	f.ReadSecs, f.TxSecs = read.Seconds(), time.Since(sent).Seconds()
	f.After = accts[1:]
	for i := range f.After {
		if f.After[i].Balance.Cmp(each) < 0 {
			f.After[i].Balance = new(big.Int).Set(each)
		}
	}
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
	addrs := make([]Address, len(wallets))
	for i, w := range wallets {
		addrs[i] = w.Address
	}
	accts, err := ReadAccounts(ctx, c, d.JSONRPC, addrs, 0)
	if err != nil {
		return swept, fmt.Errorf("reading the wallets' accounts: %w", err)
	}
	var txs []Tx
	var from []Wallet
	for i, w := range wallets {
		b := accts[i].Balance
		if b.Cmp(fee) <= 0 {
			continue
		}
		back := new(big.Int).Sub(b, fee)
		txs = append(txs, Tx{Legacy: true, ChainID: d.ChainID, Nonce: accts[i].Nonce, GasPrice: price, Gas: TransferGas, To: d.Deployer.Address, BigValue: back})
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

// WriteKeyFile writes w's private key as 64 hex digits (what FromHexKey
// and testnet.evm.funder_key_file read) to a new file at path, readable
// by its owner only; an existing file or a symlink there is refused, so
// a key is never written over something or through a link.
func WriteKeyFile(path string, w Wallet) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("write the key: %w (name a file that does not exist yet)", err)
	}
	var d [32]byte
	w.Key.Key.PutBytes(&d)
	_, err = fmt.Fprintf(f, "%x\n", d)
	clear(d[:])
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("write the key to %s: %w", path, err)
	}
	return nil
}
