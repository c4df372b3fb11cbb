// Package netem emulates a wide-area network between a testnet's emulated
// hosts: which zone each node is in, the one-way delay between zones (a
// latency.Table), jitter and loss, applied by a backend: Linux's netem
// qdisc where the kernel has it, else a delay daemon in chainperf fed by
// NFQUEUE.
package netem

import (
	"fmt"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/latency"
)

// Link is what one direction between two nodes gets.
type Link struct {
	Delay  time.Duration
	Jitter time.Duration // standard deviation, normal
	Loss   float64       // share of packets dropped, 0..1
}

// A Plan is the emulated network of one testnet: Links[i][j] from node i
// to node j (index in the testnet's node list), and a cap on what each
// node sends to the others (bits/s; 0: none).
type Plan struct {
	Links     [][]Link
	Bandwidth float64
}

// PlanFor makes the plan for nodes in zones (one zone name per node; ""
// for a node outside the WAN: no added delay to or from it) with table t,
// jitter as a share of each delay and loss in percent.
func PlanFor(t *latency.Table, zones []string, jitter, lossPct float64) (*Plan, error) {
	idx := make([]int, len(zones))
	for i, z := range zones {
		if z == "" {
			idx[i] = -1
			continue
		}
		if idx[i] = t.Zone(z); idx[i] < 0 {
			return nil, fmt.Errorf("node %d: unknown zone %q (known: %s)", i, z, strings.Join(t.Zones, ", "))
		}
	}
	p := &Plan{Links: make([][]Link, len(zones))}
	for i := range zones {
		p.Links[i] = make([]Link, len(zones))
		for j := range zones {
			if i == j || idx[i] < 0 || idx[j] < 0 {
				continue
			}
			d := t.Delay[idx[i]][idx[j]]
			p.Links[i][j] = Link{Delay: d, Jitter: time.Duration(jitter * float64(d)), Loss: lossPct / 100}
		}
	}
	return p, nil
}

// Scaled returns a copy of p with the delays (and jitter) of the links
// from or to the nodes in only (all nodes when only is nil) times k.
func (p *Plan) Scaled(k float64, only map[int]bool) *Plan {
	q := &Plan{Links: make([][]Link, len(p.Links)), Bandwidth: p.Bandwidth}
	for i, row := range p.Links {
		q.Links[i] = append([]Link(nil), row...)
		for j := range row {
			if only == nil || only[i] || only[j] {
				q.Links[i][j].Delay = time.Duration(k * float64(row[j].Delay))
				q.Links[i][j].Jitter = time.Duration(k * float64(row[j].Jitter))
			}
		}
	}
	return q
}
