package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/clean"
	"github.com/chainperf/chainperf/internal/testnet/live"
	"github.com/chainperf/chainperf/internal/testnet/process"
)

func testnetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testnet",
		Short: "Bring a local testnet of real CometBFT nodes up, inspect it, take it down",
	}
	cmd.AddCommand(testnetUpCmd(), testnetStatusCmd(), testnetDownCmd(), testnetWatchCmd(), testnetFunderKeyCmd())
	return cmd
}

func testnetUpCmd() *cobra.Command {
	var file, dir, backend string
	var detach, dryRun bool
	cmd := &cobra.Command{
		Use:   "up [-f scenario.toml] [--dir D] [--detach | --dry-run]",
		Short: "Start the scenario's testnet; Ctrl-C takes it down",
		Example: `  chainperf testnet up -f examples/partition.toml --detach --dir ./net
  chainperf testnet up --dry-run`,
		Long: `up starts the testnet of a scenario (the built-in default without -f) and
follows block heights until Ctrl-C, then takes every node down. With
--detach it returns once the nodes make blocks and leaves them running;
'chainperf testnet down --dir D' ends them. With --dry-run (provider
"kubernetes") the cluster's API server checks every object the testnet
would make (pods, ConfigMaps, Secrets, the generators' Job) and keeps none.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if detach && dir == "" {
				return fmt.Errorf("--detach needs --dir: the dir is how status and down find the testnet")
			}
			sc, err := resolveScenario(file, backendEdit(backend))
			if err != nil {
				return err
			}
			if dryRun && sc.Testnet.Provider != scenario.ProviderKubernetes {
				return fmt.Errorf("--dry-run has a cluster check the testnet's objects: it needs provider %q", scenario.ProviderKubernetes)
			}
			table, err := sc.LatencyTable()
			if err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			out := cmd.OutOrStdout()
			start := time.Now()
			sc, bin, err := experiment.ResolveNode(ctx, sc, func(p string) { fmt.Fprintln(out, p) })
			if err != nil {
				return err
			}
			if bin != nil {
				fmt.Fprintf(out, "node: %s\n", bin.Describe)
			}
			if sc.IBC.Counterparty != "" {
				fmt.Fprintf(out, "ibc: only this testnet starts here; its counterparty (%s) and the relayer start with `chainperf run`\n", sc.IBC.Counterparty)
			}
			adapter, err := chain.New(ctx, sc, nil)
			if err != nil {
				return err
			}
			net, err := live.Up(ctx, sc.Testnet, live.UpOptions{Dir: dir, Detach: detach, Exe: exe, Table: table, Chain: adapter, DryRun: dryRun})
			if err != nil {
				return err
			}
			down := func() { net.Down(context.WithoutCancel(ctx)) }
			if dryRun {
				defer down()
				return dryRunGenerators(ctx, out, net, sc.Load.Generators)
			}
			printNodes(out, net.Testnet, nil)
			if w := net.WAN(); w != nil {
				fmt.Fprintf(out, "emulated WAN: %s delays (%s backend), zones %v\n", w.Table, w.Backend, w.Zones)
			}
			fmt.Fprintf(out, "testnet %s in %s, logs in %s\n", net.Testnet.ID, net.Testnet.Dir, net.Testnet.LogDir())
			if err := net.WaitHeight(ctx, 1, net.StartStall()); err != nil {
				down()
				return err
			}
			fmt.Fprintf(out, "height 1 on every node after %.1fs\n", time.Since(start).Seconds())
			if detach {
				fmt.Fprintf(out, "detached: `chainperf testnet status --dir %s`, `chainperf testnet down --dir %s`\n", dir, dir)
				return nil
			}
			defer down()
			fmt.Fprintln(out, "following heights; Ctrl-C takes the testnet down")
			return follow(ctx, out, net)
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "scenario file (default: the built-in default scenario)")
	cmd.Flags().StringVar(&dir, "dir", "", "testnet dir for homes, logs and state (default: a temp dir removed at the end)")
	cmd.Flags().BoolVar(&detach, "detach", false, "leave the testnet running and return")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "have the cluster check every object and keep none (provider kubernetes)")
	cmd.Flags().StringVar(&backend, "netem-backend", "", `force the emulated WAN's delay backend: "tc" or "nfqueue"`)
	return cmd
}

// dryRunGenerators has the cluster check the generators' Job too (when
// the load is spread) and says what was checked.
func dryRunGenerators(ctx context.Context, out io.Writer, net *live.Net, generators int) error {
	if sp, ok := net.Provider.(testnet.LoadSpreader); ok && generators > 1 {
		if _, err := sp.RunGenerators(ctx, make([][]byte, generators), nil); err != nil {
			return err
		}
	}
	checked := 0
	if c, ok := net.Provider.(interface{ DryRunChecked() int }); ok {
		checked = c.DryRunChecked()
	}
	fmt.Fprintf(out, "dry run: the cluster's API server accepted all %d objects of testnet %s (%d nodes, %d generators); none was kept\n",
		checked, net.Testnet.ID, len(net.Testnet.Standing()), max(generators, 1))
	return nil
}

// follow prints the nodes' heights every 2 s until ctx ends or a node exits.
func follow(ctx context.Context, out io.Writer, net *live.Net) error {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(out, "taking the testnet down")
			return nil
		case <-tick.C:
		}
		for _, n := range net.Testnet.Nodes {
			if err, exited := net.Provider.Exited(n); exited {
				return fmt.Errorf("%s exited (%v); see %s/%s.log", n.Name, err, net.Testnet.LogDir(), n.Name)
			}
		}
		h := net.Heights(ctx, net.Testnet.Nodes)
		parts := make([]string, 0, len(h))
		for _, n := range net.Testnet.Nodes {
			parts = append(parts, fmt.Sprintf("%s=%d", n.Name, h[n.Name]))
		}
		fmt.Fprintf(out, "%s heights %s\n", results.Clock(time.Now()), strings.Join(parts, " "))
	}
}

func printNodes(out io.Writer, t *testnet.Testnet, heights map[string]int64) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprint(w, "NODE\tROLE\tPID\tRPC\tMETRICS\tPPROF")
	if heights != nil {
		fmt.Fprint(w, "\tSTATE\tHEIGHT")
	}
	fmt.Fprintln(w)
	for _, n := range t.Nodes {
		e := n.Endpoint()
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s", n.Name, n.Role, n.PID, e.RPC, e.Metrics, e.Pprof)
		if heights != nil {
			state := "stopped"
			if process.Alive(n.PID, n.Start) {
				state = "running"
			}
			fmt.Fprintf(w, "\t%s\t%d", state, heights[n.Name])
		}
		fmt.Fprintln(w)
	}
	w.Flush()
}

func testnetStatusCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:     "status --dir D",
		Short:   "Show the nodes of the testnet in D: processes, URLs, heights",
		Example: `  chainperf testnet status --dir ./net`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := testnet.ReadState(dir)
			if err != nil {
				return err
			}
			owner := "detached"
			if !st.Detached {
				owner = fmt.Sprintf("owned by harness pid %d", st.HarnessPID)
				if !process.HarnessAlive(st) {
					owner += " (gone: run `chainperf clean`)"
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "testnet %s, chain %s, %s, created %s\n", st.ID, st.ChainID, owner, st.Created.Format(time.RFC3339))
			printNodes(cmd.OutOrStdout(), st.Testnet, live.Heights(cmd.Context(), st.Testnet.Nodes, (*testnet.Node).Endpoint))
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "testnet dir")
	_ = cmd.MarkFlagRequired("dir")
	return cmd
}

func testnetDownCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:     "down --dir D",
		Short:   "End every node of the testnet in D and remove its homes and state",
		Example: `  chainperf testnet down --dir ./net`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clean.Down(cmd.Context(), dir); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "testnet in %s is down\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "testnet dir")
	_ = cmd.MarkFlagRequired("dir")
	return cmd
}

func testnetWatchCmd() *cobra.Command {
	var dir, file string
	var duration time.Duration
	cmd := &cobra.Command{
		Use:     "watch --dir D [--duration 60s]",
		Short:   "Run the observers alone on the testnet in D and print what they cost",
		Example: `  chainperf testnet watch --dir ./net --duration 60s`,
		Long: `watch runs what watches every run (block follower over every node,
Prometheus scraper, /proc sampler, all written to the results database) on
a running testnet for a while, without load of its own, and prints the CPU
share of one core and the memory chainperf used for it: the observers'
overhead. Drive load from another process ('chainperf load') meanwhile.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, err := scenario.Open(file)
			if err != nil {
				return err
			}
			ts, err := testnet.ReadState(dir)
			if err != nil {
				return err
			}
			st, err := openStore(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			r, err := experiment.Watch(cmd.Context(), ts.Testnet, sc.Observe, st, duration)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "watched %d nodes for %s: %d blocks, %d samples; chainperf used %.2f CPU-s = %.2f %% of one core, RSS %.0f MiB\n",
				r.Nodes, r.Wall.Round(time.Second), r.Blocks, r.Samples, r.CPU, 100*r.CPU/r.Wall.Seconds(), r.RSS/(1<<20))
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "testnet dir")
	cmd.Flags().StringVarP(&file, "file", "f", "", "scenario whose [observe] section to use (default: the built-in default)")
	cmd.Flags().DurationVar(&duration, "duration", time.Minute, "how long to watch")
	_ = cmd.MarkFlagRequired("dir")
	return cmd
}

func testnetFunderKeyCmd() *cobra.Command {
	var file, out string
	cmd := &cobra.Command{
		Use:     "funder-key [-f scenario.toml] --out FILE",
		Short:   "Write the key of an EVM testnet's genesis wallet 0 to a new file, to fund runs on it as an external network",
		Example: `  chainperf testnet funder-key -f local-evm.toml --out ./funder.key`,
		Long: `funder-key writes the private key of wallet 0 of the scenario's EVM
testnet (derived from testnet.evm.seed, funded in its genesis) to FILE, a
new file only its owner can read, and prints the wallet's address, never
the key. A detached testnet of that scenario is then an external EVM
network whose runs that key funds: testnet.evm.funder_key_file = FILE
(examples/external-evm.toml).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, err := resolveScenario(file)
			if err != nil {
				return err
			}
			addr, seed, err := chain.WriteFunderKey(sc.Testnet, out)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "the key of %s (genesis wallet 0 of seed %q) is in %s\n", addr, seed, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "scenario TOML the testnet was brought up with (default: built-in)")
	cmd.Flags().StringVar(&out, "out", "", "the new file the key is written to")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
