package msgtemplate

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Bounds on a template: it is input.
const (
	MaxTemplateBytes = 64 << 10
	maxDepth         = 32
)

// Options are what a template may take from outside: the values set-up
// steps bound by name, and the contents of {file:PATH} and {module:PATH}.
type Options struct {
	Bound map[string][]string
	File  func(kind, path string) ([]byte, error)
}

// A Template is one message in the chain's proto JSON, checked against the
// chain's descriptor of its type.
type Template struct {
	URL    string
	root   *msgNode
	digest string // of the text and the values bound into it
}

// String names the template by its type and a digest of what makes its
// bytes: a cache of signed txs keys on it.
func (t *Template) String() string { return t.URL + "#" + t.digest }

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
	names := map[string][]string{}
	for _, b := range bound {
		names[b] = nil
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
	t, err := c.any(tree, url, "", 0)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	h.Write([]byte(text))
	for _, k := range sortedKeys(o.Bound) {
		fmt.Fprintf(h, "|%s=%q", k, o.Bound[k])
	}
	for _, f := range c.files {
		h.Write(f)
	}
	t.digest = hex.EncodeToString(h.Sum(nil))[:16]
	return t, nil
}

type compiler struct {
	d     *Descriptors
	o     Options
	salt  uint64
	files [][]byte // read for {file:...} and {module:...}
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
			return nil, fmt.Errorf("%s: %s has no field %q (its fields: %s)%s", at(path, k), md.FullName(), k, strings.Join(names, ", "), didYouMean(k, names))
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
		return c.messageValue(fd.Message(), v, path, depth)
	case protoreflect.BytesKind:
		return c.bytesValue(v, path, depth)
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

// messageValue compiles a message field's value: an object, an Any with
// its "@type", or a well-known type as its JSON string.
func (c *compiler) messageValue(md protoreflect.MessageDescriptor, v any, path string, depth int) (*leaf, error) {
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
}

// bytesValue compiles a bytes field's value: a JSON object or array (its
// JSON text), a file's contents, or base64.
func (c *compiler) bytesValue(v any, path string, depth int) (*leaf, error) {
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
			c.files = append(c.files, data)
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

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
