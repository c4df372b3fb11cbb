package testnet

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/chainperf/chainperf/internal/latency"
	"github.com/chainperf/chainperf/internal/netem"
	"github.com/chainperf/chainperf/internal/scenario"
)

// A Network is the address plan of a testnet whose nodes are emulated
// hosts (one network namespace a node, on one bridge): the netns provider
// makes it real. Every name carries the testnet's ID, so two testnets, or
// a leftover and a live one, are never confused.
type Network struct {
	Tag    string       `json:"tag"`    // "cp3f9a1c": bridge name, prefix of every other name
	Subnet netip.Prefix `json:"subnet"` // a /24; .1 is the bridge
}

// NetworkTag returns the name stem for testnet id ("tn-3f9a1c" -> "cp3f9a1c").
func NetworkTag(id string) string { return "cp" + strings.TrimPrefix(id, "tn-") }

// Namespace is node i's namespace.
func (n Network) Namespace(i int) string { return fmt.Sprintf("%s-%d", n.Tag, i) }

// HostLink is the root-namespace end of node i's veth pair (at most 15
// characters: "cp3f9a1c-199h").
func (n Network) HostLink(i int) string { return fmt.Sprintf("%s-%dh", n.Tag, i) }

// Gateway is the bridge's address.
func (n Network) Gateway() netip.Addr { return n.Subnet.Addr().Next() }

// Address is node i's address: .2, .3, ...
func (n Network) Address(i int) netip.Addr {
	a := n.Gateway()
	for j := 0; j <= i; j++ {
		a = a.Next()
	}
	return a
}

// Exec is the command prefix that runs a program in node i's namespace.
func (n Network) Exec(i int) []string { return []string{"ip", "netns", "exec", n.Namespace(i)} }

// Range is the subnet (for delay backends that take any set of hosts).
func (n Network) Range() netip.Prefix { return n.Subnet }

// WANPlan is the emulated WAN of spec over t's nodes (in t.Nodes order):
// zones from the table (nil: the built-in one), or one uniform delay
// between every pair, with jitter, loss and the bandwidth cap; and its
// record for the run.
func WANPlan(spec scenario.Testnet, t *Testnet, table *latency.Table) (*netem.Plan, *netem.WAN, error) {
	if table == nil {
		table = latency.Builtin()
	}
	wan := &netem.WAN{Zones: map[string]string{}, Jitter: spec.Jitter, Loss: spec.Loss, Table: spec.LatencyTable}
	zoneOf := spec.ZoneOf()
	zones := make([]string, len(t.Nodes))
	for i, n := range t.Nodes {
		zones[i] = zoneOf[n.Name]
	}
	if spec.UniformDelay > 0 || len(spec.Zones) == 0 && len(spec.NodeZones) == 0 {
		// One delay between every pair (0 with a bandwidth cap alone).
		for i := range zones {
			zones[i] = fmt.Sprintf("node%d", i)
		}
		table = latency.Uniform(spec.UniformDelay.D(), len(t.Nodes))
		wan.Table, wan.UniformMS = "uniform", float64(spec.UniformDelay.D().Milliseconds())
	} else {
		for i, n := range t.Nodes {
			if zones[i] != "" {
				wan.Zones[n.Name] = zones[i]
			}
		}
	}
	plan, err := netem.PlanFor(table, zones, spec.Jitter, spec.Loss)
	if err != nil {
		return nil, nil, err
	}
	plan.Bandwidth = spec.BandwidthMbit * 1e6
	wan.BandwidthMbit = spec.BandwidthMbit
	return plan, wan, nil
}
