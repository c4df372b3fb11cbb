package evm

import (
	"math/big"

	"google.golang.org/protobuf/encoding/protowire"
)

// Type URLs of the Cosmos EVM messages an envelope holds.
const (
	msgEthereumTxURL = "/cosmos.evm.vm.v1.MsgEthereumTx"
	extensionURL     = "/cosmos.evm.vm.v1.ExtensionOptionsEthereumTx"
)

// Envelope appends the Cosmos tx that carries a signed EVM tx to CometBFT
// (TxRaw of a body holding one MsgEthereumTx{from, raw} and the Ethereum
// extension option, and an auth info holding only the fee gas x price in
// denom), byte for byte what Cosmos EVM's JSON-RPC server builds for
// eth_sendRawTransaction, so both paths give a tx the same CometBFT hash.
func Envelope(b []byte, from Address, raw []byte, gas uint64, fee *big.Int, denom string) []byte {
	var msg []byte
	msg = protowire.AppendTag(msg, 5, protowire.BytesType)
	msg = protowire.AppendBytes(msg, from[:])
	msg = protowire.AppendTag(msg, 6, protowire.BytesType)
	msg = protowire.AppendBytes(msg, raw)

	var body []byte
	body = protowire.AppendTag(body, 1, protowire.BytesType)
	body = protowire.AppendBytes(body, anyOf(msgEthereumTxURL, msg))
	body = protowire.AppendTag(body, 1023, protowire.BytesType)
	body = protowire.AppendBytes(body, anyOf(extensionURL, nil))

	var feeMsg []byte
	if fee.Sign() > 0 {
		var coin []byte
		coin = protowire.AppendTag(coin, 1, protowire.BytesType)
		coin = protowire.AppendString(coin, denom)
		coin = protowire.AppendTag(coin, 2, protowire.BytesType)
		coin = protowire.AppendString(coin, fee.String())
		feeMsg = protowire.AppendTag(feeMsg, 1, protowire.BytesType)
		feeMsg = protowire.AppendBytes(feeMsg, coin)
	}
	if gas > 0 {
		feeMsg = protowire.AppendTag(feeMsg, 2, protowire.VarintType)
		feeMsg = protowire.AppendVarint(feeMsg, gas)
	}
	var auth []byte
	auth = protowire.AppendTag(auth, 2, protowire.BytesType)
	auth = protowire.AppendBytes(auth, feeMsg)

	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, body)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	return protowire.AppendBytes(b, auth)
}

func anyOf(url string, value []byte) []byte {
	var a []byte
	a = protowire.AppendTag(a, 1, protowire.BytesType)
	a = protowire.AppendString(a, url)
	if len(value) > 0 {
		a = protowire.AppendTag(a, 2, protowire.BytesType)
		a = protowire.AppendBytes(a, value)
	}
	return a
}

// FeeOf is gas x price as a big integer (it may pass 2^64).
func FeeOf(gas, price uint64) *big.Int {
	return new(big.Int).Mul(new(big.Int).SetUint64(gas), new(big.Int).SetUint64(price))
}

// RawOf returns the signed EVM tx an envelope carries (MsgEthereumTx.raw
// of its body's first message), or nil if env is not an envelope.
func RawOf(env []byte) []byte {
	field := func(b []byte, want protowire.Number) []byte {
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				return nil
			}
			b = b[n:]
			if typ != protowire.BytesType {
				if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
					return nil
				}
				b = b[n:]
				continue
			}
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return nil
			}
			if num == want {
				return v
			}
			b = b[n:]
		}
		return nil
	}
	return field(field(field(field(env, 1), 1), 2), 6)
}
