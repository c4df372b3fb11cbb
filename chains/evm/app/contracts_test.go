package app

import (
	"bytes"
	"math/big"
	"testing"

	gethcommon "github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm/runtime"

	"github.com/chainperf/chainperf/internal/evm"
)

// The contract workloads' hand-assembled contracts do what chainperf's
// check reads back, run by go-ethereum's EVM (the one Cosmos EVM runs):
// a store writes its slot and counts, a burn costs 40 gas a turn, a
// deployment leaves the store contract's code.
func TestContractsRunAsAssembled(t *testing.T) {
	from := evm.Derive("contracts", 1).Address
	cfg := &runtime.Config{GasLimit: 10_000_000, Origin: gethcommon.Address(from)}

	// Store: two txs, then the slots and the count.
	code, store, _, err := runtime.Create(evm.Creation(evm.StoreCode()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(code, evm.StoreCode()) {
		t.Fatalf("the creation code deployed %x, not %x", code, evm.StoreCode())
	}
	for nonce := uint64(7); nonce < 9; nonce++ {
		if _, _, err := runtime.Call(store, evm.StoreCall(nil, from, nonce), cfg); err != nil {
			t.Fatalf("store %d: %v", nonce, err)
		}
	}
	for nonce := uint64(7); nonce < 9; nonce++ {
		k := evm.StoreKey(from, nonce)
		if v := cfg.State.GetState(store, k); new(big.Int).SetBytes(v[:]).Uint64() != nonce+1 {
			t.Errorf("slot of nonce %d holds %x, want %d", nonce, v, nonce+1)
		}
	}
	if v := cfg.State.GetState(store, gethcommon.Hash{}); new(big.Int).SetBytes(v[:]).Uint64() != 2 {
		t.Errorf("the count is %x after 2 stores", v)
	}

	// Burn: gas used grows by BurnTurnGas a turn.
	_, burner, _, err := runtime.Create(evm.Creation(evm.BurnCode()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	used := func(turns uint64) uint64 {
		_, left, err := runtime.Call(burner, evm.BurnCall(nil, turns), cfg)
		if err != nil {
			t.Fatalf("burn %d: %v", turns, err)
		}
		return cfg.GasLimit - left
	}
	base := used(0)
	for _, turns := range []uint64{1, 10, 1000} {
		if got := used(turns) - base; got != evm.BurnTurnGas*turns {
			t.Errorf("%d turns cost %d gas, want %d", turns, got, evm.BurnTurnGas*turns)
		}
	}
	// The tx's limit covers the most turns with its intrinsic gas and
	// calldata (runtime.Call charges neither).
	if limit := evm.BurnGas(evm.MaxBurnTurns); used(evm.MaxBurnTurns)+21000+64*16 > limit {
		t.Errorf("BurnGas(%d) = %d is short", evm.MaxBurnTurns, limit)
	}
}
