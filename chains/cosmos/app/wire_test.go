package app_test

import (
	"bytes"
	"testing"

	"cosmossdk.io/depinject"
	"cosmossdk.io/log"
	sdkmath "cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	sdksecp "github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/tx"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"

	"github.com/chainperf/chainperf/chains/cosmos/app"
	"github.com/chainperf/chainperf/internal/cosmos"
)

// TestWireFormatIsTheSDKs decodes chainperf's hand-encoded txs with the
// SDK's own decoder, re-encodes the SignDoc with the SDK's types and checks
// the signature with the SDK's key type: what the ante handler does.
func TestWireFormatIsTheSDKs(t *testing.T) {
	var txConfig client.TxConfig
	var cdc codec.Codec
	if err := depinject.Inject(depinject.Configs(app.Config(), depinject.Supply(log.NewNopLogger())), &txConfig, &cdc); err != nil {
		t.Fatal(err)
	}
	w, err := cosmos.Derive("wire", 7, "cosmos")
	if err != nil {
		t.Fatal(err)
	}
	w.Number = 300
	if want := sdk.AccAddress((&sdksecp.PubKey{Key: w.PubKey}).Address()).String(); w.Address != want {
		t.Fatalf("address %s, the SDK says %s", w.Address, want)
	}
	if want := authtypes.NewModuleAddress("fee_collector").String(); cosmos.ModuleAddress("cosmos", "fee_collector") != want {
		t.Fatalf("fee collector %s, the SDK says %s", cosmos.ModuleAddress("cosmos", "fee_collector"), want)
	}
	to, _ := cosmos.Derive("wire", 8, "cosmos")
	to2, _ := cosmos.Derive("wire", 9, "cosmos")
	coin := cosmos.Coin{Denom: "stake", Amount: 12345}
	send := &banktypes.MsgSend{FromAddress: w.Address, ToAddress: to.Address, Amount: sdk.NewCoins(sdk.NewCoin("stake", sdkmath.NewInt(12345)))}
	val, val2 := cosmos.ValidatorAddress("cosmos", to.Address), cosmos.ValidatorAddress("cosmos", to2.Address)
	if want := sdk.ValAddress(sdk.MustAccAddressFromBech32(to.Address)).String(); val != want {
		t.Fatalf("validator address %s, the SDK says %s", val, want)
	}
	cases := []struct {
		name string
		spec cosmos.TxSpec
		seq  uint64
		want []sdk.Msg
	}{
		{"send", cosmos.TxSpec{ChainID: "c-1", Msgs: cosmos.One(cosmos.URLMsgSend, cosmos.MsgSend(nil, w.Address, to.Address, coin)),
			Fee: cosmos.Coin{Denom: "stake", Amount: 200}, GasLimit: 100000, Memo: "m"}, 5,
			[]sdk.Msg{send}},
		{"send, seq 0, no fee", cosmos.TxSpec{ChainID: "c-1", Msgs: cosmos.One(cosmos.URLMsgSend, cosmos.MsgSend(nil, w.Address, to.Address, coin)), GasLimit: 1}, 0,
			[]sdk.Msg{send}},
		{"multisend", cosmos.TxSpec{ChainID: "c-1", Msgs: cosmos.One(cosmos.URLMsgMultiSend, cosmos.MsgMultiSend(nil, w.Address, []string{to.Address, to2.Address}, coin)),
			Fee: cosmos.Coin{Denom: "stake", Amount: 1}, GasLimit: 200000}, 1 << 40,
			[]sdk.Msg{&banktypes.MsgMultiSend{
				Inputs: []banktypes.Input{{Address: w.Address, Coins: sdk.NewCoins(sdk.NewCoin("stake", sdkmath.NewInt(24690)))}},
				Outputs: []banktypes.Output{
					{Address: to.Address, Coins: sdk.NewCoins(sdk.NewCoin("stake", sdkmath.NewInt(12345)))},
					{Address: to2.Address, Coins: sdk.NewCoins(sdk.NewCoin("stake", sdkmath.NewInt(12345)))},
				}}}},
		{"staking, three messages", cosmos.TxSpec{ChainID: "c-1", Msgs: []cosmos.Any{
			{URL: cosmos.URLMsgDelegate, Value: cosmos.MsgDelegate(nil, w.Address, val, coin)},
			{URL: cosmos.URLMsgUndelegate, Value: cosmos.MsgDelegate(nil, w.Address, val, coin)},
			{URL: cosmos.URLMsgBeginRedelegate, Value: cosmos.MsgBeginRedelegate(nil, w.Address, val, val2, coin)},
		}, Fee: cosmos.Coin{Denom: "stake", Amount: 7}, GasLimit: 300000}, 9,
			[]sdk.Msg{
				&stakingtypes.MsgDelegate{DelegatorAddress: w.Address, ValidatorAddress: val, Amount: sdk.NewCoin("stake", sdkmath.NewInt(12345))},
				&stakingtypes.MsgUndelegate{DelegatorAddress: w.Address, ValidatorAddress: val, Amount: sdk.NewCoin("stake", sdkmath.NewInt(12345))},
				&stakingtypes.MsgBeginRedelegate{DelegatorAddress: w.Address, ValidatorSrcAddress: val, ValidatorDstAddress: val2, Amount: sdk.NewCoin("stake", sdkmath.NewInt(12345))},
			}},
		{"unordered", cosmos.TxSpec{ChainID: "c-1", Msgs: []cosmos.Any{
			{URL: cosmos.URLMsgSend, Value: cosmos.MsgSend(nil, w.Address, to.Address, coin)},
			{URL: cosmos.URLMsgSend, Value: cosmos.MsgSend(nil, w.Address, to.Address, coin)},
		}, Fee: cosmos.Coin{Denom: "stake", Amount: 3}, GasLimit: 100000, Unordered: true, Timeout: 1_790_000_000_123_456_789}, 0,
			[]sdk.Msg{send, send}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b cosmos.Builder
			raw, err := b.Append(nil, &c.spec, &w, c.seq)
			if err != nil {
				t.Fatal(err)
			}
			decoded, err := txConfig.TxDecoder()(raw)
			if err != nil {
				t.Fatalf("the SDK cannot decode the tx: %v", err)
			}
			msgs := decoded.GetMsgs()
			if len(msgs) != len(c.want) {
				t.Fatalf("%d messages, want %d", len(msgs), len(c.want))
			}
			for i := range msgs {
				if !bytes.Equal(cdc.MustMarshal(msgs[i].(codec.ProtoMarshaler)), cdc.MustMarshal(c.want[i].(codec.ProtoMarshaler))) {
					t.Fatalf("message %d = %v, want %v", i, msgs[i], c.want[i])
				}
			}
			var txRaw tx.TxRaw
			if err := cdc.Unmarshal(raw, &txRaw); err != nil {
				t.Fatal(err)
			}
			var body tx.TxBody
			if err := cdc.Unmarshal(txRaw.BodyBytes, &body); err != nil {
				t.Fatal(err)
			}
			if body.Unordered != c.spec.Unordered || (c.spec.Unordered && body.TimeoutTimestamp.UnixNano() != c.spec.Timeout) {
				t.Fatalf("body unordered %v timeout %v, want %v %d", body.Unordered, body.TimeoutTimestamp, c.spec.Unordered, c.spec.Timeout)
			}
			if re, _ := cdc.Marshal(&body); !bytes.Equal(re, txRaw.BodyBytes) {
				t.Fatalf("the SDK re-encodes the body differently:\nours %x\nsdk  %x", txRaw.BodyBytes, re)
			}
			var authInfo tx.AuthInfo
			if err := cdc.Unmarshal(txRaw.AuthInfoBytes, &authInfo); err != nil {
				t.Fatal(err)
			}
			si := authInfo.SignerInfos[0]
			if want := c.seq * map[bool]uint64{false: 1, true: 0}[c.spec.Unordered]; si.Sequence != want || si.ModeInfo.GetSingle().Mode != signing.SignMode_SIGN_MODE_DIRECT {
				t.Fatalf("signer info %v", si)
			}
			if authInfo.Fee.GasLimit != c.spec.GasLimit || authInfo.Fee.Amount.AmountOf("stake").Uint64() != c.spec.Fee.Amount {
				t.Fatalf("fee %v, want %+v", authInfo.Fee, c.spec)
			}
			doc := tx.SignDoc{BodyBytes: txRaw.BodyBytes, AuthInfoBytes: txRaw.AuthInfoBytes, ChainId: c.spec.ChainID, AccountNumber: w.Number}
			sdkDoc, err := doc.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if ours := cosmos.SignDoc(nil, txRaw.BodyBytes, txRaw.AuthInfoBytes, c.spec.ChainID, w.Number); !bytes.Equal(ours, sdkDoc) {
				t.Fatalf("sign doc differs from the SDK's:\nours %x\nsdk  %x", ours, sdkDoc)
			}
			if !(&sdksecp.PubKey{Key: w.PubKey}).VerifySignature(sdkDoc, txRaw.Signatures[0]) {
				t.Fatal("the SDK's secp256k1 key does not verify the signature")
			}
			if re, _ := cdc.Marshal(&txRaw); !bytes.Equal(re, raw) {
				t.Fatal("the SDK re-encodes the TxRaw differently (not ADR-027 canonical)")
			}
		})
	}
}
