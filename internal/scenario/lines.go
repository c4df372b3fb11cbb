package scenario

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/pelletier/go-toml/v2/unstable"
)

// lines maps a dotted key path ("testnet.validators", "load.steps[1].rate") to
// the 1-based line where the document sets it, so that validation errors can
// name file:line. Tables map to the line of their header.
type lines map[string]int

// indexLines parses data with go-toml's low-level parser. It returns an
// empty index when the document does not parse; the decoder reports that.
func indexLines(data []byte) lines {
	idx := lines{}
	p := unstable.Parser{}
	p.Reset(data)
	var table []string
	arrays := map[string]int{} // array-table path -> next index
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(e.Key())
			path := strings.Join(table, ".")
			if e.Kind == unstable.ArrayTable {
				n := arrays[path]
				arrays[path] = n + 1
				path = fmt.Sprintf("%s[%d]", path, n)
				table = []string{path}
			}
			idx[path] = line(&p, e.Key())
		case unstable.KeyValue:
			parts := append(append([]string{}, table...), keyParts(e.Key())...)
			path := strings.Join(parts, ".")
			idx[path] = line(&p, e.Key())
			indexInline(&p, e.Value(), path, idx)
		}
	}
	return idx
}

// indexInline records the lines of values inside arrays of inline tables,
// e.g. steps = [{rate = 100, duration = "10s"}, ...].
func indexInline(p *unstable.Parser, v *unstable.Node, path string, idx lines) {
	switch v.Kind {
	case unstable.Array:
		it := v.Children()
		for i := 0; it.Next(); i++ {
			indexInline(p, it.Node(), fmt.Sprintf("%s[%d]", path, i), idx)
		}
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			kv := it.Node()
			sub := path + "." + strings.Join(keyParts(kv.Key()), ".")
			idx[sub] = line(p, kv.Key())
			indexInline(p, kv.Value(), sub, idx)
		}
	}
}

func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

func line(p *unstable.Parser, it unstable.Iterator) int {
	if !it.Next() {
		return 0
	}
	n := it.Node()
	if n.Raw.Length == 0 && n.Raw.Offset == 0 {
		return 0
	}
	return p.Shape(n.Raw).Start.Line
}

// at returns "file:line" for path, or the closest enclosing table that has
// a line, or just the file name.
func (l lines) at(file, path string) string {
	for p := path; p != ""; {
		if n, ok := l[p]; ok && n > 0 {
			return fmt.Sprintf("%s:%d", file, n)
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return file
}

// Quote writes s as a TOML string: a literal string when it can be one,
// else a basic string (JSON's escapes are TOML's).
func Quote(s string) string {
	if !strings.ContainsAny(s, "'\n\r") && !strings.ContainsFunc(s, unicode.IsControl) {
		return "'" + s + "'"
	}
	b, _ := json.Marshal(s)
	return string(b)
}
