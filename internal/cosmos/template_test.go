package cosmos

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/chainperf/chainperf/internal/msgtemplate"
)

// bankFile is cosmos.bank.v1beta1's MsgSend and its Coin as a chain's
// reflection service describes them (the fields that reach the wire).
const bankFile = `
name: "cosmos/bank/v1beta1/tx.proto"
package: "cosmos.bank.v1beta1"
syntax: "proto3"
message_type: [
  {name: "Coin" field: [
    {name: "denom" number: 1 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "denom"},
    {name: "amount" number: 2 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "amount"}]},
  {name: "MsgSend" field: [
    {name: "from_address" number: 1 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "fromAddress"},
    {name: "to_address" number: 2 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "toAddress"},
    {name: "amount" number: 3 type: TYPE_MESSAGE type_name: ".cosmos.bank.v1beta1.Coin" label: LABEL_REPEATED json_name: "amount"}]}]
`

const sendTemplate = `{"@type": "/cosmos.bank.v1beta1.MsgSend", "from_address": "{wallet}", "to_address": "{other}", "amount": [{"denom": "{denom}", "amount": "5"}]}`

func bankTemplate(t testing.TB) *msgtemplate.Template {
	t.Helper()
	f := &descriptorpb.FileDescriptorProto{}
	if err := prototext.Unmarshal([]byte(bankFile), f); err != nil {
		t.Fatal(err)
	}
	b, _ := proto.Marshal(f)
	d, err := msgtemplate.ParseDescriptors(protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), b))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := msgtemplate.Compile(d, sendTemplate, msgtemplate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// A bank send as a template is byte for byte the send chainperf encodes
// itself (which real chains verify signatures over in every run).
func TestTemplateSendIsTheBuiltinSend(t *testing.T) {
	ws, _ := Wallets("t", 2, "cosmos", 0)
	got, err := bankTemplate(t).Append(nil, &msgtemplate.Vars{Wallet: ws[0].Address, Other: ws[1].Address, Denom: "stake"})
	if err != nil {
		t.Fatal(err)
	}
	if want := MsgSend(nil, ws[0].Address, ws[1].Address, Coin{"stake", 5}); !bytes.Equal(got, want) {
		t.Fatalf("template %x\nbuiltin  %x", got, want)
	}
}

// What a tx's coin events moved, by address; an event that moves coins
// and names nobody is an error, not a loss.
func TestCoinMoves(t *testing.T) {
	ev := func(typ string, kv ...string) event {
		e := event{Type: typ}
		for i := 0; i < len(kv); i += 2 {
			e.Attributes = append(e.Attributes, struct {
				Key   string `json:"key"`
				Value string `json:"value"`
			}{kv[i], kv[i+1]})
		}
		return e
	}
	got, err := coinMoves([]event{
		ev("coin_spent", "spender", "w1", "amount", "20stake"), ev("coin_received", "receiver", "fees", "amount", "20stake"),
		ev("coin_spent", "spender", "w1", "amount", "5stake,3uatom"), ev("coin_received", "receiver", "contract", "amount", "5stake,3uatom"),
		ev("transfer", "recipient", "contract", "amount", "5stake"),
	}, "stake")
	if err != nil || got["w1"] != -25 || got["fees"] != 20 || got["contract"] != 5 || len(got) != 3 {
		t.Fatalf("moves %v, %v", got, err)
	}
	for _, bad := range [][]event{
		{ev("coin_spent", "amount", "5stake")},
		{ev("coin_received", "receiver", "x", "amount", "lots")},
		{ev("coin_received", "receiver", "x", "amount", "99999999999999999999stake")},
	} {
		if _, err := coinMoves(bad, "stake"); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// BenchmarkSignTemplate signs a bank send encoded from its template each
// time, beside BenchmarkSign's built-in one: the templated message's cost
// per tx.
func BenchmarkSignTemplate(b *testing.B) {
	ws, _ := Wallets("b", 2, "cosmos", 0)
	tmpl := bankTemplate(b)
	var x Builder
	var out []byte
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		msg, err := tmpl.Append(nil, &msgtemplate.Vars{Wallet: ws[0].Address, Other: ws[1].Address, Denom: "stake", N: uint64(i)})
		if err != nil {
			b.Fatal(err)
		}
		spec := TxSpec{ChainID: "c", Msgs: One(URLMsgSend, msg), Fee: Coin{"stake", 200}, GasLimit: 100000}
		out, _ = x.Append(out[:0], &spec, &ws[0], uint64(i))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}
