package app

import (
	"bytes"
	"math/big"
	"testing"

	gethcommon "github.com/ethereum/go-ethereum/common"
	gethtypes "github.com/ethereum/go-ethereum/core/types"
	gethcrypto "github.com/ethereum/go-ethereum/crypto"

	"cosmossdk.io/log"
	dbm "github.com/cosmos/cosmos-db"
	simtestutil "github.com/cosmos/cosmos-sdk/testutil/sims"

	evmtypes "github.com/cosmos/evm/x/vm/types"

	"github.com/chainperf/chainperf/internal/evm"
)

// chainperf's signed txs are the bytes go-ethereum's own signer makes for
// the same fields, dynamic-fee and legacy, and its Cosmos envelope is what
// Cosmos EVM builds from them for eth_sendRawTransaction.
func TestTxBytesAreGoEthereums(t *testing.T) {
	w := evm.Derive("wire", 3)
	key, err := gethcrypto.ToECDSA(w.Key.Serialize())
	if err != nil {
		t.Fatal(err)
	}
	if got := gethcrypto.PubkeyToAddress(key.PublicKey); !bytes.Equal(got[:], w.Address[:]) {
		t.Fatalf("address %s; go-ethereum says %s", w.Address, got)
	}
	to := evm.Derive("wire", 4).Address
	cases := []evm.Tx{
		{ChainID: 262144, Nonce: 0, Tip: 1, GasPrice: 2_000_000_000, Gas: 21000, To: to, Value: 1},
		{ChainID: 9001, Nonce: 1234567, Tip: 0, GasPrice: 7, Gas: 60000, To: to, Value: 0, Data: bytes.Repeat([]byte{0xab}, 68)},
		{Legacy: true, ChainID: 262144, Nonce: 5, GasPrice: 1_000_000_000, Gas: 21000, To: to, Value: 1_000_000},
		{Legacy: true, ChainID: 1, Nonce: 0, GasPrice: 1, Gas: 100000, To: to, Data: bytes.Repeat([]byte{1}, 300)},
	}
	for i, c := range cases {
		raw, hash := c.Sign(w.Key)
		gto := gethcommon.Address(c.To)
		var inner gethtypes.TxData
		if c.Legacy {
			inner = &gethtypes.LegacyTx{Nonce: c.Nonce, GasPrice: new(big.Int).SetUint64(c.GasPrice), Gas: c.Gas,
				To: &gto, Value: new(big.Int).SetUint64(c.Value), Data: c.Data}
		} else {
			inner = &gethtypes.DynamicFeeTx{ChainID: new(big.Int).SetUint64(c.ChainID), Nonce: c.Nonce,
				GasTipCap: new(big.Int).SetUint64(c.Tip), GasFeeCap: new(big.Int).SetUint64(c.GasPrice), Gas: c.Gas,
				To: &gto, Value: new(big.Int).SetUint64(c.Value), Data: c.Data}
		}
		signed, err := gethtypes.SignNewTx(key, gethtypes.LatestSignerForChainID(new(big.Int).SetUint64(c.ChainID)), inner)
		if err != nil {
			t.Fatal(err)
		}
		want, err := signed.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raw, want) {
			t.Fatalf("case %d: chainperf's tx\n%x\ngo-ethereum's\n%x", i, raw, want)
		}
		if h := signed.Hash(); !bytes.Equal(hash, h[:]) {
			t.Fatalf("case %d: hash %x; go-ethereum's %x", i, hash, h)
		}

		// The envelope, as Cosmos EVM's JSON-RPC server builds it.
		a, err := New(log.NewNopLogger(), dbm.NewMemDB(), nil, false, simtestutil.EmptyAppOptions{})
		if err != nil {
			t.Fatal(err)
		}
		msg := &evmtypes.MsgEthereumTx{}
		if err := msg.FromSignedEthereumTx(signed, gethtypes.LatestSignerForChainID(new(big.Int).SetUint64(c.ChainID))); err != nil {
			t.Fatal(err)
		}
		ctx, err := msg.BuildTxWithEvmParams(a.TxConfig().NewTxBuilder(), evmtypes.Params{
			EvmDenom: "atest", ExtendedDenomOptions: &evmtypes.ExtendedDenomOptions{ExtendedDenom: "atest"}})
		if err != nil {
			t.Fatal(err)
		}
		wantEnv, err := a.TxConfig().TxEncoder()(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if env := evm.Envelope(nil, w.Address, raw, c.Gas, c.Fee(), "atest"); !bytes.Equal(env, wantEnv) {
			t.Fatalf("case %d: chainperf's envelope\n%x\nCosmos EVM's\n%x", i, env, wantEnv)
		}
	}
}
