package app_test

import (
	"bytes"
	"context"
	"testing"

	"cosmossdk.io/depinject"
	"cosmossdk.io/log"
	sdkmath "cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/client"
	clienttx "github.com/cosmos/cosmos-sdk/client/tx"
	sdksecp "github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	authsigning "github.com/cosmos/cosmos-sdk/x/auth/signing"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/chainperf/chainperf/chains/cosmos/app"
	"github.com/chainperf/chainperf/internal/cosmos"
)

// The two benchmarks below sign the same MsgSend with SIGN_MODE_DIRECT:
// chainperf's encoder, and the SDK's own client path (TxBuilder,
// SignWithPrivKey, TxEncoder) as the peer figure. Run both with
//   cd chains/cosmos && go test -run X -bench Sign ./app
// (one core each: the loops are sequential).

func BenchmarkSignChainperf(b *testing.B) {
	from, _ := cosmos.Derive("bench", 0, "cosmos")
	to, _ := cosmos.Derive("bench", 1, "cosmos")
	spec := cosmos.TxSpec{ChainID: "c", Msgs: cosmos.One(cosmos.URLMsgSend, cosmos.MsgSend(nil, from.Address, to.Address, cosmos.Coin{Denom: "stake", Amount: 1})),
		Fee: cosmos.Coin{Denom: "stake", Amount: 200}, GasLimit: 100000}
	var x cosmos.Builder
	var out []byte
	for i := 0; b.Loop(); i++ {
		out, _ = x.Append(out[:0], &spec, &from, uint64(i))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}

// sdkSigner signs a MsgSend from wallet 0 to wallet 1 of seed "bench"
// the way an SDK client does.
func sdkSigner(tb testing.TB) func(seq uint64) []byte {
	var txConfig client.TxConfig
	if err := depinject.Inject(depinject.Configs(app.Config(), depinject.Supply(log.NewNopLogger())), &txConfig); err != nil {
		tb.Fatal(err)
	}
	from, _ := cosmos.Derive("bench", 0, "cosmos")
	to, _ := cosmos.Derive("bench", 1, "cosmos")
	priv := &sdksecp.PrivKey{Key: from.Key.Bytes()}
	msg := &banktypes.MsgSend{FromAddress: from.Address, ToAddress: to.Address, Amount: sdk.NewCoins(sdk.NewCoin("stake", sdkmath.NewInt(1)))}
	return func(seq uint64) []byte {
		txb := txConfig.NewTxBuilder()
		if err := txb.SetMsgs(msg); err != nil {
			tb.Fatal(err)
		}
		txb.SetGasLimit(100000)
		txb.SetFeeAmount(sdk.NewCoins(sdk.NewCoin("stake", sdkmath.NewInt(200))))
		empty := signing.SignatureV2{PubKey: priv.PubKey(), Data: &signing.SingleSignatureData{SignMode: signing.SignMode_SIGN_MODE_DIRECT}, Sequence: seq}
		if err := txb.SetSignatures(empty); err != nil {
			tb.Fatal(err)
		}
		sig, err := clienttx.SignWithPrivKey(context.Background(), signing.SignMode_SIGN_MODE_DIRECT,
			authsigning.SignerData{Address: from.Address, ChainID: "c", AccountNumber: 0, Sequence: seq, PubKey: priv.PubKey()}, txb, priv, txConfig, seq)
		if err != nil {
			tb.Fatal(err)
		}
		if err := txb.SetSignatures(sig); err != nil {
			tb.Fatal(err)
		}
		out, err := txConfig.TxEncoder()(txb.GetTx())
		if err != nil {
			tb.Fatal(err)
		}
		return out
	}
}

func BenchmarkSignSDK(b *testing.B) {
	sign := sdkSigner(b)
	for i := 0; b.Loop(); i++ {
		sign(uint64(i))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}

// TestSameBytesAsTheSDKClient: signatures are deterministic (RFC 6979),
// so chainperf's tx and the SDK client's must be the same bytes.
func TestSameBytesAsTheSDKClient(t *testing.T) {
	sign := sdkSigner(t)
	from, _ := cosmos.Derive("bench", 0, "cosmos")
	to, _ := cosmos.Derive("bench", 1, "cosmos")
	spec := cosmos.TxSpec{ChainID: "c", Msgs: cosmos.One(cosmos.URLMsgSend, cosmos.MsgSend(nil, from.Address, to.Address, cosmos.Coin{Denom: "stake", Amount: 1})),
		Fee: cosmos.Coin{Denom: "stake", Amount: 200}, GasLimit: 100000}
	for _, seq := range []uint64{0, 1, 300, 1 << 33} {
		var x cosmos.Builder
		ours, err := x.Append(nil, &spec, &from, seq)
		if err != nil {
			t.Fatal(err)
		}
		if sdkTx := sign(seq); !bytes.Equal(ours, sdkTx) {
			t.Fatalf("sequence %d:\nchainperf %x\nSDK       %x", seq, ours, sdkTx)
		}
	}
}
