package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/examples"
	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/latency"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/suggest"
)

func scenarioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "Check scenario files and print the built-in default and the examples",
	}
	cmd.AddCommand(scenarioInitCmd(), &cobra.Command{
		Use:     "check FILE",
		Short:   "Check a scenario file: every error with its file:line",
		Example: `  chainperf scenario check examples/find-max.toml`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := resolveScenario(args[0])
			if err != nil {
				return err
			}
			scale := ""
			if parts := s.Testnet.ScaleProfileParts(); len(parts) > 0 && s.Testnet.Provider != scenario.ProviderExternal {
				scale = "; scale profile " + strings.Join(parts, ",")
			}
			settings, err := chain.CheckSettings(cmd.Context(), s, false, nil)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok; will run %s%s\n", args[0], describePlan(s), scale)
			if settings != "" {
				fmt.Fprintln(cmd.OutOrStdout(), settings)
			}
			return nil
		},
	}, &cobra.Command{
		Use:   "build FILE",
		Short: "Build (or find in the cache) the node or chain application a scenario names, and check its settings",
		Long: `build makes the binary a scenario runs before any run needs it: a CometBFT
node from [testnet.build] or a release (testnet.binary = "module:..."), or a
Cosmos SDK / EVM application from testnet.cosmos.binary = "module:PKG@VERSION"
or [testnet.cosmos.build] (likewise for evm), with its [testnet.cosmos.replace]
dependencies, in its own module with the Go toolchain its go.mod asks for.
Builds are cached by version or commit; it prints what was built and where,
then checks [testnet.genesis] and [testnet.app] against the files the
chain's own init writes.`,
		Example: `  chainperf scenario build examples/wasmd-sdk053.toml`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := scenario.Open(args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			phase := func(p string) { fmt.Fprintln(out, p) }
			spec, bin, err := experiment.ResolveNode(cmd.Context(), s, phase)
			if err != nil {
				return err
			}
			if bin == nil {
				fmt.Fprintf(out, "%s builds nothing: its node is %s\n", args[0], describeNode(spec))
			} else {
				fmt.Fprintf(out, "built: %s\n", bin.Describe)
			}
			settings, err := chain.CheckSettings(cmd.Context(), spec, true, phase)
			if err != nil {
				return err
			}
			if settings != "" {
				fmt.Fprintln(out, settings)
			}
			return nil
		},
	}, &cobra.Command{
		Use:   "zones",
		Short: "Print the built-in zone table: one-way delays in ms between 13 regions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t := latency.Builtin()
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 1, ' ', tabwriter.AlignRight)
			fmt.Fprintf(w, "from \\ to\t%s\t\n", strings.Join(t.Zones, "\t"))
			for i, z := range t.Zones {
				row := []string{z}
				for _, d := range t.Delay[i] {
					row = append(row, fmt.Sprint(d.Milliseconds()))
				}
				fmt.Fprintf(w, "%s\t\n", strings.Join(row, "\t"))
			}
			return w.Flush()
		},
	}, &cobra.Command{
		Use:   "default",
		Short: "Print the built-in default scenario (every default, commented)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(scenario.DefaultText())
			return err
		},
	}, &cobra.Command{
		Use:   "examples",
		Short: "List the example scenarios built into chainperf",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, e := range examples.All() {
				fmt.Fprintf(w, "%s\t%s\n", e.Name, e.About)
			}
			fmt.Fprintln(w, "\n`chainperf scenario example NAME > NAME.toml` writes one out.")
			return w.Flush()
		},
	}, &cobra.Command{
		Use:     "example NAME",
		Short:   "Print one of the example scenarios built into chainperf",
		Example: `  chainperf scenario example find-max > find-max.toml && chainperf run find-max.toml`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var names []string
			for _, e := range examples.All() {
				if e.Name == strings.TrimSuffix(args[0], ".toml") {
					_, err := cmd.OutOrStdout().Write(e.Text)
					return err
				}
				names = append(names, e.Name)
			}
			hint := ""
			if s := suggest.Closest(args[0], names); s != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", s)
			}
			return fmt.Errorf("no example %q%s; `chainperf scenario examples` lists them", args[0], hint)
		},
	})
	return cmd
}

// describeNode says which node binary a scenario that builds nothing runs.
func describeNode(s *scenario.Scenario) string {
	t := s.Testnet
	switch app, isApp := t.Application(); {
	case isApp && *app.Binary != "":
		return *app.Binary
	case isApp:
		return fmt.Sprintf("%s (%s)", app.TestChainIs, app.TestChain)
	case t.Binary != "":
		return t.Binary
	}
	return "the CometBFT node built into chainperf"
}
