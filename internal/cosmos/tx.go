package cosmos

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// Type URLs of the messages and keys this package encodes.
const (
	URLMsgSend            = "/cosmos.bank.v1beta1.MsgSend"
	URLMsgMultiSend       = "/cosmos.bank.v1beta1.MsgMultiSend"
	URLMsgDelegate        = "/cosmos.staking.v1beta1.MsgDelegate"
	URLMsgUndelegate      = "/cosmos.staking.v1beta1.MsgUndelegate"
	URLMsgBeginRedelegate = "/cosmos.staking.v1beta1.MsgBeginRedelegate"
	URLPubKey             = "/cosmos.crypto.secp256k1.PubKey"
)

// signModeDirect is SIGN_MODE_DIRECT of cosmos.tx.signing.v1beta1.SignMode.
const signModeDirect = 1

// A Coin is an amount of one denom.
type Coin struct {
	Denom  string
	Amount uint64
}

// The encoders below write fields in field-number order and leave out
// zero values, as gogoproto does: the SDK re-encodes the SignDoc itself to
// verify a signature, so ours must be its bytes exactly.

func appendString(b []byte, field protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, field protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendUint(b []byte, field protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// appendMessage appends a length-delimited sub-message that body writes.
// An empty message is still written (it may be a oneof or repeated entry).
func appendMessage(b []byte, field protowire.Number, body func([]byte) []byte) []byte {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	at := len(b)
	b = body(b)
	n := len(b) - at
	// Move the body right to make room for its length prefix.
	size := protowire.SizeVarint(uint64(n))
	b = append(b, make([]byte, size)...)
	copy(b[at+size:], b[at:at+n])
	protowire.AppendVarint(b[at:at], uint64(n))
	return b
}

func appendCoin(b []byte, field protowire.Number, c Coin) []byte {
	return appendMessage(b, field, func(b []byte) []byte {
		b = appendString(b, 1, c.Denom)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		var num [20]byte
		return protowire.AppendBytes(b, strconv.AppendUint(num[:0], c.Amount, 10))
	})
}

// MsgSend is cosmos.bank.v1beta1.MsgSend.
func MsgSend(b []byte, from, to string, amount Coin) []byte {
	b = appendString(b, 1, from)
	b = appendString(b, 2, to)
	return appendCoin(b, 3, amount)
}

// MsgMultiSend is cosmos.bank.v1beta1.MsgMultiSend with one input (the SDK
// allows only one) paying amount to each of to.
func MsgMultiSend(b []byte, from string, to []string, amount Coin) []byte {
	total := Coin{Denom: amount.Denom, Amount: amount.Amount * uint64(len(to))}
	b = appendMessage(b, 1, func(b []byte) []byte {
		b = appendString(b, 1, from)
		return appendCoin(b, 2, total)
	})
	for _, addr := range to {
		b = appendMessage(b, 2, func(b []byte) []byte {
			b = appendString(b, 1, addr)
			return appendCoin(b, 2, amount)
		})
	}
	return b
}

// MsgDelegate is cosmos.staking.v1beta1.MsgDelegate; MsgUndelegate has
// the same fields.
func MsgDelegate(b []byte, delegator, validator string, amount Coin) []byte {
	b = appendString(b, 1, delegator)
	b = appendString(b, 2, validator)
	return appendCoin(b, 3, amount)
}

// MsgBeginRedelegate is cosmos.staking.v1beta1.MsgBeginRedelegate.
func MsgBeginRedelegate(b []byte, delegator, src, dst string, amount Coin) []byte {
	b = appendString(b, 1, delegator)
	b = appendString(b, 2, src)
	b = appendString(b, 3, dst)
	return appendCoin(b, 4, amount)
}

// An Any is a message and its type URL, as a tx body holds it.
type Any struct {
	URL   string
	Value []byte
}

// A TxSpec is everything about one tx but its signature.
type TxSpec struct {
	ChainID  string
	Msgs     []Any
	Fee      Coin // Amount 0: no fee
	GasLimit uint64
	Memo     string
	// Unordered (Cosmos SDK v0.53) leaves the sequence out: the tx is
	// told apart by its sender and Timeout (Unix ns), which it needs.
	Unordered bool
	Timeout   int64
}

// One is a spec's message list of one message.
func One(url string, msg []byte) []Any { return []Any{{URL: url, Value: msg}} }

// A Builder builds signed txs, reusing its buffers: not safe for
// concurrent use, one per goroutine.
type Builder struct {
	body, auth, doc []byte
}

// Append appends the TxRaw of spec signed by w with account sequence seq
// (ignored when the spec is unordered).
func (x *Builder) Append(out []byte, spec *TxSpec, w *Wallet, seq uint64) ([]byte, error) {
	if w.Key == nil {
		return out, fmt.Errorf("wallet %s has no key to sign with", w.Address)
	}
	x.body = x.body[:0]
	for _, m := range spec.Msgs {
		x.body = appendMessage(x.body, 1, func(b []byte) []byte {
			b = appendString(b, 1, m.URL)
			return appendBytes(b, 2, m.Value)
		})
	}
	x.body = appendString(x.body, 2, spec.Memo)
	if spec.Unordered {
		seq = 0
		x.body = appendUint(x.body, 4, 1)
		x.body = appendMessage(x.body, 5, func(b []byte) []byte { // google.protobuf.Timestamp
			b = appendUint(b, 1, uint64(spec.Timeout/1e9))
			return appendUint(b, 2, uint64(spec.Timeout%1e9))
		})
	}
	x.auth = appendMessage(x.auth[:0], 1, func(b []byte) []byte { // signer_infos
		b = appendMessage(b, 1, func(b []byte) []byte { // public_key Any
			b = appendString(b, 1, URLPubKey)
			return appendMessage(b, 2, func(b []byte) []byte { return appendBytes(b, 1, w.PubKey) })
		})
		b = appendMessage(b, 2, func(b []byte) []byte { // mode_info
			return appendMessage(b, 1, func(b []byte) []byte { return appendUint(b, 1, signModeDirect) })
		})
		return appendUint(b, 3, seq)
	})
	x.auth = appendMessage(x.auth, 2, func(b []byte) []byte { // fee
		if spec.Fee.Amount > 0 {
			b = appendCoin(b, 1, spec.Fee)
		}
		return appendUint(b, 2, spec.GasLimit)
	})
	x.doc = SignDoc(x.doc[:0], x.body, x.auth, spec.ChainID, w.Number)
	sig, err := w.Key.Sign(x.doc)
	if err != nil {
		return out, err
	}
	out = appendBytes(out, 1, x.body)
	out = appendBytes(out, 2, x.auth)
	out = protowire.AppendTag(out, 3, protowire.BytesType)
	return protowire.AppendBytes(out, sig), nil
}

// SignDoc is cosmos.tx.v1beta1.SignDoc, the bytes SIGN_MODE_DIRECT signs.
func SignDoc(b, body, auth []byte, chainID string, account uint64) []byte {
	b = appendBytes(b, 1, body)
	b = appendBytes(b, 2, auth)
	b = appendString(b, 3, chainID)
	return appendUint(b, 4, account)
}
