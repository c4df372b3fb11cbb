package main

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandShowsAnExample: every command that takes arguments or
// flags of its own has examples in its --help, and every example names
// that command and only flags it has (a renamed flag breaks this test,
// not a user's first try).
func TestEveryCommandShowsAnExample(t *testing.T) {
	root := rootCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Hidden || !c.Runnable() || c == root || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		if strings.TrimSpace(c.Example) == "" {
			if strings.Contains(c.Use, " ") {
				t.Errorf("%s (%s) has no example", c.CommandPath(), c.Use)
			}
			return
		}
		for _, line := range strings.Split(c.Example, "\n") {
			if i := strings.Index(line, "  #"); i >= 0 {
				line = line[:i]
			}
			words := splitWords(strings.TrimSpace(line))
			if len(words) == 0 || words[0] != "chainperf" {
				t.Errorf("%s: example %q does not start with chainperf", c.CommandPath(), line)
				continue
			}
			found, rest, err := root.Find(words[1:])
			if err != nil || found != c {
				t.Errorf("%s: example %q runs %v (%v)", c.CommandPath(), line, found.CommandPath(), err)
				continue
			}
			found.InitDefaultHelpFlag()
			if err := found.ParseFlags(rest); err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
			}
		}
	}
	walk(root)
}

// splitWords splits a shell line on spaces, keeping "quoted words" whole.
func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, any := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, any = !quoted, true
		case r == ' ' && !quoted:
			if any {
				out = append(out, cur.String())
				cur.Reset()
				any = false
			}
		default:
			cur.WriteRune(r)
			any = true
		}
	}
	if any {
		out = append(out, cur.String())
	}
	return out
}

// TestMistakesGetHints: a mistyped flag is answered with the flag it
// likely meant, a missing argument with the command's usage line, a
// wrong subcommand with the nearest one; each is an error (exit 2).
func TestMistakesGetHints(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--rat", "5"}, "unknown flag: --rat (did you mean --rate?); `chainperf run --help` lists the flags"},
		{[]string{"runs", "show", "x", "--summry"}, "(did you mean --summary?)"},
		{[]string{"runs", "list", "--dbb", "x"}, "(did you mean --db?)"}, // a flag of the root's
		{[]string{"run", "--nothing-like-any-flag"}, "unknown flag: --nothing-like-any-flag; `chainperf run --help`"},
		{[]string{"run", "--rate"}, "flag needs an argument: --rate; `chainperf run --help` lists the flags"},
		{[]string{"report"}, "chainperf report: accepts 1 arg(s), received 0; usage: chainperf report RUN [--report-dir D]"},
		{[]string{"compare", "a"}, "usage: chainperf compare"},
		{[]string{"runs", "shw"}, `unknown command "shw" for "chainperf runs" (did you mean "show"?)`},
	} {
		root := rootCmd()
		root.SetArgs(c.args)
		root.SetOut(io.Discard)
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("chainperf %s: %v; want an error saying %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}
