// Package evm speaks to Cosmos EVM chains without go-ethereum: wallets
// derived from a seed, Ethereum addresses, EIP-1559 (and legacy EIP-155)
// transactions signed with secp256k1, and the Cosmos tx that carries one
// to CometBFT's broadcast_tx_sync. The bytes are checked against
// go-ethereum's own signer and Cosmos EVM's own types by the test chain's
// module (chains/evm).
package evm

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
	"runtime"
	"sync"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"golang.org/x/crypto/sha3"
)

// An Address is an Ethereum account address.
type Address [20]byte

func (a Address) String() string { return fmt.Sprintf("0x%x", a[:]) }

// A Wallet is one account the load sends from.
type Wallet struct {
	Key     *secp256k1.PrivateKey
	Address Address
}

// Derive returns wallet i of seed: the key is a pure function of both.
// Anyone who knows the seed holds these keys: they are for chains of
// chainperf's own making.
func Derive(seed string, i int) Wallet {
	sum := sha256.Sum256(fmt.Appendf(nil, "chainperf-evm/%s/%d", seed, i))
	k := secp256k1.PrivKeyFromBytes(sum[:])
	return Wallet{Key: k, Address: AddressOf(k.PubKey())}
}

// Wallets derives wallets 0..n-1 of seed on every core.
func Wallets(seed string, n int) []Wallet {
	out := make([]Wallet, n)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				out[i] = Derive(seed, i)
			}
		}()
	}
	wg.Wait()
	return out
}

// AddressOf is the Ethereum address of a public key: the last 20 bytes
// of the Keccak-256 of its uncompressed form without the 0x04 prefix.
func AddressOf(pub *secp256k1.PublicKey) Address {
	var a Address
	copy(a[:], Keccak(pub.SerializeUncompressed()[1:])[12:])
	return a
}

// Keccak is Ethereum's Keccak-256.
func Keccak(b ...[]byte) []byte {
	h := sha3.NewLegacyKeccak256()
	for _, p := range b {
		h.Write(p)
	}
	return h.Sum(nil)
}

// A Tx is the fields of one transaction. GasPrice is the legacy price and
// the dynamic fee cap (which is what the fee the Cosmos tx carries is
// figured from); Tip only counts for dynamic-fee txs.
type Tx struct {
	Legacy   bool
	ChainID  uint64
	Nonce    uint64
	Tip      uint64 // wei per gas
	GasPrice uint64 // wei per gas
	Gas      uint64
	To       Address
	Create   bool     // a contract creation: no To, Data is the init code
	Value    uint64   // wei
	BigValue *big.Int // wei, instead of Value when set (funding and sweeps move more than a uint64)
	Data     []byte
}

// Fee is what the Cosmos envelope must carry: gas x price (cap).
func (t *Tx) Fee() *big.Int { return FeeOf(t.Gas, t.GasPrice) }

// Sign returns the signed transaction's bytes as eth_sendRawTransaction
// takes them (type 2 envelope or legacy RLP) and its hash.
func (t *Tx) Sign(k *secp256k1.PrivateKey) (raw, hash []byte) {
	var body []byte
	if t.Legacy {
		body = t.legacyFields(nil)
		unsigned := append(body, rlpUint(nil, t.ChainID)...)
		unsigned = append(unsigned, 0x80, 0x80)
		v, r, s := sign(k, Keccak(rlpList(nil, unsigned)))
		body = rlpUint(body, uint64(v)+t.ChainID*2+35)
		body = rlpBytes(body, trim(r))
		body = rlpBytes(body, trim(s))
		raw = rlpList(nil, body)
	} else {
		body = t.dynamicFields(nil)
		v, r, s := sign(k, Keccak([]byte{2}, rlpList(nil, body)))
		body = rlpUint(body, uint64(v))
		body = rlpBytes(body, trim(r))
		body = rlpBytes(body, trim(s))
		raw = rlpList([]byte{2}, body)
	}
	return raw, Keccak(raw)
}

func (t *Tx) legacyFields(b []byte) []byte {
	b = rlpUint(b, t.Nonce)
	b = rlpUint(b, t.GasPrice)
	b = rlpUint(b, t.Gas)
	b = t.to(b)
	b = t.value(b)
	return rlpBytes(b, t.Data)
}

// value appends the value: BigValue when set, else Value.
func (t *Tx) value(b []byte) []byte {
	if t.BigValue == nil {
		return rlpUint(b, t.Value)
	}
	return rlpBytes(b, t.BigValue.Bytes())
}

// to appends the recipient: empty for a contract creation.
func (t *Tx) to(b []byte) []byte {
	if t.Create {
		return rlpBytes(b, nil)
	}
	return rlpBytes(b, t.To[:])
}

func (t *Tx) dynamicFields(b []byte) []byte {
	b = rlpUint(b, t.ChainID)
	b = rlpUint(b, t.Nonce)
	b = rlpUint(b, t.Tip)
	b = rlpUint(b, t.GasPrice)
	b = rlpUint(b, t.Gas)
	b = t.to(b)
	b = t.value(b)
	b = rlpBytes(b, t.Data)
	return append(b, 0xc0) // empty access list
}

func trim(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

// rlpUint appends the RLP of an unsigned integer: big-endian, no leading
// zeros, 0 as the empty string.
func rlpUint(b []byte, v uint64) []byte {
	if v == 0 {
		return append(b, 0x80)
	}
	if v < 0x80 {
		return append(b, byte(v))
	}
	var be [8]byte
	binary.BigEndian.PutUint64(be[:], v)
	return rlpBytes(b, trim(be[:]))
}

// rlpBytes appends the RLP of a byte string.
func rlpBytes(b, s []byte) []byte {
	if len(s) == 1 && s[0] < 0x80 {
		return append(b, s[0])
	}
	b = rlpHead(b, 0x80, len(s))
	return append(b, s...)
}

// rlpList appends a list whose items' RLP is payload.
func rlpList(b, payload []byte) []byte {
	b = rlpHead(b, 0xc0, len(payload))
	return append(b, payload...)
}

func rlpHead(b []byte, base byte, n int) []byte {
	if n < 56 {
		return append(b, base+byte(n))
	}
	var be [8]byte
	binary.BigEndian.PutUint64(be[:], uint64(n))
	l := trim(be[:])
	b = append(b, base+55+byte(len(l)))
	return append(b, l...)
}
