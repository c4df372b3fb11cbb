// Command chainperf is a performance lab for CometBFT-based blockchains:
// it builds testnets of real nodes, drives load, observes every block and
// reports. This package only parses flags, wires the internal packages,
// prints and picks the exit code.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/secret"
	"github.com/chainperf/chainperf/internal/testnet/clean"
)

// cpuProfileEnv names a file to write a CPU profile of chainperf into.
const cpuProfileEnv = "CHAINPERF_CPUPROFILE"

// Exit codes: 0 pass, 1 the run failed its criteria (compare: a gated
// figure regressed), 2 bad input or error, 3 compare could not decide.
const (
	exitFail         = 1
	exitError        = 2
	exitInconclusive = 3
	// exitInterrupted: a second signal ended the process (128 + SIGINT).
	exitInterrupted = 130
)

// errFailed is returned by commands whose run completed but failed its
// criteria; main turns it into exit code 1.
var errFailed = errors.New("criteria failed")

// errInconclusive is returned by compare and bisect when the data cannot
// support a verdict; main turns it into exit code 3.
var errInconclusive = errors.New("inconclusive")

func main() {
	// The load generator allocates a little per answer; a larger heap goal
	// halves the GC work on its one core while the heap stays ~40 MiB. A
	// run that holds much (a million wallets) would grow to five times
	// that: past a soft limit the GC works harder instead (GOMEMLIMIT,
	// if set, is the user's).
	debug.SetGCPercent(400)
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	os.Exit(execute())
}

// softMemoryLimit is where chainperf's GC stops letting the heap grow to
// five times what it holds.
const softMemoryLimit = 768 << 20

// execute runs the command line and returns the exit code, with its
// defers done before main exits.
func execute() int {
	// CHAINPERF_CPUPROFILE=FILE profiles chainperf itself (not the nodes).
	// It is taken out of the environment: node processes are chainperf
	// too, and would each start a profile into the same file.
	if path := os.Getenv(cpuProfileEnv); path != "" {
		os.Unsetenv(cpuProfileEnv)
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	// SIGHUP (a closed terminal) tears down like Ctrl-C and SIGTERM. One
	// channel takes every signal from the start, so a second one that
	// comes right after the first is not lost.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go onSignals(sigs, cancel, func() {
		fmt.Fprintln(os.Stderr, "chainperf: second signal: ending now after a quick teardown (`chainperf clean` removes anything left)")
		ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
		clean.Mine(ctx)
		stop()
		os.Exit(exitInterrupted)
	})
	// Nothing chainperf prints holds a secret it was given, whichever
	// library's error quotes it.
	stdout, stderr := secret.NewWriter(os.Stdout), secret.NewWriter(os.Stderr)
	root := rootCmd()
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errFailed):
		return exitFail
	case errors.Is(err, errInconclusive):
		return exitInconclusive
	default:
		fmt.Fprintln(stderr, "chainperf:", printable.Clean(err.Error()))
		return exitError
	}
}

// onSignals cancels the command at the first signal (the orderly
// teardown follows) and calls quit at a second one: a best-effort
// teardown of this harness's testnets and an immediate exit (`chainperf
// clean` removes what that misses).
func onSignals(sigs <-chan os.Signal, cancel context.CancelFunc, quit func()) {
	<-sigs
	cancel()
	<-sigs
	quit()
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "chainperf",
		Short: "A performance lab for CometBFT-based blockchains",
		Long: `chainperf builds testnets of real CometBFT nodes on this machine, drives
transaction load at an accurate open-loop rate, follows every transaction to
its fate and every block, and reports what the chain did.

Start with 'chainperf run' (the built-in default scenario, about two
minutes), 'chainperf scenario default' to see what a scenario file holds,
and 'chainperf ab base.toml cand.toml' to ask whether a change made the
chain slower.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&dbFlag, "db", "", "results database: a SQLite file or a postgres:// URL (default: $CHAINPERF_DB, else ./chainperf.db)")
	root.AddCommand(runCmd(), runsCmd(), compareCmd(), abCmd(), trendCmd(), bisectCmd(), reportCmd(), testnetCmd(), loadCmd(), sinkCmd(), scenarioCmd(), cleanCmd(), nodeCmd(), podCmd(), harnessPodCmd(), generateCmd(), serveCmd(), workloadCmd(), versionCmd())
	root.Version = versionText()
	root.SetVersionTemplate("{{.Version}}\n")
	for _, c := range root.Commands() {
		refuseUnknown(c)
	}
	hintUsage(root)
	hintFlags(root)
	return root
}

// refuseUnknown makes a command that only groups others (runs, testnet,
// scenario) refuse a subcommand it does not have, with exit 2 and a
// suggestion: cobra would print the help and exit 0, and a CI script
// with a typo would pass.
func refuseUnknown(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknown(sub)
	}
	if !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		hint := ""
		if c.SuggestionsMinimumDistance <= 0 {
			c.SuggestionsMinimumDistance = 2 // cobra's own default, set only where it suggests
		}
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			hint = fmt.Sprintf(" (did you mean %q?)", s[0])
		}
		return fmt.Errorf("unknown command %q for %q%s; `%s --help` lists them", args[0], c.CommandPath(), hint, c.CommandPath())
	}
}
