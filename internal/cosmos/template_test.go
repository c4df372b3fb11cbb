package cosmos

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/chainperf/chainperf/internal/load"
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

// bankDescriptors are bankFile with MsgSend's cosmos.msg.v1.signer option
// (from_address), as a chain serves it.
func bankDescriptors(t testing.TB) *msgtemplate.Descriptors {
	t.Helper()
	f := &descriptorpb.FileDescriptorProto{}
	if err := prototext.Unmarshal([]byte(bankFile), f); err != nil {
		t.Fatal(err)
	}
	opts := &descriptorpb.MessageOptions{}
	opts.ProtoReflect().SetUnknown(protowire.AppendString(protowire.AppendTag(nil, 11110000, protowire.BytesType), "from_address"))
	f.MessageType[1].Options = opts
	b, _ := proto.Marshal(f)
	d, err := msgtemplate.ParseDescriptors(protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), b))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A message learned from a block becomes a template whose signer is
// {wallet}, whose other account is {other} and whose denom is {denom}:
// filled with the same values it is the same message, byte for byte.
func TestLearnedTemplateRoundTrips(t *testing.T) {
	d := bankDescriptors(t)
	ws, _ := Wallets("l", 2, "cosmos", 0)
	real := MsgSend(nil, ws[0].Address, ws[1].Address, Coin{"stake", 12})
	if s, err := d.SignerValue(URLMsgSend, real); err != nil || s != ws[0].Address {
		t.Fatalf("signer %q, %v", s, err)
	}
	text, err := d.FromMessage(URLMsgSend, real, accountsLike(ws[0].Address))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"from_address":"{wallet}"`, `"to_address":"{other}"`, `"denom":"{denom}"`, `"amount":"12"`} {
		if !strings.Contains(text, want) {
			t.Errorf("learned %s: no %s", text, want)
		}
	}
	tmpl, err := msgtemplate.Compile(d, text, msgtemplate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.Append(nil, &msgtemplate.Vars{Wallet: ws[0].Address, Other: ws[1].Address, Denom: "stake"})
	if err != nil || !bytes.Equal(got, real) {
		t.Fatalf("filled again: %x (%v); the real message %x", got, err, real)
	}
	// A contract's address (32 bytes) is not an account: it stays.
	contract, _ := Bech32("cosmos", make([]byte, 32))
	if accountsLike(ws[0].Address)(contract) || !accountsLike(ws[0].Address)(ws[1].Address) {
		t.Error("accountsLike takes a contract's address for an account's, or not an account's")
	}
}

// Txs read from a block: a TxRaw's body's messages; anything else is not
// a Cosmos tx.
func TestTxMessages(t *testing.T) {
	ws, _ := Wallets("m", 2, "cosmos", 0)
	spec := TxSpec{ChainID: "c", Msgs: []Any{{URLMsgSend, MsgSend(nil, ws[0].Address, ws[1].Address, Coin{"stake", 1})}, {URLMsgDelegate, MsgDelegate(nil, ws[0].Address, "v", Coin{"stake", 2})}},
		Fee: Coin{"stake", 1}, GasLimit: 1}
	var b Builder
	tx, err := b.Append(nil, &spec, &ws[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := txMessages(tx)
	if err != nil || len(msgs) != 2 || msgs[0].URL != URLMsgSend || msgs[1].URL != URLMsgDelegate {
		t.Fatalf("%+v, %v", msgs, err)
	}
	for _, bad := range [][]byte{[]byte("key=value"), {0xff}, nil} {
		if _, err := txMessages(bad); err == nil {
			t.Errorf("%q read as a Cosmos tx", bad)
		}
	}
}

func TestEntryName(t *testing.T) {
	taken := map[string]bool{}
	for url, want := range map[string]string{
		"/cosmos.bank.v1beta1.MsgSend":                 "bank-send",
		"/cosmwasm.wasm.v1.MsgExecuteContract":         "wasm-execute-contract",
		"/cosmos.protocolpool.v1.MsgFundCommunityPool": "protocolpool-fund-community",
	} {
		if got := entryName(url, taken); got != want {
			t.Errorf("entryName(%s) = %q; want %q", url, got, want)
		}
	}
	if got := entryName("/other.bank.v2.MsgSend", taken); got != "bank-send-2" {
		t.Errorf("a second bank-send: %q", got)
	}
}

type pick int

func (p pick) Pick(uint64) int { return int(p) }
func (p pick) String() string  { return "fixed" }

// A committed templated tx is accounted by its coin events: the wallets'
// balances that match them are conserved; a wallet that holds one coin
// less than its events say is a mismatch and the sum is not conserved.
func TestTemplatedTxsAccountedByEvents(t *testing.T) {
	ws, _ := Wallets("e", 2, "cosmos", 0)
	const sent, fee = 5, 10
	events := fmt.Sprintf(`[{"type":"coin_spent","attributes":[{"key":"spender","value":%q},{"key":"amount","value":"%dstake"}]},
		{"type":"coin_received","attributes":[{"key":"receiver","value":"collector"},{"key":"amount","value":"%dstake"}]},
		{"type":"coin_spent","attributes":[{"key":"spender","value":%q},{"key":"amount","value":"%dstake"}]},
		{"type":"coin_received","attributes":[{"key":"receiver","value":%q},{"key":"amount","value":"%dstake"}]}]`,
		ws[0].Address, fee, fee, ws[0].Address, sent, ws[1].Address, sent)
	for _, c := range []struct {
		name     string
		held1    uint64 // wallet 1's balance on the chain
		conserve bool
	}{{"as the events say", 1000 + sent, true}, {"a coin short", 1000 + sent - 1, false}} {
		t.Run(c.name, func(t *testing.T) {
			held := map[string]uint64{ws[0].Address: 1000 - sent - fee, ws[1].Address: c.held1}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/status":
					fmt.Fprint(w, `{"result":{"sync_info":{"latest_block_height":"10"}}}`)
				case "/tx":
					fmt.Fprintf(w, `{"result":{"height":"8","tx_result":{"code":0,"events":%s}}}`, events)
				default: // abci_query of a balance
					var call struct{ Params struct{ Data string } }
					_ = json.NewDecoder(r.Body).Decode(&call)
					req, _ := hex.DecodeString(call.Params.Data)
					var addr string
					_ = Fields(req, func(num protowire.Number, _ uint64, b []byte) {
						if num == 1 {
							addr = string(b)
						}
					})
					resp := appendCoin(nil, 1, Coin{"stake", held[addr]})
					fmt.Fprintf(w, `{"result":{"response":{"code":0,"value":%q}}}`, base64.StdEncoding.EncodeToString(resp))
				}
			}))
			defer srv.Close()
			w, err := NewWorkload(WorkloadConfig{Kind: KindMix, ChainID: "c", Denom: "stake", Mix: []MixEntry{{Msg: "tsend", Weight: 1, Template: bankTemplate(t)}},
				GasLimit: 100000, Fee: fee, Funded: 1000, Senders: pick(0), Receivers: pick(1), RPCs: []string{srv.URL}}, ws)
			if err != nil {
				t.Fatal(err)
			}
			tx, err := w.Append(context.Background(), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			w.Sent(0, load.Accepted, "")
			w.Committed(sha256.Sum256(tx), 8, load.TxResult{}, time.Second)
			b, err := w.Verify(context.Background(), []string{srv.URL}, "cosmos", time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if b.ByEvents != 1 || b.Outside != 0 || b.OK() != c.conserve || b.Conserved != c.conserve {
				t.Errorf("%s; by events %d, out %d, examples %v", b, b.ByEvents, b.Outside, b.Examples)
			}
		})
	}
}
