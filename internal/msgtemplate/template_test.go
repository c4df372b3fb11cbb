package msgtemplate

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// testFile is a chain's proto file as its reflection service would
// describe it: a contract call with raw JSON and coins, and a message with
// one field of every kind a template fills.
const testFile = `
name: "test/v1/tx.proto"
package: "test.v1"
dependency: ["google/protobuf/any.proto", "google/protobuf/timestamp.proto", "google/protobuf/duration.proto"]
syntax: "proto3"
message_type: [
  {name: "Coin" field: [
    {name: "denom" number: 1 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "denom"},
    {name: "amount" number: 2 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "amount"}]},
  {name: "MsgExecuteContract" field: [
    {name: "sender" number: 1 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "sender"},
    {name: "contract" number: 2 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "contract"},
    {name: "msg" number: 3 type: TYPE_BYTES label: LABEL_OPTIONAL json_name: "msg"},
    {name: "funds" number: 5 type: TYPE_MESSAGE type_name: ".test.v1.Coin" label: LABEL_REPEATED json_name: "funds"}]},
  {name: "MsgAll" field: [
    {name: "code_id" number: 1 type: TYPE_UINT64 label: LABEL_OPTIONAL json_name: "codeId"},
    {name: "delta" number: 2 type: TYPE_SINT64 label: LABEL_OPTIONAL json_name: "delta"},
    {name: "ok" number: 3 type: TYPE_BOOL label: LABEL_OPTIONAL json_name: "ok"},
    {name: "option" number: 4 type: TYPE_ENUM type_name: ".test.v1.VoteOption" label: LABEL_OPTIONAL json_name: "option"},
    {name: "inner" number: 5 type: TYPE_MESSAGE type_name: ".google.protobuf.Any" label: LABEL_OPTIONAL json_name: "inner"},
    {name: "at" number: 6 type: TYPE_MESSAGE type_name: ".google.protobuf.Timestamp" label: LABEL_OPTIONAL json_name: "at"},
    {name: "period" number: 7 type: TYPE_MESSAGE type_name: ".google.protobuf.Duration" label: LABEL_OPTIONAL json_name: "period"},
    {name: "ids" number: 8 type: TYPE_UINT64 label: LABEL_REPEATED json_name: "ids"},
    {name: "labels" number: 9 type: TYPE_MESSAGE type_name: ".test.v1.MsgAll.LabelsEntry" label: LABEL_REPEATED json_name: "labels"},
    {name: "weight" number: 10 type: TYPE_DOUBLE label: LABEL_OPTIONAL json_name: "weight"},
    {name: "names" number: 11 type: TYPE_STRING label: LABEL_REPEATED json_name: "names"},
    {name: "small" number: 12 type: TYPE_INT32 label: LABEL_OPTIONAL json_name: "small"}]
   nested_type: [{name: "LabelsEntry" options: {map_entry: true} field: [
    {name: "key" number: 1 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "key"},
    {name: "value" number: 2 type: TYPE_STRING label: LABEL_OPTIONAL json_name: "value"}]}]}]
enum_type: [{name: "VoteOption" value: [{name: "VOTE_OPTION_UNSPECIFIED" number: 0}, {name: "VOTE_OPTION_YES" number: 1}, {name: "VOTE_OPTION_NO" number: 3}]}]
service: [{name: "Msg" method: [{name: "ExecuteContract" input_type: ".test.v1.MsgExecuteContract" output_type: ".test.v1.Coin"}]}]
`

// chainAnswer is a reflection answer holding testFile and the
// well-known types it imports.
func chainAnswer(t testing.TB) []byte {
	t.Helper()
	f := &descriptorpb.FileDescriptorProto{}
	if err := prototext.Unmarshal([]byte(testFile), f); err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, fd := range []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto(anypb.File_google_protobuf_any_proto),
		protodesc.ToFileDescriptorProto(timestamppb.File_google_protobuf_timestamp_proto),
		protodesc.ToFileDescriptorProto(durationpb.File_google_protobuf_duration_proto),
		f,
	} {
		b, err := proto.Marshal(fd)
		if err != nil {
			t.Fatal(err)
		}
		out = protowire.AppendTag(out, 1, protowire.BytesType)
		out = protowire.AppendBytes(out, b)
	}
	return out
}

func descriptors(t testing.TB) *Descriptors {
	t.Helper()
	d, err := ParseDescriptors(chainAnswer(t))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every template encodes to the bytes protobuf-go's own JSON decoding and
// deterministic encoding give for the same message, placeholders resolved.
func TestTemplateMatchesProtobufGo(t *testing.T) {
	d := descriptors(t)
	v := &Vars{Wallet: "wasm1sender", Other: "wasm1other", Denom: "stake", N: 41, Seed: 7}
	for _, c := range []struct {
		name, template, want string // want: protojson of the same message
	}{
		{"contract call",
			`{"@type": "/test.v1.MsgExecuteContract", "sender": "{wallet}", "contract": "{contract}", "msg": {"enqueue": {"value": "{counter}", "tag": "t-{counter}"}}, "funds": [{"denom": "{denom}", "amount": "5"}]}`,
			`{"sender": "wasm1sender", "contract": "wasm1contract", "msg": "` + base64.StdEncoding.EncodeToString([]byte(`{"enqueue":{"tag":"t-41","value":41}}`)) + `", "funds": [{"denom": "stake", "amount": "5"}]}`},
		{"every kind",
			`{"@type": "/test.v1.MsgAll", "code_id": "{code}", "delta": -3, "ok": true, "option": "VOTE_OPTION_NO", "inner": {"@type": "/test.v1.Coin", "denom": "{denom}", "amount": "1"}, "at": "2026-01-02T03:04:05Z", "period": "3600s", "ids": [1, "{counter}", 3], "labels": {"b": "2", "a": "{other}"}, "weight": 0.5, "names": ["x", ""], "small": -7}`,
			`{"codeId": "12", "delta": "-3", "ok": true, "option": "VOTE_OPTION_NO", "inner": {"@type": "/test.v1.Coin", "denom": "stake", "amount": "1"}, "at": "2026-01-02T03:04:05Z", "period": "3600s", "ids": ["1", "41", "3"], "labels": {"a": "wasm1other", "b": "2"}, "weight": 0.5, "names": ["x", ""], "small": -7}`},
		{"zero values left out", `{"@type": "/test.v1.MsgAll", "code_id": 0, "ok": false, "option": "VOTE_OPTION_UNSPECIFIED", "delta": "0"}`, `{}`},
		{"enum by number, null", `{"@type": "/test.v1.MsgAll", "option": 1, "inner": null}`, `{"option": "VOTE_OPTION_YES"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmpl, err := Compile(d, c.template, Options{Bound: map[string][]string{"contract": {"wasm1contract"}, "code": {"12"}}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := tmpl.Append(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			md, _ := d.Message(tmpl.URL)
			m := dynamicpb.NewMessage(md)
			if err := (protojson.UnmarshalOptions{Resolver: d.types()}).Unmarshal([]byte(c.want), m); err != nil {
				t.Fatal(err)
			}
			want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("template bytes\n %x\nprotobuf-go's\n %x", got, want)
			}
		})
	}
}

// The random placeholders stay in their range, vary with the message, and
// are the same for the same message: pregenerated txs are reproducible.
func TestRandomPlaceholders(t *testing.T) {
	d := descriptors(t)
	tmpl, err := Compile(d, `{"@type": "/test.v1.MsgAll", "small": "{int:-2:2}", "names": ["{choice:a|b|c}"]}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ints, names := map[int32]int{}, map[string]int{}
	for n := range uint64(600) {
		b, err := tmpl.Append(nil, &Vars{N: n, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		again, _ := tmpl.Append(nil, &Vars{N: n, Seed: 1})
		if !bytes.Equal(b, again) {
			t.Fatalf("message %d differs between two encodings", n)
		}
		md, _ := d.Message(tmpl.URL)
		m := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(b, m); err != nil {
			t.Fatal(err)
		}
		ints[int32(m.Get(md.Fields().ByName("small")).Int())]++
		names[m.Get(md.Fields().ByName("names")).List().Get(0).String()]++
	}
	for x := int32(-2); x <= 2; x++ {
		if ints[x] < 60 {
			t.Errorf("{int:-2:2} drew %d %d times of 600: %v", x, ints[x], ints)
		}
	}
	if len(ints) != 5 || len(names) != 3 || names["a"] < 120 {
		t.Errorf("draws: %v %v", ints, names)
	}
}

// Each refusal names the place in the template and what the chain has.
func TestTemplateRefusals(t *testing.T) {
	d := descriptors(t)
	for _, c := range []struct{ template, want string }{
		{`{"@type": "/test.v1.MsgExecuteContrct", "sender": "x"}`, `@type: the chain knows no message "/test.v1.MsgExecuteContrct"`},
		{`{"@type": "/test.v1.MsgExecuteContract", "contrat": "x"}`, `contrat: test.v1.MsgExecuteContract has no field "contrat" (its fields: sender, contract, msg, funds); did you mean "contract"?`},
		{`{"@type": "/test.v1.MsgExecuteContract", "funds": [{"denm": "x"}]}`, `funds[0].denm: test.v1.Coin has no field "denm"`},
		{`{"@type": "/test.v1.MsgExecuteContract", "contract": "{contrct}"}`, `contract: {contrct}: no such placeholder`},
		{`{"@type": "/test.v1.MsgExecuteContract", "msg": {"x": "{nope}"}}`, `msg.x: {nope}: no such placeholder`},
		{`{"@type": "/test.v1.MsgAll", "code_id": "-1"}`, `code_id: "-1" is not a uint64`},
		{`{"@type": "/test.v1.MsgAll", "option": "VOTE_OPTION_NOO"}`, `did you mean "VOTE_OPTION_NO"?`},
		{`{"@type": "/test.v1.MsgAll", "ids": 3}`, `ids: a repeated field: give a JSON array`},
		{`{"@type": "/test.v1.MsgAll", "at": "yesterday"}`, `at: a google.protobuf.Timestamp`},
		{`{"@type": "/test.v1.MsgAll", "inner": {"denom": "x"}}`, `inner: an Any: give an object with its "@type"`},
		{`{"@type": "/test.v1.MsgAll", "small": "{int:5:1}"}`, `want {int:LOW:HIGH}`},
		{`{"@type": "/test.v1.MsgAll", "names": ["{wallet"]}`, `a '{' with no '}'`},
		{`{"@type": "/test.v1.MsgAll", "codeId": 1, "code_id": 2}`, `field code_id given twice`},
		{`{"sender": "x"}`, `a template names its message`},
		{`[1]`, `a template is a JSON object`},
		{`{"@type": "/test.v1.MsgAll"} {}`, `more after the template's object`},
		{`{"@type": "/test.v1.MsgExecuteContract", "msg": "{file:x.wasm}"}`, `{file:...} is not available here`},
	} {
		_, err := Compile(d, c.template, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %q", c.template, err, c.want)
		}
	}
}

// A chain's answer that is not descriptors is refused, not half read.
func TestDescriptorRefusals(t *testing.T) {
	good := chainAnswer(t)
	for name, answer := range map[string][]byte{
		"empty":      nil,
		"truncated":  good[:len(good)-3],
		"not a file": protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte{0xff, 0xff}),
	} {
		if _, err := ParseDescriptors(answer); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	d := descriptors(t)
	if got := d.Msgs(); len(got) != 1 || got[0] != "/test.v1.MsgExecuteContract" {
		t.Errorf("Msgs() = %v", got)
	}
}

func FuzzTemplate(f *testing.F) {
	f.Add(`{"@type": "/test.v1.MsgExecuteContract", "sender": "{wallet}", "msg": {"a": ["{int:1:9}", null, true, 1.5]}}`)
	f.Add(`{"@type": "/test.v1.MsgAll", "labels": {"k": "{choice:x|y}"}, "ids": ["{counter}"], "at": "{choice:2026-01-02T03:04:05Z|1970-01-01T00:00:00Z}"}`)
	f.Add(`{"@type": "/test.v1.MsgAll", "inner": {"@type": "/test.v1.MsgAll", "inner": {"@type": "/test.v1.Coin"}}}`)
	d := descriptors(f)
	f.Fuzz(func(t *testing.T, text string) {
		if _, err := Syntax(text, []string{"contract"}); err != nil {
			return
		}
		tmpl, err := Compile(d, text, Options{Bound: map[string][]string{"contract": {"c1", "c2"}}})
		if err != nil {
			return
		}
		// A template that compiled encodes, or says why (a placeholder's
		// value that is not its field's kind), and its bytes decode as
		// the message.
		b, err := tmpl.Append(nil, &Vars{Wallet: "w", Other: "o", Denom: "d", N: 3})
		if err != nil {
			return
		}
		md, _ := d.Message(tmpl.URL)
		if err := (proto.UnmarshalOptions{Resolver: d.types()}).Unmarshal(b, dynamicpb.NewMessage(md)); err != nil {
			t.Fatalf("%s: encoded %x does not decode: %v", text, b, err)
		}
	})
}

// FuzzDescriptors feeds the descriptor reader whatever a node might answer:
// an error or descriptors, never a panic, and what it read finds messages.
func FuzzDescriptors(f *testing.F) {
	f.Add(chainAnswer(f))
	f.Add([]byte{0x0a, 0x03, 0x0a, 0x01, 0x78})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, answer []byte) {
		d, err := ParseDescriptors(answer)
		if err != nil {
			return
		}
		for _, url := range d.Msgs() {
			if _, err := d.Message(url); err != nil {
				t.Fatalf("listed %s, then not found: %v", url, err)
			}
		}
	})
}
