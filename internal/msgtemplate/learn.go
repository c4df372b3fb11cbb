package msgtemplate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// signerOption is cosmos.msg.v1.signer's field number: the fields of a
// message that name who signs it.
const signerOption = 11110000

// Signers are the names of the fields that sign a message of type url
// (its cosmos.msg.v1.signer option), as the chain describes it.
func (d *Descriptors) Signers(url string) []string {
	md, err := d.Message(url)
	if err != nil {
		return nil
	}
	return signersOf(md)
}

func signersOf(md protoreflect.MessageDescriptor) []string {
	opts, ok := md.Options().(*descriptorpb.MessageOptions)
	if !ok || opts == nil {
		return nil
	}
	var out []string
	for b := opts.ProtoReflect().GetUnknown(); len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return out
		}
		b = b[n:]
		if num == signerOption && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return out
			}
			out, b = append(out, string(v)), b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return out
		}
		b = b[m:]
	}
	return out
}

// SignerValue is the address that signs a real message of type url: its
// first signer field's, or, for a field that is a message (a multisend's
// inputs), that message's own signer's.
func (d *Descriptors) SignerValue(url string, value []byte) (string, error) {
	md, err := d.Message(url)
	if err != nil {
		return "", err
	}
	m := dynamicpb.NewMessage(md)
	if err := (proto.UnmarshalOptions{Resolver: d.types()}).Unmarshal(value, m); err != nil {
		return "", err
	}
	if s := signerIn(m, 0); s != "" {
		return s, nil
	}
	return "", fmt.Errorf("%s names no signer", url)
}

func signerIn(m protoreflect.Message, depth int) string {
	if depth > 4 {
		return ""
	}
	for _, name := range signersOf(m.Descriptor()) {
		fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
		switch {
		case fd == nil:
		case fd.Kind() == protoreflect.StringKind && !fd.IsList():
			return m.Get(fd).String()
		case fd.Kind() == protoreflect.MessageKind && fd.IsList() && m.Get(fd).List().Len() > 0:
			return signerIn(m.Get(fd).List().Get(0).Message(), depth+1)
		case fd.Kind() == protoreflect.MessageKind && !fd.IsList() && !fd.IsMap():
			return signerIn(m.Get(fd).Message(), depth+1)
		}
	}
	return ""
}

// FromMessage makes a template of a real message of type url: its proto
// JSON with the signer's address as {wallet}, the other addresses
// isAccount says are accounts as {other}, every "denom" as {denom}, raw
// JSON kept as JSON (a contract's msg), and literal braces doubled.
func (d *Descriptors) FromMessage(url string, value []byte, isAccount func(string) bool) (string, error) {
	md, err := d.Message(url)
	if err != nil {
		return "", err
	}
	m := dynamicpb.NewMessage(md)
	if err := (proto.UnmarshalOptions{Resolver: d.types()}).Unmarshal(value, m); err != nil {
		return "", fmt.Errorf("%s: %w", url, err)
	}
	text, err := protojson.MarshalOptions{Resolver: d.types(), UseProtoNames: true}.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("%s: %w", url, err)
	}
	var tree map[string]any
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return "", err
	}
	signer := signerIn(m, 0)
	out := map[string]any{"@type": url}
	for k, v := range tree {
		out[k] = placeholders(k, v, signer, isAccount)
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// placeholders turns a learned value into a template's: see FromMessage.
func placeholders(key string, v any, signer string, isAccount func(string) bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = placeholders(k, e, signer, isAccount)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = placeholders(key, e, signer, isAccount)
		}
		return x
	case string:
		switch {
		case x == signer && x != "":
			return "{wallet}"
		case key == "denom":
			return "{denom}"
		case isAccount(x):
			return "{other}"
		}
		if raw, ok := rawJSON(x); ok { // a contract's msg, as the contract reads it
			return placeholders(key, raw, signer, isAccount)
		}
		return strings.NewReplacer("{", "{{", "}", "}}").Replace(x)
	}
	return v
}

// rawJSON reads s as base64 of a JSON object or array.
func rawJSON(s string) (any, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) < 2 || (b[0] != '{' && b[0] != '[') {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return v, true
}
