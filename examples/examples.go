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

// An Example is one scenario file: its name (without .toml), the first
// sentence of its opening comment, and its text.
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
		out = append(out, Example{Name: strings.TrimSuffix(n, ".toml"), About: firstSentence(string(text)), Text: text})
	}
	return out
}

// firstSentence is the opening comment's first sentence, whole: the
// comment's lines joined up to the first ". " or its end (a command line
// such as "#   chainperf run ..." or a blank "#" ends the comment).
func firstSentence(text string) string {
	var words []string
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "#")
		rest = strings.TrimSpace(rest)
		if !ok || rest == "" || strings.HasPrefix(rest, "chainperf ") {
			break
		}
		words = append(words, strings.Fields(rest)...)
	}
	for i, w := range words {
		if strings.HasSuffix(w, ".") && i+1 < len(words) {
			return strings.Join(words[:i+1], " ")
		}
	}
	return strings.Join(words, " ")
}
