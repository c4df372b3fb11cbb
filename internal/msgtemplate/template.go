package msgtemplate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Bounds on a template: it is input.
const (
	MaxTemplateBytes = 64 << 10
	maxDepth         = 32
)

// Options are what a template may take from outside: the values set-up
// steps bound by name, and the contents of {file:PATH} and {module:PATH}.
type Options struct {
	Bound map[string]string
	File  func(kind, path string) ([]byte, error)
}

// A Template is one message in the chain's proto JSON, checked against the
// chain's descriptor of its type.
type Template struct {
	URL  string
	root *msgNode
}

// A msgNode is a message's fields given in the template, in field-number
// order (the order gogoproto writes, so the bytes are the SDK's own).
type msgNode struct {
	desc   protoreflect.MessageDescriptor
	fields []*fieldNode
	wkt    []seg // a well-known type given as a string ("3600s", a time)
}

type fieldNode struct {
	fd    protoreflect.FieldDescriptor
	vals  []*leaf    // one, or a list's elements
	entry [][2]*leaf // a map's entries, by key
}

// A leaf is one value: a scalar's text (placeholders resolved per
// message), a message, an Any, raw JSON for a bytes field, or file bytes.
type leaf struct {
	segs []seg
	msg  *msgNode
	any  *Template
	raw  any // a JSON object or array given for a bytes field: its JSON text
	data []byte
}

// Syntax checks a template without the chain's descriptors: a JSON object
// with its "@type", every placeholder known (bound: the names set-up
// steps bind). It returns the type URL.
func Syntax(text string, bound []string) (string, error) {
	names := map[string]string{}
	for _, b := range bound {
		names[b] = ""
	}
	tree, url, err := parse(text)
	if err != nil {
		return "", err
	}
	var salt uint64
	var walk func(v any, depth int) error
	walk = func(v any, depth int) error {
		if depth > maxDepth {
			return fmt.Errorf("nested deeper than %d", maxDepth)
		}
		switch x := v.(type) {
		case string:
			_, err := segments(x, names, &salt)
			return err
		case map[string]any:
			for _, k := range sortedKeys(x) {
				if err := walk(x[k], depth+1); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range x {
				if err := walk(e, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return url, walk(tree, 0)
}

// parse reads a template's JSON: an object with a string "@type".
func parse(text string) (map[string]any, string, error) {
	if len(text) > MaxTemplateBytes {
		return nil, "", fmt.Errorf("the template is %d bytes, over %d", len(text), MaxTemplateBytes)
	}
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, "", fmt.Errorf("not JSON: %w", err)
	}
	if d.More() {
		return nil, "", fmt.Errorf("more after the template's object")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("a template is a JSON object with its \"@type\", e.g. {\"@type\": \"/cosmos.bank.v1beta1.MsgSend\", ...}")
	}
	url, ok := obj["@type"].(string)
	if !ok || !strings.HasPrefix(url, "/") || len(url) < 2 {
		return nil, "", fmt.Errorf("a template names its message: \"@type\": \"/package.MsgName\"")
	}
	return obj, url, nil
}

// Compile checks a template against the chain's descriptors and prepares
// it for Append.
func Compile(d *Descriptors, text string, o Options) (*Template, error) {
	tree, url, err := parse(text)
	if err != nil {
		return nil, err
	}
	c := &compiler{d: d, o: o}
	return c.any(tree, url, "", 0)
}

type compiler struct {
	d    *Descriptors
	o    Options
	salt uint64
}

func (c *compiler) any(obj map[string]any, url, path string, depth int) (*Template, error) {
	md, err := c.d.Message(url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", at(path, "@type"), err)
	}
	n, err := c.message(md, obj, path, depth)
	if err != nil {
		return nil, err
	}
	return &Template{URL: url, root: n}, nil
}

func at(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func (c *compiler) message(md protoreflect.MessageDescriptor, obj map[string]any, path string, depth int) (*msgNode, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: nested deeper than %d", path, maxDepth)
	}
	n := &msgNode{desc: md}
	fields := md.Fields()
	for _, k := range sortedKeys(obj) {
		if k == "@type" {
			continue
		}
		fd := fields.ByJSONName(k)
		if fd == nil {
			fd = fields.ByName(protoreflect.Name(k))
		}
		if fd == nil {
			var names []string
			for i := range fields.Len() {
				names = append(names, string(fields.Get(i).Name()))
			}
			return nil, fmt.Errorf("%s: %s has no field %q (its fields: %s)%s", at(path, k), md.FullName(), k, strings.Join(names, ", "), suggest(k, names))
		}
		v := obj[k]
		if v == nil {
			continue // null: the field left out
		}
		f, err := c.field(fd, v, at(path, k), depth)
		if err != nil {
			return nil, err
		}
		n.fields = append(n.fields, f)
	}
	slices.SortFunc(n.fields, func(a, b *fieldNode) int { return int(a.fd.Number() - b.fd.Number()) })
	for i := 1; i < len(n.fields); i++ {
		if n.fields[i].fd == n.fields[i-1].fd {
			return nil, fmt.Errorf("%s: field %s given twice (by its JSON and its proto name)", path, n.fields[i].fd.Name())
		}
	}
	return n, nil
}

func (c *compiler) field(fd protoreflect.FieldDescriptor, v any, path string, depth int) (*fieldNode, error) {
	f := &fieldNode{fd: fd}
	switch {
	case fd.IsMap():
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: a map: give a JSON object", path)
		}
		for _, k := range sortedKeys(obj) {
			key, err := c.value(fd.MapKey(), k, path+"["+k+"]", depth)
			if err != nil {
				return nil, err
			}
			val, err := c.value(fd.MapValue(), obj[k], path+"["+k+"]", depth)
			if err != nil {
				return nil, err
			}
			f.entry = append(f.entry, [2]*leaf{key, val})
		}
	case fd.IsList():
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: a repeated field: give a JSON array", path)
		}
		for i, e := range list {
			l, err := c.value(fd, e, fmt.Sprintf("%s[%d]", path, i), depth)
			if err != nil {
				return nil, err
			}
			f.vals = append(f.vals, l)
		}
	default:
		l, err := c.value(fd, v, path, depth)
		if err != nil {
			return nil, err
		}
		f.vals = []*leaf{l}
	}
	return f, nil
}

// value compiles one value of field fd (an element, for a list).
func (c *compiler) value(fd protoreflect.FieldDescriptor, v any, path string, depth int) (*leaf, error) {
	switch fd.Kind() {
	case protoreflect.GroupKind:
		return nil, fmt.Errorf("%s: a proto2 group cannot be given in a template", path)
	case protoreflect.MessageKind:
		md := fd.Message()
		if md.FullName() == "google.protobuf.Any" {
			obj, ok := v.(map[string]any)
			url, _ := obj["@type"].(string)
			if !ok || url == "" {
				return nil, fmt.Errorf("%s: an Any: give an object with its \"@type\"", path)
			}
			t, err := c.any(obj, url, path, depth+1)
			if err != nil {
				return nil, err
			}
			return &leaf{any: t}, nil
		}
		if s, ok := v.(string); ok && strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
			segs, err := c.segments(s, path)
			if err != nil {
				return nil, err
			}
			n := &msgNode{desc: md, wkt: segs}
			if constant(segs) {
				if _, err := n.wktBytes(nil, &Vars{}); err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
			}
			return &leaf{msg: n}, nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: a %s: give a JSON object", path, md.FullName())
		}
		n, err := c.message(md, obj, path, depth+1)
		if err != nil {
			return nil, err
		}
		return &leaf{msg: n}, nil
	case protoreflect.BytesKind:
		switch x := v.(type) {
		case map[string]any, []any:
			// A contract's msg and the like: the bytes are JSON text.
			if err := c.checkRaw(x, path, depth); err != nil {
				return nil, err
			}
			return &leaf{raw: x}, nil
		case string:
			segs, err := c.segments(x, path)
			if err != nil {
				return nil, err
			}
			if len(segs) == 1 && segs[0].ph != nil && (segs[0].ph.name == "file" || segs[0].ph.name == "module") {
				if c.o.File == nil {
					return nil, fmt.Errorf("%s: {%s:...} is not available here", path, segs[0].ph.name)
				}
				data, err := c.o.File(segs[0].ph.name, segs[0].ph.arg)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
				return &leaf{data: data}, nil
			}
			if constant(segs) {
				if _, err := base64.StdEncoding.DecodeString(resolve(segs, &Vars{})); err != nil {
					return nil, fmt.Errorf("%s: bytes are base64 (or, for JSON such as a contract's msg, an object): %v", path, err)
				}
			}
			return &leaf{segs: segs}, nil
		}
		return nil, fmt.Errorf("%s: bytes: give base64, {file:PATH}, or a JSON object", path)
	}
	var text string
	switch x := v.(type) {
	case string:
		text = x
	case json.Number:
		text = x.String()
	case bool:
		text = strconv.FormatBool(x)
	default:
		return nil, fmt.Errorf("%s: a %s: give a JSON string or number, not %T", path, fd.Kind(), v)
	}
	segs, err := c.segments(text, path)
	if err != nil {
		return nil, err
	}
	if constant(segs) {
		if _, err := appendScalar(nil, fd, resolve(segs, &Vars{})); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return &leaf{segs: segs}, nil
}

func (c *compiler) segments(s, path string) ([]seg, error) {
	segs, err := segments(s, c.o.Bound, &c.salt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return segs, nil
}

// checkRaw checks the placeholders of raw JSON and compiles its strings'
// segments in place (as []seg).
func (c *compiler) checkRaw(v any, path string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s: nested deeper than %d", path, maxDepth)
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if s, ok := x[k].(string); ok {
				segs, err := c.segments(s, at(path, k))
				if err != nil {
					return err
				}
				x[k] = segs
				continue
			}
			if err := c.checkRaw(x[k], at(path, k), depth+1); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if s, ok := e.(string); ok {
				segs, err := c.segments(s, fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return err
				}
				x[i] = segs
				continue
			}
			if err := c.checkRaw(e, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

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
			return nil, fmt.Errorf("%q is not a %s (one of %s)%s", text, fd.Enum().FullName(), strings.Join(names, ", "), suggest(text, names))
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

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
