package msgtemplate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Append appends the message's bytes for one message's values.
func (t *Template) Append(b []byte, v *Vars) ([]byte, error) {
	return t.root.append(b, v)
}

func (n *msgNode) append(b []byte, v *Vars) ([]byte, error) {
	if n.wkt != nil {
		return n.wktBytes(b, v)
	}
	var err error
	for _, f := range n.fields {
		if b, err = f.append(b, v); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// wktBytes encodes a well-known type given as its JSON string.
func (n *msgNode) wktBytes(b []byte, v *Vars) ([]byte, error) {
	m := dynamicpb.NewMessage(n.desc)
	if err := protojson.Unmarshal(strconv.AppendQuote(nil, resolve(n.wkt, v)), m); err != nil {
		return nil, fmt.Errorf("a %s: %v", n.desc.FullName(), err)
	}
	out, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append(b, out...), nil
}

func (f *fieldNode) append(b []byte, v *Vars) ([]byte, error) {
	fd := f.fd
	if f.entry != nil {
		for _, e := range f.entry {
			var entry []byte
			var err error
			if entry, err = e[0].appendField(entry, fd.MapKey(), v, true); err != nil {
				return nil, err
			}
			if entry, err = e[1].appendField(entry, fd.MapValue(), v, true); err != nil {
				return nil, err
			}
			b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
			b = protowire.AppendBytes(b, entry)
		}
		return b, nil
	}
	if fd.IsList() && fd.IsPacked() && len(f.vals) > 0 {
		var packed []byte
		for _, l := range f.vals {
			var err error
			if packed, err = appendScalar(packed, fd, resolve(l.segs, v)); err != nil {
				return nil, fmt.Errorf("%s: %w", fd.Name(), err)
			}
		}
		b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
		return protowire.AppendBytes(b, packed), nil
	}
	for _, l := range f.vals {
		var err error
		if b, err = l.appendField(b, fd, v, fd.IsList() || fd.HasPresence()); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// appendField appends one value of fd with its tag; a zero scalar is left
// out unless keep (a list's element, a field with presence, a map entry).
func (l *leaf) appendField(b []byte, fd protoreflect.FieldDescriptor, v *Vars, keep bool) ([]byte, error) {
	num := fd.Number()
	switch {
	case l.msg != nil:
		body, err := l.msg.append(nil, v)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, body), nil
	case l.any != nil:
		inner, err := l.any.root.append(nil, v)
		if err != nil {
			return nil, err
		}
		var body []byte
		body = protowire.AppendTag(body, 1, protowire.BytesType)
		body = protowire.AppendString(body, l.any.URL)
		if len(inner) > 0 {
			body = protowire.AppendTag(body, 2, protowire.BytesType)
			body = protowire.AppendBytes(body, inner)
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, body), nil
	case l.raw != nil:
		var buf bytes.Buffer
		writeRaw(&buf, l.raw, v)
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, buf.Bytes()), nil
	case l.data != nil:
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, l.data), nil
	}
	text := resolve(l.segs, v)
	if fd.Kind() == protoreflect.BytesKind {
		data, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not base64", fd.Name(), text)
		}
		if len(data) == 0 && !keep {
			return b, nil
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, data), nil
	}
	scalar, err := appendScalar(nil, fd, text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fd.Name(), err)
	}
	if !keep && zero(fd, scalar) {
		return b, nil
	}
	b = protowire.AppendTag(b, num, wireType(fd))
	return append(b, scalar...), nil
}

// zero says whether an encoded scalar is its kind's zero value.
func zero(fd protoreflect.FieldDescriptor, enc []byte) bool {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return len(enc) == 1 // the length 0
	case protoreflect.FloatKind, protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return bytes.Equal(enc, []byte{0, 0, 0, 0})
	case protoreflect.DoubleKind, protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return bytes.Equal(enc, make([]byte, 8))
	}
	return len(enc) == 1 && enc[0] == 0
}

func wireType(fd protoreflect.FieldDescriptor) protowire.Type {
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	case protoreflect.FloatKind, protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return protowire.Fixed32Type
	case protoreflect.DoubleKind, protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return protowire.Fixed64Type
	}
	return protowire.VarintType
}

// appendScalar appends the value of a scalar field (no tag) from its text.
func appendScalar(b []byte, fd protoreflect.FieldDescriptor, text string) ([]byte, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protowire.AppendString(b, text), nil
	case protoreflect.BoolKind:
		x, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", text)
		}
		return protowire.AppendVarint(b, protowire.EncodeBool(x)), nil
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByName(protoreflect.Name(text)); ev != nil {
			return protowire.AppendVarint(b, uint64(ev.Number())), nil
		}
		x, err := strconv.ParseInt(text, 10, 32)
		if err != nil {
			var names []string
			for i := range fd.Enum().Values().Len() {
				names = append(names, string(fd.Enum().Values().Get(i).Name()))
			}
			return nil, fmt.Errorf("%q is not a %s (one of %s)%s", text, fd.Enum().FullName(), strings.Join(names, ", "), didYouMean(text, names))
		}
		return protowire.AppendVarint(b, uint64(x)), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		bits := 64
		if k := fd.Kind(); k == protoreflect.Int32Kind || k == protoreflect.Sint32Kind || k == protoreflect.Sfixed32Kind {
			bits = 32
		}
		x, err := strconv.ParseInt(text, 10, bits)
		if err != nil {
			return nil, fmt.Errorf("%q is not a %s", text, fd.Kind())
		}
		switch fd.Kind() {
		case protoreflect.Sint32Kind:
			return protowire.AppendVarint(b, protowire.EncodeZigZag(int64(int32(x)))), nil
		case protoreflect.Sint64Kind:
			return protowire.AppendVarint(b, protowire.EncodeZigZag(x)), nil
		case protoreflect.Sfixed32Kind:
			return protowire.AppendFixed32(b, uint32(x)), nil
		case protoreflect.Sfixed64Kind:
			return protowire.AppendFixed64(b, uint64(x)), nil
		}
		return protowire.AppendVarint(b, uint64(x)), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		bits := 64
		if k := fd.Kind(); k == protoreflect.Uint32Kind || k == protoreflect.Fixed32Kind {
			bits = 32
		}
		x, err := strconv.ParseUint(text, 10, bits)
		if err != nil {
			return nil, fmt.Errorf("%q is not a %s", text, fd.Kind())
		}
		switch fd.Kind() {
		case protoreflect.Fixed32Kind:
			return protowire.AppendFixed32(b, uint32(x)), nil
		case protoreflect.Fixed64Kind:
			return protowire.AppendFixed64(b, x), nil
		}
		return protowire.AppendVarint(b, x), nil
	case protoreflect.FloatKind:
		x, err := strconv.ParseFloat(text, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not a float", text)
		}
		return protowire.AppendFixed32(b, math.Float32bits(float32(x))), nil
	case protoreflect.DoubleKind:
		x, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a double", text)
		}
		return protowire.AppendFixed64(b, math.Float64bits(x)), nil
	}
	return nil, fmt.Errorf("a %s field cannot be given in a template", fd.Kind())
}

// writeRaw writes raw JSON with its strings' placeholders resolved, keys
// sorted; a string that is one numeric placeholder alone is a number.
func writeRaw(buf *bytes.Buffer, v any, vars *Vars) {
	switch x := v.(type) {
	case map[string]any:
		buf.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			writeRaw(buf, x[k], vars)
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeRaw(buf, e, vars)
		}
		buf.WriteByte(']')
	case []seg:
		s := resolve(x, vars)
		if len(x) == 1 && x[0].ph != nil && numeric[x[0].ph.name] {
			buf.WriteString(s)
			return
		}
		sb, _ := json.Marshal(s)
		buf.Write(sb)
	case json.Number:
		buf.WriteString(x.String())
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case nil:
		buf.WriteString("null")
	}
}
