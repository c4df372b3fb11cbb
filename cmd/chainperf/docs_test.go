package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/clidoc"
	"github.com/chainperf/chainperf/internal/scenario"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated references in docs/reference from the code")

// TestReferenceInStep: the CLI reference and the scenario reference are
// what the code makes of them now (-update-docs rewrites them).
func TestReferenceInStep(t *testing.T) {
	var cli bytes.Buffer
	if err := clidoc.Write(&cli, rootCmd()); err != nil {
		t.Fatal(err)
	}
	var def bytes.Buffer
	def.WriteString("# The default scenario\n\n")
	def.WriteString("Generated from the built-in default scenario (`chainperf scenario default` prints it; `go test\n")
	def.WriteString("./cmd/chainperf -run TestReferenceInStep -update-docs` rewrites this file). Every key a scenario\n")
	def.WriteString("can set, with its default and what it does; a file sets only what it changes. How scenarios\n")
	def.WriteString("decode and what they may name: [scenarios.md](scenarios.md).\n\n```toml\n")
	def.Write(scenario.DefaultText())
	def.WriteString("```\n")
	for path, want := range map[string][]byte{
		"../../docs/reference/cli.md":              cli.Bytes(),
		"../../docs/reference/default-scenario.md": def.Bytes(),
	} {
		if *updateDocs {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what the code makes (%v): go test ./cmd/chainperf -run TestReferenceInStep -update-docs", path, err)
		}
	}
}

// A shown is a command or scenario the docs show, where they show it;
// inline is a command named in a sentence (`chainperf compare`), not a
// line to run.
type shown struct {
	at, text string
	inline   bool
}

var inlineCommand = regexp.MustCompile("`((?:\\./)?chainperf [^`]+)`")

// docsShow reads every command line and TOML block of the README and the
// docs: fenced shell lines that start with chainperf (continuations
// joined), inline `chainperf ...` spans, and ```toml blocks.
func docsShow(t *testing.T) (commands, tomls []shown) {
	files := []string{"../../README.md", "../../CONTRIBUTING.md"}
	filepath.WalkDir("../../docs", func(p string, d os.DirEntry, err error) error {
		// The command reference is generated from the commands
		// (TestReferenceInStep) and its examples are checked there.
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, "reference/cli.md") {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(f, "../../")
		lines := strings.Split(string(data), "\n")
		fence, lang, start := false, "", 0
		var block []string
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			at := name + ":" + strconv.Itoa(i+1)
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				if !fence {
					fence, lang, start, block = true, strings.TrimPrefix(strings.TrimSpace(l), "```"), i+2, nil
				} else {
					switch lang {
					case "toml":
						tomls = append(tomls, shown{at: name + ":" + strconv.Itoa(start), text: strings.Join(block, "\n")})
					case "toml alternatives": // one scenario each, between blank lines
						from := start
						for _, alt := range strings.Split(strings.Join(block, "\n"), "\n\n") {
							tomls = append(tomls, shown{at: name + ":" + strconv.Itoa(from), text: alt})
							from += strings.Count(alt, "\n") + 2
						}
					}
					fence = false
				}
				continue
			}
			if fence {
				block = append(block, l)
				if lang != "" && lang != "sh" && lang != "bash" && lang != "console" && lang != "shell" {
					continue
				}
				cmd := strings.TrimPrefix(strings.TrimSpace(l), "$ ")
				for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
					i++
					cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[i])
				}
				cmd = strings.TrimPrefix(cmd, "./")
				if strings.HasPrefix(cmd, "chainperf ") {
					commands = append(commands, shown{at: at, text: cmd})
				}
				continue
			}
			for _, m := range inlineCommand.FindAllStringSubmatch(l, -1) {
				commands = append(commands, shown{at: at, text: strings.TrimPrefix(m[1], "./"), inline: true})
			}
		}
	}
	return commands, tomls
}

// TestDocsShowWhatRuns: every chainperf command the README and the docs
// show names a command, flags it has and arguments it takes; every
// scenario file it names parses; every TOML block the docs show is a
// scenario that parses (unknown keys are errors, as in a user's file).
func TestDocsShowWhatRuns(t *testing.T) {
	commands, tomls := docsShow(t)
	if len(commands) < 50 || len(tomls) < 5 {
		t.Fatalf("read %d commands and %d TOML blocks from the docs: the reader is broken", len(commands), len(tomls))
	}
	for _, c := range commands {
		// A synopsis's [optional] parts are shown as given; "..." is
		// the reader's to fill in; the command ends where the shell
		// takes over.
		var words []string
		for _, w := range splitWords(strings.NewReplacer("[", "", "]", "").Replace(c.text)) {
			if w == "|" || w == "&&" || w == ";" || w == ">" || w == "2>&1" || strings.HasPrefix(w, "#") || strings.HasPrefix(w, ">") {
				break
			}
			if w != "..." {
				words = append(words, w)
			}
		}
		root := rootCmd()
		found, rest, err := root.Find(words[1:])
		if err != nil || (found == root && len(rest) > 0 && !strings.HasPrefix(rest[0], "-")) {
			t.Errorf("%s: %q names no command (%v)", c.at, c.text, err)
			continue
		}
		found.InitDefaultHelpFlag()
		if c.inline { // a command named in a sentence: its flags exist
			for _, w := range rest {
				if name, ok := strings.CutPrefix(w, "--"); ok && found.Flags().Lookup(strings.SplitN(name, "=", 2)[0]) == nil {
					t.Errorf("%s: %q: %s has no flag --%s", c.at, c.text, found.CommandPath(), name)
				}
			}
			continue
		}
		if err := found.ParseFlags(rest); err != nil {
			t.Errorf("%s: %q: %v", c.at, c.text, err)
			continue
		}
		if found.Args != nil {
			if err := found.Args(found, found.Flags().Args()); err != nil {
				t.Errorf("%s: %q: %v", c.at, c.text, err)
			}
		}
		for _, a := range found.Flags().Args() {
			if !strings.HasSuffix(a, ".toml") {
				continue
			}
			path := filepath.Join("../..", a)
			if _, err := os.Stat(path); err != nil {
				if strings.HasPrefix(a, "examples/") {
					t.Errorf("%s: %q names %s, which is not there", c.at, c.text, a)
				}
				continue // the reader's own file
			}
			if _, err := scenario.Open(path); err != nil {
				t.Errorf("%s: %q: %v", c.at, c.text, err)
			}
		}
	}
	for _, b := range tomls {
		// A path on the reader's machine (a source tree, a binary) is
		// theirs; every other error is the docs'.
		if _, err := scenario.Parse(b.at, []byte(b.text)); err != nil && !strings.Contains(err.Error(), "not a directory") &&
			!strings.Contains(err.Error(), "no such file") {
			t.Errorf("%s: the TOML shown does not parse as a scenario: %v", b.at, err)
		}
	}
}
