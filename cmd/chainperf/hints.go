package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chainperf/chainperf/internal/suggest"
)

// hintFlags makes a flag error name the flag the user likely meant and
// where the flags are listed: pflag says only "unknown flag: --rat".
// Set on the root, it is every command's (cobra asks the parents).
func hintFlags(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		msg := err.Error()
		name, unknown := strings.CutPrefix(msg, "unknown flag: --")
		if !unknown {
			return fmt.Errorf("%s; `%s --help` lists the flags", msg, c.CommandPath())
		}
		var names []string
		visit := func(f *pflag.Flag) { names = append(names, f.Name) }
		c.LocalFlags().VisitAll(visit)
		c.InheritedFlags().VisitAll(visit)
		hint := ""
		if s := suggest.Closest(name, names); s != "" {
			hint = fmt.Sprintf(" (did you mean --%s?)", s)
		}
		return fmt.Errorf("%s%s; `%s --help` lists the flags", msg, hint, c.CommandPath())
	})
}

// hintUsage makes a command given the wrong arguments say its usage line:
// cobra says only "accepts 1 arg(s), received 0".
func hintUsage(c *cobra.Command) {
	for _, sub := range c.Commands() {
		hintUsage(sub)
	}
	args := c.Args
	if args == nil {
		return
	}
	c.Args = func(c *cobra.Command, a []string) error {
		if err := args(c, a); err != nil {
			return fmt.Errorf("%s: %w; usage: %s", c.CommandPath(), err, c.UseLine())
		}
		return nil
	}
}

// count says n things with the noun's plural when n is not 1: count(1,
// "full node", "full nodes").
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
