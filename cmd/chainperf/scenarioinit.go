package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/build"
	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/scenario"
)

func scenarioInitCmd() *cobra.Command {
	var src chain.AppSource
	force := false
	cmd := &cobra.Command{
		Use:   "init FILE",
		Short: "Write a scenario for your chain's binary, released version or source tree, checked",
		Long: `init asks a Cosmos SDK application what it is and writes a scenario that
runs it: the chain kind (a Cosmos EVM application runs as one, any other SDK
application as a Cosmos SDK chain), its staking denom and address prefix (from its
own init and keys, in a home of their own, removed after), and that kind's
send workload on 4 validators + 1 full node. A "module:PKG@VERSION" binary or
a source tree (--dir, --ref, --package) is built first (cached, as a run
builds it). The file is checked as ` + "`chainperf scenario check`" + ` checks it before it is
written; an existing file is kept unless --force.`,
		Example: `  chainperf scenario init mychain.toml --binary ./appd && chainperf run mychain.toml
  chainperf scenario init wasmd.toml --binary module:github.com/CosmWasm/wasmd/cmd/wasmd@v0.70.3
  chainperf scenario init mine.toml --dir ../appd --ref my-fix --package ./cmd/appd`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := args[0]
			if (src.Binary == "") == (src.Dir == "") {
				return errors.New("give the chain as --binary (a path or module:PKG@VERSION) or as --dir with --ref and --package (a git tree), one of the two")
			}
			if src.Dir != "" && (src.Ref == "" || src.Package == "") {
				return errors.New("--dir needs --ref (a branch, tag or commit) and --package (the main package, ./cmd/appd)")
			}
			// Paths absolute: the file is run from anywhere.
			for _, p := range []*string{&src.Binary, &src.Dir} {
				if *p != "" && !strings.HasPrefix(*p, build.ModulePrefix) {
					abs, err := filepath.Abs(*p)
					if err != nil {
						return err
					}
					*p = abs
				}
			}
			if _, err := os.Lstat(file); err == nil && !force {
				return fmt.Errorf("%s exists: give another name, or --force to replace it", file)
			}
			out := cmd.OutOrStdout()
			binary, err := appBinary(cmd, src, func(p string) { fmt.Fprintln(out, p) })
			if err != nil {
				return err
			}
			in, err := chain.InitScenario(cmd.Context(), binary, src, file)
			if err != nil {
				return err
			}
			if err := writeChecked(cmd, file, in.Text); err != nil {
				return err
			}
			// What the binary said of itself is input: escaped.
			fmt.Fprintf(out, "wrote %s: %s, chain %q, denom %s, addresses %s1...; it passes `chainperf scenario check`\n  chainperf run %s\n",
				file, printable.Clean(in.About), in.Kind, printable.Clean(in.Denom), printable.Clean(in.Prefix), file)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&src.Binary, "binary", "", `the chain's binary: a path, or "module:PKG@VERSION" to build a release`)
	f.StringVar(&src.Dir, "dir", "", "a git tree to build the chain from (with --ref and --package)")
	f.StringVar(&src.Ref, "ref", "", "the branch, tag or commit of --dir to build")
	f.StringVar(&src.Package, "package", "", "the main package in --dir, relative to its root (./cmd/appd)")
	f.BoolVar(&force, "force", false, "replace FILE if it exists")
	return cmd
}

// appBinary is the file src names, built first (or found in the cache)
// when it is a release or a tree: the builds a run of the scenario makes.
func appBinary(cmd *cobra.Command, src chain.AppSource, phase func(string)) (string, error) {
	if src.Binary != "" && !strings.HasPrefix(src.Binary, build.ModulePrefix) {
		if _, err := os.Stat(src.Binary); err != nil {
			return "", fmt.Errorf("--binary: %w", err)
		}
	}
	s, err := scenario.Parse("the command line", chain.BuildProbe(src))
	if err != nil {
		return "", err
	}
	spec, _, err := experiment.ResolveNode(cmd.Context(), s, phase)
	if err != nil {
		return "", err
	}
	ref, _ := spec.Testnet.Application()
	return *ref.Binary, nil
}

// writeChecked writes text to file if it passes the checks `scenario
// check` makes: through a temporary file beside it, renamed once checked.
func writeChecked(cmd *cobra.Command, file string, text []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".chainperf-init-*.toml")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(text); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	s, err := resolveScenario(tmp.Name())
	if err == nil {
		_, err = chain.CheckSettings(cmd.Context(), s, false, nil)
	}
	if err != nil {
		return fmt.Errorf("the scenario written for this chain does not pass its check (a chainperf bug: please report it with the binary's `version --long`): %w", err)
	}
	return os.Rename(tmp.Name(), file)
}
