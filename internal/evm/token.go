package evm

import (
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
)

// tokenHex is contracts/Token.sol's creation bytecode as solc 0.8.28
// compiles it (contracts/build.sh writes it; --check proves it in CI).
//
//go:embed token.bin
var tokenHex string

// TokenCode is the ERC20 token's creation bytecode.
func TokenCode() ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimSpace(tokenHex))
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("internal/evm/token.bin: not hex bytecode (%v): run contracts/build.sh", err)
	}
	return b, nil
}

// Function selectors: the first 4 bytes of the Keccak-256 of each
// signature.
var (
	selTransfer   = Keccak([]byte("transfer(address,uint256)"))[:4]
	selDistribute = Keccak([]byte("distribute(address[],uint256)"))[:4]
	selBalanceOf  = Keccak([]byte("balanceOf(address)"))[:4]
)

// word appends a 32-byte ABI word of a uint64.
func word(b []byte, v uint64) []byte {
	var w [32]byte
	binary.BigEndian.PutUint64(w[24:], v)
	return append(b, w[:]...)
}

// wordAddr appends a 32-byte ABI word of an address.
func wordAddr(b []byte, a Address) []byte {
	var w [32]byte
	copy(w[12:], a[:])
	return append(b, w[:]...)
}

// wordBig appends a 32-byte ABI word of n (0 <= n < 2^256).
func wordBig(b []byte, n *big.Int) []byte {
	var w [32]byte
	n.FillBytes(w[:])
	return append(b, w[:]...)
}

// TransferCall appends the calldata of transfer(to, amount).
func TransferCall(b []byte, to Address, amount uint64) []byte {
	b = append(b, selTransfer...)
	b = wordAddr(b, to)
	return word(b, amount)
}

// DistributeCall is the calldata of distribute(to, each).
func DistributeCall(to []Address, each *big.Int) []byte {
	b := append([]byte(nil), selDistribute...)
	b = word(b, 64) // offset of the array, after the two head words
	b = wordBig(b, each)
	b = word(b, uint64(len(to)))
	for _, a := range to {
		b = wordAddr(b, a)
	}
	return b
}

// BalanceOfCall is the calldata of balanceOf(a).
func BalanceOfCall(a Address) []byte { return wordAddr(append([]byte(nil), selBalanceOf...), a) }

// DeployData is the token's creation bytecode with its constructor's
// argument, the supply (the deployer's at first).
func DeployData(supply *big.Int) ([]byte, error) {
	code, err := TokenCode()
	if err != nil {
		return nil, err
	}
	return wordBig(code, supply), nil
}

// CreateAddress is the address of the contract sender creates with nonce:
// the last 20 bytes of Keccak-256(rlp([sender, nonce])).
func CreateAddress(sender Address, nonce uint64) Address {
	var a Address
	copy(a[:], Keccak(rlpList(nil, rlpUint(rlpBytes(nil, sender[:]), nonce)))[12:])
	return a
}
