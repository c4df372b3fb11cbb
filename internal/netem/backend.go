package netem

import (
	"context"
	"fmt"
	"net/netip"
	"os/exec"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/latency"
)

// Hosts are the emulated hosts a shaper works on: host i runs in network
// namespace Namespace(i) at Address(i), all on one subnet whose bridge is
// Gateway. The netns provider's address plan is one.
type Hosts interface {
	Namespace(i int) string
	Address(i int) netip.Addr
	Gateway() netip.Addr
	Range() netip.Prefix
}

// WAN describes an emulated wide-area network as a run records it
// (latency.WAN: the run record reads it without netem).
type WAN = latency.WAN

// A Shaper applies a plan to a testnet's emulated network until closed.
type Shaper interface {
	Backend() string // "tc" or "nfqueue"
	Close()
}

// A Replanner can change the delays while the testnet runs (a latency
// perturbation); the NFQUEUE daemon can.
type Replanner interface {
	Plan() *Plan
	SetPlan(*Plan)
}

// Backend name of the NFQUEUE daemon.
func (d *Daemon) Backend() string { return "nfqueue" }

// Start applies plan to the n nodes of nw with backend "tc", "nfqueue" or
// "auto" (tc where the kernel has sch_netem, else nfqueue).
func Start(ctx context.Context, backend string, nw Hosts, n int, plan *Plan) (Shaper, error) {
	if backend == "auto" {
		backend = "nfqueue"
		if TCAvailable(ctx, nw.Namespace(0)) {
			backend = "tc"
		}
	}
	switch backend {
	case "tc":
		if !TCAvailable(ctx, nw.Namespace(0)) {
			return nil, fmt.Errorf(`netem_backend "tc": this kernel has no sch_netem ("tc qdisc ... netem" fails); use "nfqueue" or "auto"`)
		}
		return startTC(ctx, nw, n, plan)
	case "nfqueue":
		return StartNFQueue(ctx, nw, n, plan)
	}
	return nil, fmt.Errorf("unknown netem backend %q", backend)
}

// TCAvailable says whether a netem qdisc can be made, trying one on the
// loopback of namespace ns (and removing it).
func TCAvailable(ctx context.Context, ns string) bool {
	if _, err := exec.LookPath("tc"); err != nil {
		return false
	}
	if exec.CommandContext(ctx, "ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms").Run() != nil {
		return false
	}
	_ = exec.CommandContext(ctx, "ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", "lo", "root").Run()
	return true
}

// tcShaper is the kernel backend: in each namespace an htb root on eth0,
// a class 1:1 capped at the node's bandwidth, under it one class a
// destination node with a netem qdisc holding that link's delay, jitter
// and loss, and a u32 filter on the destination address (CometBFT's e2e
// method); other traffic (the harness's) takes the uncapped default class.
type tcShaper struct{}

func (tcShaper) Backend() string { return "tc" }
func (tcShaper) Close()          {} // the qdiscs go with the namespaces

func startTC(ctx context.Context, nw Hosts, n int, plan *Plan) (Shaper, error) {
	for _, c := range tcCommands(nw, n, plan) {
		if out, err := exec.CommandContext(ctx, c[0], c[1:]...).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: %v: %s", strings.Join(c, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return tcShaper{}, nil
}

func tcCommands(nw Hosts, n int, plan *Plan) [][]string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond)) }
	var out [][]string
	for i := 0; i < n; i++ {
		tc := func(args ...string) {
			out = append(out, append([]string{"ip", "netns", "exec", nw.Namespace(i), "tc"}, args...))
		}
		rate := "10gbit"
		if plan.Bandwidth > 0 {
			rate = fmt.Sprintf("%.0fbit", plan.Bandwidth)
		}
		tc("qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb", "default", "ffff")
		tc("class", "add", "dev", "eth0", "parent", "1:", "classid", "1:ffff", "htb", "rate", "10gbit")
		tc("class", "add", "dev", "eth0", "parent", "1:", "classid", "1:1", "htb", "rate", rate, "ceil", rate)
		for j := 0; j < n; j++ {
			l := plan.Links[i][j]
			if i == j {
				continue
			}
			class := fmt.Sprintf("1:%x", j+2)
			tc("class", "add", "dev", "eth0", "parent", "1:1", "classid", class, "htb", "rate", "1mbit", "ceil", rate)
			netem := []string{"qdisc", "add", "dev", "eth0", "parent", class, "handle", fmt.Sprintf("%x:", j+10), "netem", "delay", ms(l.Delay)}
			if l.Jitter > 0 {
				netem = append(netem, ms(l.Jitter), "distribution", "normal")
			}
			if l.Loss > 0 {
				netem = append(netem, "loss", fmt.Sprintf("%g%%", 100*l.Loss))
			}
			tc(netem...)
			tc("filter", "add", "dev", "eth0", "protocol", "ip", "parent", "1:", "prio", "1", "u32",
				"match", "ip", "dst", nw.Address(j).String()+"/32", "flowid", class)
		}
	}
	return out
}
