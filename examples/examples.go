// Package examples holds scenario files a user can copy, embedded in the
// binary (chainperf scenario examples, chainperf scenario example NAME);
// its test keeps every one of them valid.
package examples

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.toml
var files embed.FS

// An Example is one scenario file: its name (without .toml), what its
// first comment line says, and its text.
type Example struct {
	Name, About string
	Text        []byte
}

// All returns every example, by name.
func All() []Example {
	names, _ := fs.Glob(files, "*.toml")
	sort.Strings(names)
	out := make([]Example, 0, len(names))
	for _, n := range names {
		text, _ := files.ReadFile(n)
		about, _, _ := strings.Cut(string(text), "\n")
		out = append(out, Example{Name: strings.TrimSuffix(n, ".toml"), About: strings.TrimSpace(strings.TrimPrefix(about, "#")), Text: text})
	}
	return out
}
