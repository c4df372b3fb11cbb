// Package msgtemplate turns message templates written in a chain's proto
// JSON ({"@type": "/cosmwasm.wasm.v1.MsgExecuteContract", "sender":
// "{wallet}", ...}) into the protobuf bytes of that message, with the
// message descriptors the running chain itself serves: no chain's code is
// compiled into chainperf. Placeholders in strings take each tx's values.
package msgtemplate

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// ReflectionPath is the Cosmos SDK's reflection service method (SDK v0.47
// and later) that answers every file descriptor the application knows; a
// node serves it through CometBFT's abci_query.
const ReflectionPath = "/cosmos.reflection.v1.ReflectionService/FileDescriptors"

// MaxDescriptorBytes bounds the reflection answer: a chain with wasm, IBC
// and the SDK's modules answers about 2 MB.
const MaxDescriptorBytes = 64 << 20

// Descriptors are a chain's message types.
type Descriptors struct {
	files *protoregistry.Files
	count int
	// Skipped are files left out, with why (at most 20).
	Skipped []string
}

// ParseDescriptors reads a cosmos.reflection.v1.FileDescriptorsResponse
// (repeated FileDescriptorProto files = 1). Files whose imports are not
// in the answer are kept: their messages resolve as far as they can.
func ParseDescriptors(resp []byte) (*Descriptors, error) {
	if len(resp) > MaxDescriptorBytes {
		return nil, fmt.Errorf("the chain's descriptors are %d bytes, over %d", len(resp), MaxDescriptorBytes)
	}
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	for b := resp; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, fmt.Errorf("the chain's descriptors do not parse: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if num != 1 || typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return nil, fmt.Errorf("the chain's descriptors do not parse: %w", protowire.ParseError(n))
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, fmt.Errorf("the chain's descriptors do not parse: %w", protowire.ParseError(n))
		}
		b = b[n:]
		f := &descriptorpb.FileDescriptorProto{}
		if err := proto.Unmarshal(v, f); err != nil {
			return nil, fmt.Errorf("the chain's descriptors do not parse: file %d: %w", len(set.File), err)
		}
		if seen[f.GetName()] {
			continue
		}
		seen[f.GetName()] = true
		set.File = append(set.File, f)
	}
	if len(set.File) == 0 {
		return nil, fmt.Errorf("the chain answered no file descriptors")
	}
	files, skipped := register(set.File)
	if files.NumFiles() == 0 {
		return nil, fmt.Errorf("none of the chain's %d descriptors could be read: %s", len(set.File), strings.Join(skipped, "; "))
	}
	return &Descriptors{files: files, count: files.NumFiles(), Skipped: skipped}, nil
}

// register builds the registry file by file, each after its imports: a
// file that does not build (a chain may serve one protobuf-go finds
// invalid) is left out with its reason, not the whole set; a file whose
// import is missing keeps its other messages.
func register(all []*descriptorpb.FileDescriptorProto) (*protoregistry.Files, []string) {
	byName := map[string]*descriptorpb.FileDescriptorProto{}
	for _, f := range all {
		byName[f.GetName()] = f
	}
	files := new(protoregistry.Files)
	state := map[string]int{} // 1: visiting, 2: done
	var skipped []string
	var visit func(f *descriptorpb.FileDescriptorProto)
	visit = func(f *descriptorpb.FileDescriptorProto) {
		if state[f.GetName()] != 0 {
			return // done, or an import cycle: built as far as it goes
		}
		state[f.GetName()] = 1
		for _, dep := range f.GetDependency() {
			if d, ok := byName[dep]; ok {
				visit(d)
			}
		}
		state[f.GetName()] = 2
		fd, err := protodesc.FileOptions{AllowUnresolvable: true}.New(f, files)
		if err == nil {
			err = files.RegisterFile(fd)
		}
		if err != nil && len(skipped) < 20 {
			skipped = append(skipped, fmt.Sprintf("%s: %v", f.GetName(), err))
		}
	}
	for _, f := range all {
		visit(f)
	}
	return files, skipped
}

// types resolves the chain's messages by name, for protobuf-go's own
// decoders.
func (d *Descriptors) types() *dynamicpb.Types { return dynamicpb.NewTypes(d.files) }

// Files is how many proto files the chain described.
func (d *Descriptors) Files() int { return d.count }

// Message finds a message by its type URL ("/pkg.Msg" or "pkg.Msg").
func (d *Descriptors) Message(url string) (protoreflect.MessageDescriptor, error) {
	name := url[strings.LastIndex(url, "/")+1:]
	desc, err := d.files.FindDescriptorByName(protoreflect.FullName(name))
	if err == nil {
		if md, ok := desc.(protoreflect.MessageDescriptor); ok {
			return md, nil
		}
		return nil, fmt.Errorf("%q is a %T, not a message", url, desc)
	}
	return nil, fmt.Errorf("the chain knows no message %q%s", url, d.nearest(name))
}

// nearest suggests the chain's message whose name is closest to name.
func (d *Descriptors) nearest(name string) string {
	short := name[strings.LastIndex(name, ".")+1:]
	var best []string
	d.files.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		msgs := f.Messages()
		for i := range msgs.Len() {
			m := msgs.Get(i)
			if strings.EqualFold(string(m.Name()), short) || strings.EqualFold(string(m.FullName()), name) {
				best = append(best, "/"+string(m.FullName()))
			}
		}
		return true
	})
	if len(best) == 0 {
		return ""
	}
	slices.Sort(best)
	return fmt.Sprintf("; did you mean %q?", best[0])
}

// Msgs lists the type URLs of the messages the chain's services take as
// transactions (names starting with "Msg"), sorted.
func (d *Descriptors) Msgs() []string {
	var out []string
	d.files.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		svcs := f.Services()
		for i := range svcs.Len() {
			if svcs.Get(i).Name() != "Msg" {
				continue
			}
			ms := svcs.Get(i).Methods()
			for j := range ms.Len() {
				if in := ms.Get(j).Input(); !in.IsPlaceholder() { // not an import the chain left out
					out = append(out, "/"+string(in.FullName()))
				}
			}
		}
		return true
	})
	slices.Sort(out)
	return slices.Compact(out)
}
