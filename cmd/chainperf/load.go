package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/listen"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet/external"
)

// loadFlags are the flags that override a scenario's [load] and [workload].
type loadFlags struct {
	model, method           string
	rate, from, to          float64
	connections, batch, inf int
	txSize                  int
	duration, sendEvery     time.Duration
	txs                     string
}

func (f *loadFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "rate model: "+strings.Join(scenario.RateModels, ", ")+" (default: the scenario's)")
	fs.Float64Var(&f.rate, "rate", 0, "tx/s in total (constant) or per connection (connections)")
	fs.IntVar(&f.connections, "connections", 0, "connections for the connections model")
	fs.Float64Var(&f.from, "from", 0, "ramp start rate, tx/s")
	fs.Float64Var(&f.to, "to", 0, "ramp end rate, tx/s")
	fs.DurationVar(&f.duration, "duration", 0, "load length, e.g. 30s")
	fs.DurationVar(&f.sendEvery, "send-every", 0, "send the schedule in bursts: at the start of each period the txs due during it, e.g. 1s as CometBFT's loadtime (default: every tx at its own time)")
	fs.StringVar(&f.method, "method", "", "broadcast method: sync, async, commit")
	fs.IntVar(&f.batch, "batch", 0, "txs per JSON-RPC batch request")
	fs.IntVar(&f.inf, "max-in-flight", 0, "requests outstanding at most")
	fs.IntVar(&f.txSize, "tx-size", 0, "bytes per tx")
	fs.StringVar(&f.txs, "txs", "", "replay the txs of this file, in order: one hex or base64 tx a line (CometBFT loadtime txs are stamped again when sent)")
}

// apply sets the flags the user gave on s (resolveScenario checks the
// result).
func (f *loadFlags) apply(fs *pflag.FlagSet, s *scenario.Scenario) error {
	changed := false
	set := func(name string, fn func()) {
		if fs.Changed(name) {
			fn()
			changed = true
		}
	}
	set("model", func() { s.Load.Model = f.model })
	set("rate", func() { s.Load.Rate = f.rate })
	set("connections", func() { s.Load.Connections = f.connections })
	set("from", func() { s.Load.From = f.from })
	set("to", func() { s.Load.To = f.to })
	set("duration", func() { s.Load.Duration = scenario.Duration(f.duration) })
	set("send-every", func() { s.Load.SendEvery = scenario.Duration(f.sendEvery) })
	set("method", func() { s.Load.Method = f.method })
	set("batch", func() { s.Load.Batch = f.batch })
	set("max-in-flight", func() { s.Load.MaxInFlight = f.inf })
	set("tx-size", func() { s.Workload.TxSize = f.txSize })
	set("txs", func() { s.Workload.Kind, s.Workload.ReplayFile = "replay", f.txs })
	if !changed {
		return nil
	}
	s.File = "command line"
	if s.Experiment.Warmup.D()+s.Experiment.Cooldown.D() >= s.Load.Length() {
		// Short command-line loads measure the whole phase.
		s.Experiment.Warmup, s.Experiment.Cooldown = 0, 0
	}
	return nil
}

func loadCmd() *cobra.Command {
	var file, jsonOut, reportDir, metricsAddr string
	var rpcs, labels []string
	var noFollow, noStore, mine, remote bool
	var drain time.Duration
	var lf loadFlags
	cmd := &cobra.Command{
		Use:   "load --rpc URL [--rpc URL...] [-f scenario.toml] [flags]",
		Short: "Drive load at an existing network (ours or anyone's), follow every tx, store the run",
		Example: `  chainperf load --rpc http://127.0.0.1:26657 --rate 200 --duration 30s
  chainperf load --rpc http://10.0.0.5:26657 --target-is-mine -f cosmos-send.toml`,
		Long: `load sends txs to the given CometBFT RPC nodes at the rate the model asks
for, open loop: a slow node never slows the schedule, and latency counts from
each tx's intended send time. The block follower reads every block from the
same nodes and gives every tx its fate: committed, committed_failed,
rejected, send_error or unresolved. Load shape and workload come from the
scenario (-f, or the built-in default) and the flags override them; the
nodes are reached as an external network (nothing is started or stopped).
The run is stored and reported like one of 'chainperf run' unless --no-store.
A node outside this machine needs --target-is-mine.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := loadScenario(cmd, file, rpcs, &lf, mine)
			if err != nil {
				return err
			}
			lbl, err := parseLabels(labels)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if st, err := external.ReadStatus(cmd.Context(), rpcs[0]); err == nil && st.Moniker == load.SinkMoniker {
				lbl["target"] = "sink" // stored, and marked: a sink makes no block to follow
				noFollow = true
			}
			o := experiment.RunOptions{Labels: lbl, NoFollow: noFollow}
			if !noStore {
				if reportDir == "" {
					reportDir = s.Report.Dir
				}
				if err := checkWritable(reportDir); err != nil {
					return err
				}
				store, err := openStore(cmd.Context())
				if err != nil {
					return err
				}
				defer store.Close()
				o.Store, o.ReportDir = store, reportDir
			}
			fmt.Fprintf(out, "load: %s, %s to %s\n", describeModel(s), s.Load.Method, scenario.Redact(strings.Join(rpcs, ", ")))
			live := newLiveView(out)
			progress, stopMetrics, err := serveLiveMetrics(cmd, metricsAddr, remote, live)
			if err != nil {
				return err
			}
			defer stopMetrics()
			o.Progress = progress
			o.Phase = func(p string) { live.End() }
			r, runErr := experiment.Run(cmd.Context(), s, o)
			live.End()
			if len(r.Phases) > 0 {
				printDrive(out, r.Phases[len(r.Phases)-1])
				if jsonOut != "" {
					if werr := writeJSON(jsonOut, r.Phases[len(r.Phases)-1]); werr != nil {
						return werr
					}
				}
			}
			if o.Store == nil {
				fmt.Fprintf(out, "run %s: not stored (--no-store)\n", r.ID)
				return runErr
			}
			return reportRun(cmd.Context(), out, o.Store, r, runErr)
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "scenario file for [load] and [workload] (default: built-in)")
	cmd.Flags().StringSliceVar(&rpcs, "rpc", nil, "RPC URL of a node to send to (repeat for several; round-robin)")
	cmd.Flags().BoolVar(&noFollow, "no-follow", false, "do not read blocks (for a sink, or nodes you cannot query)")
	cmd.Flags().DurationVar(&drain, "drain", 0, "wait at most this long after the load for accepted txs to land (default: the scenario's)")
	cmd.Flags().StringVar(&jsonOut, "json", "", "also write the phase's result as JSON to this file")
	cmd.Flags().BoolVar(&noStore, "no-store", false, "do not store the run or write a report")
	cmd.Flags().BoolVar(&mine, "target-is-mine", false, "the nodes are yours: allow load to a node outside this machine")
	cmd.Flags().StringVar(&reportDir, "report-dir", "", "where reports go (default: the scenario's report.dir)")
	cmd.Flags().Var(newLabelsFlag(&labels), "label", "label the run, KEY=VALUE (repeatable)")
	cmd.Flags().StringVar(&metricsAddr, "metrics-addr", "", "serve the run's live figures for Prometheus on this address, e.g. 127.0.0.1:9464 (off by default)")
	cmd.Flags().BoolVar(&remote, "allow-remote", false, "allow a --metrics-addr other machines can reach")
	lf.register(cmd.Flags())
	_ = cmd.MarkFlagRequired("rpc")
	return cmd
}

// loadScenario is the scenario a load runs: [load] and [workload] from
// file (or the default) with the flags over them, aimed at the nodes at
// rpcs as an external network, one steady phase, no faults or profiles.
func loadScenario(cmd *cobra.Command, file string, rpcs []string, lf *loadFlags, mine bool) (*scenario.Scenario, error) {
	return resolveScenario(file, edit{"", func(s *scenario.Scenario) error { return lf.apply(cmd.Flags(), s) }}, edit{"", func(s *scenario.Scenario) error {
		if cmd.Flags().Changed("drain") {
			d, _ := cmd.Flags().GetDuration("drain")
			s.Experiment.DrainTimeout = scenario.Duration(d)
		}
		t := &s.Testnet
		t.Provider, t.TargetIsMine, t.Nodes = scenario.ProviderExternal, mine, nil
		t.Zones, t.NodeZones, t.UniformDelay, t.BandwidthMbit, t.Config = nil, nil, 0, 0, nil
		t.Binary, t.Build.Dir = "", ""
		for _, u := range rpcs {
			t.Nodes = append(t.Nodes, scenario.ExternalNode{Role: "full", RPC: u})
		}
		s.Experiment.Kind, s.Experiment.Repeats = scenario.Kinds{scenario.KindSteady}, 1
		s.Perturbations, s.Observe.Profiles = nil, nil
		// A load run is its own thing: filed under the default scenario's
		// name it would mix with real default runs in queries and trends.
		if file == "" {
			s.Name = "load"
		} else {
			s.Name = "load-" + s.Name
		}
		s.File = "command line"
		return nil
	}})
}

// describeModel says what [load] and [workload] send.
func describeModel(s *scenario.Scenario) string {
	m, err := load.ModelFrom(s.Load)
	if err != nil {
		return s.Load.Model
	}
	return fmt.Sprintf("%s, %s", m, describeWorkload(s))
}

// describeWorkload says what one tx is.
func describeWorkload(s *scenario.Scenario) string {
	if d := s.DescribeWorkload(); d != "" {
		return d
	} else if w := s.Workload; w.Kind == "replay" {
		return "replay of " + w.ReplayFile
	}
	w, err := load.WorkloadFrom(s.Workload, s.Load, "")
	if err != nil {
		return err.Error()
	}
	return w.String()
}

// describeLoad says what a run's experiment does, kind after kind.
func describeLoad(s *scenario.Scenario) string {
	m, err := load.ModelFrom(s.Load)
	if err != nil {
		return s.Load.Model
	}
	return fmt.Sprintf("%s; %s", experiment.Describe(s, m.String()), describeWorkload(s))
}

// printDrive prints a load phase's result in a few lines.
func printDrive(out io.Writer, r *results.Phase) {
	s, f := r.Ledger, r.Figures
	fmt.Fprintf(out, "sent %d (%.1f tx/s in window, offered %.1f), accepted %d, rejected %d, send errors %d\n",
		s.Sent, f.SentTPS, f.OfferedTPS, s.Accepted, s.Rejected, s.SendErrors)
	if r.Followed {
		fmt.Fprintf(out, "fates: committed %d, committed_failed %d, rejected %d, send_error %d, unresolved %d (conservation %s)\n",
			s.Fates[load.FateCommitted], s.Fates[load.FateCommittedFailed], s.Fates[load.FateRejected],
			s.Fates[load.FateSendError], s.Fates[load.FateUnresolved], map[bool]string{true: "holds", false: "BROKEN"}[s.Balanced()])
		fmt.Fprintf(out, "committed %.1f tx/s in window; latency in window p50 %.0fms p99 %.0fms max %.0fms; QA inclusion p50 %.0fms; %d blocks, interval %.2fs, %.0f txs/block\n",
			f.CommittedTPS, s.WindowLatency.P50, s.WindowLatency.P99, s.WindowLatency.Max, s.Inclusion.P50, f.Blocks, f.BlockInterval, f.TxsPerBlock)
	}
	for i, k := range s.TopReasons() {
		if i == 3 {
			break
		}
		fmt.Fprintf(out, "  %d x %s\n", s.Reasons[k], k)
	}
	g := r.Generator
	state := g.Delivery()
	fmt.Fprintf(out, "generator: lag p50 %.3fms p99 %.3fms max %.1fms; %s\n", s.Lag.P50, s.Lag.P99, s.Lag.Max, state)
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func sinkCmd() *cobra.Command {
	var addr, wsAddr string
	var delay, work time.Duration
	var flushEach, remote bool
	cmd := &cobra.Command{
		Use:     "sink [--listen 127.0.0.1:26657]",
		Short:   "Accept every broadcast, to measure the load generator's own ceiling",
		Example: `  chainperf sink --listen 127.0.0.1:36657`,
		Long: `sink answers broadcast_tx_sync/async/commit (single or batched JSON-RPC),
/health and /status like a CometBFT node that accepts everything, and
prints how many txs it took each second. Point 'chainperf load --no-follow'
at it to see how fast the generator itself can go. --delay makes it answer
each request that late (a slow endpoint: how many requests must be in
flight to hold a rate against it). --work makes each tx cost it that much
CPU (a node its CPU bounds: about one core / --work tx/s, to see what the
generator does above a target's capacity). --ws-listen also answers broadcasts sent
over /websocket on a second address (tm-load-test, CometBFT's loadtime).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if delay < 0 || delay > time.Minute {
				return fmt.Errorf("sink: --delay %s: must be from 0 to 1m", delay)
			}
			if work < 0 || work > time.Second {
				return fmt.Errorf("sink: --work %s: must be from 0 to 1s", work)
			}
			// Loopback unless asked: a sink takes whatever anyone sends it.
			l, warning, err := listen.Open("--listen", addr, remote)
			if err != nil {
				return fmt.Errorf("sink: %w", err)
			}
			out := cmd.OutOrStdout()
			if warning != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), warning)
			}
			fmt.Fprintf(out, "sink listening on http://%s\n", l.Addr())
			s := load.Sink{Delay: delay, FlushEach: flushEach, Work: work}
			if wsAddr != "" {
				wl, warning, err := listen.Open("--ws-listen", wsAddr, remote)
				if err != nil {
					l.Close()
					return fmt.Errorf("sink: %w", err)
				}
				if warning != "" {
					fmt.Fprintln(cmd.ErrOrStderr(), warning)
				}
				fmt.Fprintf(out, "sink websocket on ws://%s/websocket\n", wl.Addr())
				go func() {
					if err := s.ServeWebsocket(cmd.Context(), wl); err != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "sink: websocket: %v\n", err)
					}
				}()
			}
			go func() {
				tick := time.NewTicker(time.Second)
				defer tick.Stop()
				var last int64
				for {
					select {
					case <-cmd.Context().Done():
						return
					case <-tick.C:
						if n := s.Txs.Load(); n != last {
							fmt.Fprintf(out, "%s %d tx/s (%d in all)\n", results.Clock(time.Now()), n-last, n)
							last = n
						}
					}
				}
			}()
			return s.Serve(cmd.Context(), l)
		},
	}
	cmd.Flags().StringVar(&addr, "listen", "127.0.0.1:26657", "address to listen on (this machine only unless --allow-remote)")
	cmd.Flags().BoolVar(&remote, "allow-remote", false, "allow a --listen or --ws-listen address other machines can reach")
	cmd.Flags().DurationVar(&delay, "delay", 0, "answer each broadcast request this late (a slow endpoint)")
	cmd.Flags().DurationVar(&work, "work", 0, "CPU each tx costs the sink (a CPU-bound node)")
	cmd.Flags().StringVar(&wsAddr, "ws-listen", "", "also answer broadcasts over /websocket on this address")
	cmd.Flags().BoolVar(&flushEach, "flush-each", false, "write every answer at once, as CometBFT's HTTP server does (default: pipelined answers go out together)")
	return cmd
}
