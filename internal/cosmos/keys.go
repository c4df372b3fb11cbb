// Package cosmos speaks to Cosmos SDK chains without the SDK: wallets
// derived from a seed, bech32 addresses, signed transactions in the SDK's
// protobuf wire format (SIGN_MODE_DIRECT), account and balance queries over
// CometBFT's abci_query, and genesis funding by editing genesis JSON. The
// wire format is checked byte for byte against the SDK's own types by the
// test chain's module (chains/cosmos).
package cosmos

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/cometbft/cometbft/crypto/secp256k1"
)

// A Wallet is one account the load sends from and to.
type Wallet struct {
	Key     secp256k1.PrivKey // nil in an unkeyed wallet (Unkeyed)
	PubKey  []byte            // 33-byte compressed
	Address string            // bech32
	Number  uint64            // account number, as funded in genesis
}

// Derive returns wallet i of seed: the key is a pure function of both, so
// a run can be repeated and its txs cached. Anyone who knows the seed
// holds these keys: they are for chains of chainperf's own making.
func Derive(seed string, i int, prefix string) (Wallet, error) {
	return derive(nil, seed, i, prefix)
}

// derive is wallet i of seed under secret (nil: seed alone).
func derive(secret []byte, seed string, i int, prefix string) (Wallet, error) {
	k := secp256k1.GenPrivKeySecp256k1(fmt.Appendf(secret, "chainperf/%s/%d", seed, i))
	pub := k.PubKey()
	addr, err := Bech32(prefix, pub.Address())
	if err != nil {
		return Wallet{}, err
	}
	return Wallet{Key: k, PubKey: pub.Bytes(), Address: addr}, nil
}

// Wallets derives n wallets of seed on every core, numbered first,
// first+1, ...
func Wallets(seed string, n int, prefix string, first uint64) ([]Wallet, error) {
	return SecretWallets(nil, seed, n, prefix, first)
}

// SecretWallets derives n wallets of seed under secret (a funder's key:
// on someone else's chain only its holder can take what they hold).
func SecretWallets(secret []byte, seed string, n int, prefix string, first uint64) ([]Wallet, error) {
	return wallets(secret, seed, n, prefix, first, true)
}

// Unkeyed derives n wallets of seed as Wallets does but keeps only their
// addresses and numbers: a key costs a wallet about 100 bytes more, which
// a million wallets feel, and a workload needs the keys only of the
// wallets it signs for, which it derives when it first does
// (WorkloadConfig.Keys).
func Unkeyed(seed string, n int, prefix string, first uint64) ([]Wallet, error) {
	return wallets(nil, seed, n, prefix, first, false)
}

// KeysOf is the key of wallet i of seed under prefix, for
// WorkloadConfig.Keys.
func KeysOf(seed, prefix string) func(i int) (Wallet, error) {
	return func(i int) (Wallet, error) { return Derive(seed, i, prefix) }
}

// WithKey is w, wallet i, with its key: derived by keys when it has none,
// and refused when the key derives another address.
func WithKey(w Wallet, i int, keys func(i int) (Wallet, error)) (Wallet, error) {
	if w.Key != nil {
		return w, nil
	}
	if keys == nil {
		return w, fmt.Errorf("wallet %d (%s) has no key and there is no way to derive it", i, w.Address)
	}
	k, err := keys(i)
	if err == nil && k.Address != w.Address {
		err = fmt.Errorf("wallet %d: its key derives %s, not %s", i, k.Address, w.Address)
	}
	if err != nil {
		return w, err
	}
	w.Key, w.PubKey = k.Key, k.PubKey
	return w, nil
}

func wallets(secret []byte, seed string, n int, prefix string, first uint64, keyed bool) ([]Wallet, error) {
	out := make([]Wallet, n)
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				wl, err := derive(secret, seed, i, prefix)
				if err != nil {
					errs[w] = err
					return
				}
				wl.Number = first + uint64(i)
				if !keyed {
					wl.Key, wl.PubKey = nil, nil
				}
				out[i] = wl
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Bech32 encodes a 20-byte address with a human-readable prefix.
func Bech32(prefix string, addr []byte) (string, error) {
	conv, err := bech32.ConvertBits(addr, 8, 5, true)
	if err != nil {
		return "", err
	}
	s, err := bech32.Encode(prefix, conv)
	if err != nil {
		return "", fmt.Errorf("bech32 prefix %q: %w", prefix, err)
	}
	return s, nil
}

// DecodeBech32 reads a bech32 address into its prefix and bytes.
func DecodeBech32(s string) (string, []byte, error) {
	prefix, data, err := bech32.Decode(s)
	if err != nil {
		return "", nil, err
	}
	addr, err := bech32.ConvertBits(data, 5, 8, false)
	return prefix, addr, err
}

// ValidatorAddress is the operator address ("<prefix>valoper1...") of the
// account at address; "" if address is not bech32.
func ValidatorAddress(prefix, address string) string {
	_, data, err := bech32.Decode(address)
	if err != nil {
		return ""
	}
	s, err := bech32.Encode(prefix+"valoper", data)
	if err != nil {
		return ""
	}
	return s
}
