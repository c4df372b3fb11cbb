package evm

import (
	"fmt"
	"math/big"
)

// The disperser funds many wallets in one tx: one transfer a wallet took
// a block's worth of txs for every few thousand wallets, and 100,000
// wallets as many txs as the run itself. Its calldata is records of one
// word each, the value in the high 12 bytes and the address in the low
// 20; it sends each record's value to its address and reverts if a send
// fails or if anything is left in it (the tx's value must be the sum).
//
//	0  PUSH1 0x00                         i
//	2  JUMPDEST DUP1 CALLDATASIZE GT      loop: size > i?
//	6  ISZERO PUSH1 0x26 JUMPI            no: to end
//	10 DUP1 CALLDATALOAD                  the record
//	12 PUSH1 0 PUSH1 0 PUSH1 0 PUSH1 0    no data in or out
//	20 DUP5 PUSH1 0xa0 SHR                value: the record >> 160
//	24 DUP6 GAS CALL                      to: the record (CALL takes its low 20 bytes)
//	27 ISZERO PUSH1 0x2c JUMPI            failed: revert
//	31 POP PUSH1 0x20 ADD PUSH1 0x02 JUMP the next record
//	38 JUMPDEST SELFBALANCE PUSH1 0x2c JUMPI STOP   end: nothing may be left
//	44 JUMPDEST PUSH1 0x00 DUP1 REVERT
var disperseCode = []byte{
	0x60, 0x00,
	0x5b, 0x80, 0x36, 0x11,
	0x15, 0x60, 0x26, 0x57,
	0x80, 0x35,
	0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00,
	0x84, 0x60, 0xa0, 0x1c,
	0x85, 0x5a, 0xf1,
	0x15, 0x60, 0x2c, 0x57,
	0x50, 0x60, 0x20, 0x01, 0x60, 0x02, 0x56,
	0x5b, 0x47, 0x60, 0x2c, 0x57, 0x00,
	0x5b, 0x60, 0x00, 0x80, 0xfd,
}

// DisperseCode is the disperser's runtime code.
func DisperseCode() []byte { return append([]byte(nil), disperseCode...) }

// Gas of the disperser's txs: its deployment (32,000 + 200 a byte of
// code + the intrinsic 21,000 and the init code's calldata), and a call's
// base and each record (a value sent to a new account: 2,600 cold +
// 9,000 value + 25,000 new account; the loop and the record's calldata
// about 600).
const (
	DisperseDeployGas = 100_000
	disperseBaseGas   = 30_000
	disperseEachGas   = 40_000
	// disperseMax: records a call holds at most (20 M gas, 16 KB).
	disperseMax = 500
	// disperseFrom: fewer top-ups than this are one transfer each (the
	// disperser's deployment would cost more than it saves).
	disperseFrom = 8
)

// disperseMaxValue: a record's value has 96 bits.
var disperseMaxValue = new(big.Int).Lsh(big.NewInt(1), 96)

// DisperseCall is the calldata sending values[i] to to[i]. A value of 96
// bits or more is an error (7.9 x 10^28 wei: no top-up is that large).
func DisperseCall(to []Address, values []*big.Int) ([]byte, error) {
	out := make([]byte, 0, 32*len(to))
	for i, a := range to {
		if values[i].Sign() < 0 || values[i].Cmp(disperseMaxValue) >= 0 {
			return nil, fmt.Errorf("a top-up of %s wei to %s is over what the disperser carries (2^96 wei)", values[i], a)
		}
		var rec [32]byte
		values[i].FillBytes(rec[:12])
		copy(rec[12:], a[:])
		out = append(out, rec[:]...)
	}
	return out, nil
}

// DisperseChunk is how many records one call may hold under a block gas
// limit of maxGas (< 1: none): disperseMax, fewer if a block holds less,
// at least 1.
func DisperseChunk(maxGas int64) int {
	if maxGas < 1 {
		return disperseMax
	}
	n := (maxGas - disperseBaseGas) / disperseEachGas
	return int(max(1, min(disperseMax, n)))
}

// DisperseGas is the gas limit of a call of n records.
func DisperseGas(n int) uint64 { return disperseBaseGas + disperseEachGas*uint64(n) }
