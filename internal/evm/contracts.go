package evm

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"strings"
)

// The contract workloads' contracts, assembled by hand (a few opcodes
// each, so no compiler is needed to read or rebuild them; the chain's own
// EVM runs them in chains/evm/app's tests).
var (
	// storeCode: sstore(calldataload(0), calldataload(32)), then slot 0
	// (the count of writes) one more.
	//
	//	PUSH1 0x20 CALLDATALOAD PUSH1 0x00 CALLDATALOAD SSTORE
	//	PUSH1 0x00 SLOAD PUSH1 0x01 ADD PUSH1 0x00 SSTORE STOP
	storeCode = []byte{0x60, 0x20, 0x35, 0x60, 0x00, 0x35, 0x55,
		0x60, 0x00, 0x54, 0x60, 0x01, 0x01, 0x60, 0x00, 0x55, 0x00}
	// burnCode: counts calldataload(0) down to 0, 40 gas a turn.
	//
	//	0  PUSH1 0x00 CALLDATALOAD
	//	3  JUMPDEST DUP1 ISZERO PUSH1 0x10 JUMPI
	//	9  PUSH1 0x01 SWAP1 SUB PUSH1 0x03 JUMP
	//	16 JUMPDEST STOP
	burnCode = []byte{0x60, 0x00, 0x35, 0x5b, 0x80, 0x15, 0x60, 0x10, 0x57,
		0x60, 0x01, 0x90, 0x03, 0x60, 0x03, 0x56, 0x5b, 0x00}
)

// BurnTurnGas is what one turn of the burner's loop costs (JUMPDEST 1,
// DUP1 3, ISZERO 3, PUSH1 3, JUMPI 10, PUSH1 3, SWAP1 3, SUB 3, PUSH1 3,
// JUMP 8).
const BurnTurnGas = 40

// MaxBurnTurns bounds a burn tx's turns: 4,000,000 gas.
const MaxBurnTurns = 100_000

// Gas limits of the contract txs: a store writes two slots (one new,
// 22,100 cold; the count, 2,900-22,100), a deploy creates a contract of
// storeCode (32,000 + 200 a byte of code).
const (
	StoreGas  = 80_000
	DeployGas = 100_000
)

// StoreCode and BurnCode are the contracts' runtime code.
func StoreCode() []byte { return append([]byte(nil), storeCode...) }
func BurnCode() []byte  { return append([]byte(nil), burnCode...) }

// Creation is the creation code of a contract whose runtime is code:
// CODECOPY the code behind this header to memory and RETURN it.
func Creation(code []byte) []byte {
	n := byte(len(code)) // the contracts here are under 256 bytes
	const header = 12
	//	PUSH1 n PUSH1 header PUSH1 0 CODECOPY PUSH1 n PUSH1 0 RETURN
	out := []byte{0x60, n, 0x60, header, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xf3}
	return append(out, code...)
}

// BurnGas is the gas limit of a burn tx of turns: the intrinsic 21,000,
// its calldata (two words, the turns and the tx's number, at most 16 a
// byte), every turn and the last test, with 1,000 to spare.
func BurnGas(turns uint64) uint64 { return 21000 + 64*16 + BurnTurnGas*turns + 1000 }

// BurnCall is the calldata of a burn of turns.
func BurnCall(buf []byte, turns uint64) []byte { return word(buf, turns) }

// StoreKey is the slot a store tx of from with nonce writes: the address
// in the word's high 20 bytes, the nonce in its low 8 (never slot 0, the
// count).
func StoreKey(from Address, nonce uint64) [32]byte {
	var k [32]byte
	copy(k[:20], from[:])
	binary.BigEndian.PutUint64(k[24:], nonce)
	return k
}

// StoreCall is the calldata of a store tx of from with nonce: its slot and
// nonce + 1 as the value.
func StoreCall(buf []byte, from Address, nonce uint64) []byte {
	k := StoreKey(from, nonce)
	buf = append(buf, k[:]...)
	return word(buf, nonce+1)
}

// DeployContracts deploys each of codes (runtime code) from the deployer,
// with nonces from first, and waits for every receipt: their addresses in
// order, or why the chain would not have them.
func DeployContracts(ctx context.Context, d Deploy, first uint64, codes ...[]byte) ([]Address, error) {
	var txs []Tx
	var addrs []Address
	for i, code := range codes {
		txs = append(txs, Tx{ChainID: d.ChainID, Nonce: first + uint64(i), Tip: d.Tip, GasPrice: d.MaxFee, Gas: 200_000, Create: true, Data: Creation(code)})
		addrs = append(addrs, CreateAddress(d.Deployer.Address, first+uint64(i)))
	}
	name := func(i int) string { return fmt.Sprintf("contract %d's deployment", i) }
	rs, err := setUp(ctx, d, txs, name)
	if err != nil {
		return nil, err
	}
	for i, r := range rs {
		if r.Status != "0x1" || !strings.EqualFold(r.ContractAddress, addrs[i].String()) {
			return nil, fmt.Errorf("%s: status %s, address %s (%s expected)", name(i), r.Status, r.ContractAddress, addrs[i])
		}
	}
	return addrs, nil
}

// StorageAt reads slot key of contract at height.
func StorageAt(ctx context.Context, c *http.Client, url string, contract Address, key [32]byte, height int64) (*big.Int, error) {
	var out string
	if err := Call(ctx, c, url, "eth_getStorageAt", []any{contract.String(), fmt.Sprintf("0x%x", key), fmt.Sprintf("0x%x", height)}, &out); err != nil {
		return nil, err
	}
	n, ok := new(big.Int).SetString(strings.TrimPrefix(out, "0x"), 16)
	if !ok || len(out) > 2+64 {
		return nil, fmt.Errorf("eth_getStorageAt(%s) answered %q", contract, out)
	}
	return n, nil
}

// CodeAt reads the runtime code at addr at height.
func CodeAt(ctx context.Context, c *http.Client, url string, addr Address, height int64) ([]byte, error) {
	var out string
	if err := Call(ctx, c, url, "eth_getCode", []any{addr.String(), fmt.Sprintf("0x%x", height)}, &out); err != nil {
		return nil, err
	}
	b, err := hex.DecodeString(strings.TrimPrefix(out, "0x"))
	if err != nil || !strings.HasPrefix(out, "0x") {
		return nil, fmt.Errorf("eth_getCode(%s) answered %q", addr, out)
	}
	return b, nil
}
