// Package clidoc writes the CLI reference (docs/reference/cli.md) from the
// commands themselves, so that it cannot drift from what the binary takes.
package clidoc

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Write writes every visible command under root, depth first in the
// order --help lists them: its one-line summary, usage, description,
// examples and flags.
func Write(w io.Writer, root *cobra.Command) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# Command reference\n\n")
	fmt.Fprintf(b, "Generated from the commands (`go test ./cmd/chainperf -run TestReferenceInStep -update-docs`);\n")
	fmt.Fprintf(b, "`chainperf COMMAND --help` prints the same. Exit codes: 0 passed, 1 failed its criteria\n")
	fmt.Fprintf(b, "(compare: a gated figure regressed), 2 bad input or an error, 3 compare or bisect could not\n")
	fmt.Fprintf(b, "decide, 130 a second Ctrl-C.\n")
	fmt.Fprintf(b, "\n## Global flags\n\n```\n%s```\n", root.PersistentFlags().FlagUsages())
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c != root && shown(c) {
			command(b, c)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	_, err := io.WriteString(w, b.String())
	return err
}

// shown says whether a command belongs in the reference: not hidden,
// not cobra's own help and completion.
func shown(c *cobra.Command) bool {
	return !c.Hidden && c.Name() != "help" && c.Name() != "completion" && (c.Runnable() || c.HasAvailableSubCommands())
}

func command(b *strings.Builder, c *cobra.Command) {
	fmt.Fprintf(b, "\n## %s\n\n%s\n", c.CommandPath(), strings.TrimSpace(c.Short))
	if c.Runnable() {
		fmt.Fprintf(b, "\n```\n%s\n```\n", c.UseLine())
	}
	if long := strings.TrimSpace(c.Long); long != "" && long != strings.TrimSpace(c.Short) {
		fmt.Fprintf(b, "\n%s\n", long)
	}
	if ex := strings.TrimRight(c.Example, " \n"); ex != "" {
		fmt.Fprintf(b, "\nExamples:\n\n```\n%s\n```\n", trimIndent(ex))
	}
	if f := c.LocalNonPersistentFlags(); f.HasAvailableFlags() {
		fmt.Fprintf(b, "\nFlags:\n\n```\n%s```\n", f.FlagUsages())
	}
	var subs []string
	for _, s := range c.Commands() {
		if shown(s) {
			subs = append(subs, fmt.Sprintf("`%s`", s.Name()))
		}
	}
	if len(subs) > 0 {
		fmt.Fprintf(b, "\nCommands: %s.\n", strings.Join(subs, ", "))
	}
}

// trimIndent takes off the indent every line of an example shares.
func trimIndent(s string) string {
	lines := strings.Split(s, "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		}
	}
	return strings.Join(lines, "\n")
}
