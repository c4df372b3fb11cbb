package cosmos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"

	"google.golang.org/protobuf/encoding/protowire"
)

// Scans read a whole module's entries a page at a time: a 100,000-wallet
// check reads every balance and nonce in about 40 queries instead of
// 200,000 (one a wallet each), which took a minute.
const (
	scanPage     = 5000      // entries a page asks for
	scanMaxPages = 1_000_000 // a node that never ends its pages is refused after this many
)

// ErrTooMany: a scan's first page said it holds more entries than asked
// for at most.
var ErrTooMany = errors.New("more entries than asked for")

// HolderBalances reads every holder of denom at height, keyed by bech32
// address (x/bank's DenomOwners, a page at a time); with most > 0, it
// ends with ErrTooMany once it read more holders than that (a public
// chain's denom may have millions: reading one's own wallets one by one
// is then cheaper).
func HolderBalances(ctx context.Context, c *http.Client, rpc, denom string, height int64, most int) (map[string]*big.Int, error) {
	out := map[string]*big.Int{}
	err := scan(ctx, c, rpc, "/cosmos.bank.v1beta1.Query/DenomOwners", height, most,
		func(page []byte) []byte { return appendBytes(appendString(nil, 1, denom), 2, page) },
		func(owner []byte) error {
			var addr string
			var coin []byte
			if err := Fields(owner, func(num protowire.Number, _ uint64, b []byte) {
				switch num {
				case 1:
					addr = string(b)
				case 2:
					coin = b
				}
			}); err != nil {
				return err
			}
			amount, err := bigAmount(coin)
			if err != nil {
				return fmt.Errorf("%s's balance: %w", addr, err)
			}
			if _, dup := out[addr]; dup || addr == "" {
				return fmt.Errorf("holder %q listed twice or without an address", addr)
			}
			out[addr] = amount
			return nil
		})
	return out, err
}

// AccountSequences reads every plain account's sequence (its nonce) at
// height, keyed by bech32 address (x/auth's Accounts, a page at a time).
// Module accounts, which send nothing, are left out; an account of any
// other type is an error.
func AccountSequences(ctx context.Context, c *http.Client, rpc string, height int64) (map[string]uint64, error) {
	out := map[string]uint64{}
	err := scan(ctx, c, rpc, "/cosmos.auth.v1beta1.Query/Accounts", height, 0,
		func(page []byte) []byte { return appendBytes(nil, 1, page) },
		func(anyMsg []byte) error {
			var url string
			var value []byte
			if err := Fields(anyMsg, func(num protowire.Number, _ uint64, b []byte) {
				switch num {
				case 1:
					url = string(b)
				case 2:
					value = b
				}
			}); err != nil {
				return err
			}
			switch url {
			case "/cosmos.auth.v1beta1.BaseAccount":
			case "/cosmos.auth.v1beta1.ModuleAccount":
				return nil
			default:
				return fmt.Errorf("an account of type %.80q: not read, so its nonce would be missed", url)
			}
			var addr string
			var seq uint64
			if err := Fields(value, func(num protowire.Number, v uint64, b []byte) {
				switch num {
				case 1:
					addr = string(b)
				case 4:
					seq = v
				}
			}); err != nil {
				return err
			}
			if _, dup := out[addr]; dup || addr == "" {
				return fmt.Errorf("account %q listed twice or without an address", addr)
			}
			out[addr] = seq
			return nil
		})
	return out, err
}

// scan runs the paginated query at path until its last page: request
// makes the request around a PageRequest, each is given every entry of
// the response's first field. With most > 0 a scan past most entries
// ends with ErrTooMany. The node is never asked for the total: counting
// walks every entry in one query, which on a million holders and a busy
// node took longer than a query may.
func scan(ctx context.Context, c *http.Client, rpc, path string, height int64, most int, request func(page []byte) []byte, each func([]byte) error) error {
	var key []byte
	read := 0
	for range scanMaxPages {
		page := appendUint(appendBytes(nil, 1, key), 3, scanPage)
		resp, err := Query(ctx, c, rpc, path, request(page), height)
		if err != nil {
			return err
		}
		var next []byte
		var failed error
		if err := Fields(resp, func(num protowire.Number, _ uint64, b []byte) {
			switch {
			case failed != nil:
			case num == 1:
				read++
				failed = each(b)
			case num == 2: // the PageResponse
				_ = Fields(b, func(num protowire.Number, _ uint64, b []byte) {
					if num == 1 {
						next = b
					}
				})
			}
		}); err != nil {
			return fmt.Errorf("%s %s: %w", rpc, path, err)
		}
		if failed != nil {
			return fmt.Errorf("%s %s: %w", rpc, path, failed)
		}
		if most > 0 && read > most {
			return fmt.Errorf("%s %s: over %d entries: %w", rpc, path, most, ErrTooMany)
		}
		if len(next) == 0 {
			return nil
		}
		if bytes.Equal(next, key) {
			return fmt.Errorf("%s %s: the next page's key is this page's (%x): the node's pages do not end", rpc, path, key)
		}
		key = bytes.Clone(next)
	}
	return fmt.Errorf("%s %s: more than %d pages of %d", rpc, path, scanMaxPages, scanPage)
}

// bigAmount reads a Coin's amount however large.
func bigAmount(coin []byte) (*big.Int, error) {
	var amount string
	if err := Fields(coin, func(num protowire.Number, _ uint64, b []byte) {
		if num == 2 {
			amount = string(b)
		}
	}); err != nil {
		return nil, err
	}
	if amount == "" {
		return new(big.Int), nil
	}
	v, ok := new(big.Int).SetString(amount, 10)
	if !ok || v.Sign() < 0 || len(amount) > 100 {
		return nil, fmt.Errorf("amount %.40q is not a whole number", amount)
	}
	return v, nil
}
