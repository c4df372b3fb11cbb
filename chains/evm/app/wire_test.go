package app

import (
	"bytes"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	gethcommon "github.com/ethereum/go-ethereum/common"
	gethtypes "github.com/ethereum/go-ethereum/core/types"
	gethcrypto "github.com/ethereum/go-ethereum/crypto"

	"cosmossdk.io/log/v2"
	dbm "github.com/cosmos/cosmos-db"
	simtestutil "github.com/cosmos/cosmos-sdk/testutil/sims"

	evmtypes "github.com/cosmos/evm/x/vm/types"

	"github.com/chainperf/chainperf/internal/evm"
)

// valueOf is the tx's value as go-ethereum takes it.
func valueOf(c evm.Tx) *big.Int {
	if c.BigValue != nil {
		return c.BigValue
	}
	return new(big.Int).SetUint64(c.Value)
}

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
		{ChainID: 262144, Nonce: 0, Tip: 1, GasPrice: 5, Gas: 3_000_000, Create: true, Data: bytes.Repeat([]byte{0x60}, 3000)},
		{Legacy: true, ChainID: 262144, Nonce: 9, GasPrice: 5, Gas: 3_000_000, Create: true, Data: []byte{0x60, 0x00}},
		// funding and sweeps: values past a uint64
		{Legacy: true, ChainID: 262144, Nonce: 2, GasPrice: 2_000_000_000, Gas: 21000, To: to, BigValue: new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil)},
		{ChainID: 262144, Nonce: 3, Tip: 1, GasPrice: 7, Gas: 21000, To: to, BigValue: big.NewInt(0)},
	}
	for i, c := range cases {
		raw, hash := c.Sign(w.Key)
		gto := &gethcommon.Address{}
		*gto = gethcommon.Address(c.To)
		if c.Create {
			gto = nil
		}
		var inner gethtypes.TxData
		if c.Legacy {
			inner = &gethtypes.LegacyTx{Nonce: c.Nonce, GasPrice: new(big.Int).SetUint64(c.GasPrice), Gas: c.Gas,
				To: gto, Value: valueOf(c), Data: c.Data}
		} else {
			inner = &gethtypes.DynamicFeeTx{ChainID: new(big.Int).SetUint64(c.ChainID), Nonce: c.Nonce,
				GasTipCap: new(big.Int).SetUint64(c.Tip), GasFeeCap: new(big.Int).SetUint64(c.GasPrice), Gas: c.Gas,
				To: gto, Value: valueOf(c), Data: c.Data}
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
		a, err := New(log.NewNopLogger(), dbm.NewMemDB(), false, simtestutil.EmptyAppOptions{})
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

// The token's calldata is what go-ethereum's ABI encoder makes, and a
// created contract's address what go-ethereum says.
func TestTokenCallsAreGoEthereums(t *testing.T) {
	parsed, err := abi.JSON(strings.NewReader(`[
	{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}]},
	{"type":"function","name":"distribute","inputs":[{"name":"to","type":"address[]"},{"name":"each","type":"uint256"}]},
	{"type":"function","name":"balanceOf","inputs":[{"name":"a","type":"address"}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	a, b := evm.Derive("abi", 0).Address, evm.Derive("abi", 1).Address
	each, _ := new(big.Int).SetString("1000000000000000000000000", 10)
	for _, c := range []struct {
		name string
		got  []byte
		args []any
	}{
		{"transfer", evm.TransferCall(nil, b, 12345), []any{gethcommon.Address(b), big.NewInt(12345)}},
		{"distribute", evm.DistributeCall([]evm.Address{a, b, a}, each), []any{[]gethcommon.Address{gethcommon.Address(a), gethcommon.Address(b), gethcommon.Address(a)}, each}},
		{"distribute", evm.DistributeCall(nil, big.NewInt(0)), []any{[]gethcommon.Address{}, big.NewInt(0)}},
		{"balanceOf", evm.BalanceOfCall(a), []any{gethcommon.Address(a)}},
	} {
		want, err := parsed.Pack(c.name, c.args...)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.got, want) {
			t.Fatalf("%s: chainperf's calldata\n%x\ngo-ethereum's\n%x", c.name, c.got, want)
		}
	}
	for _, nonce := range []uint64{0, 1, 127, 128, 1 << 40} {
		if got, want := evm.CreateAddress(a, nonce), gethcrypto.CreateAddress(gethcommon.Address(a), nonce); !bytes.Equal(got[:], want[:]) {
			t.Fatalf("nonce %d: created at %s; go-ethereum says %s", nonce, got, want)
		}
	}
	if code, err := evm.TokenCode(); err != nil || len(code) < 500 {
		t.Fatalf("token bytecode: %d bytes, %v", len(code), err)
	}
}
