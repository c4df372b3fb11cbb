package agent

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"github.com/google/nftables/xt"

	"github.com/chainperf/chainperf/internal/netem"
)

// Emulated delays in a pod: chainperf's nfqueue delay mechanism (the
// netns provider's), run by the agent in its pod's network namespace. An
// nftables rule per delayed peer sends the packets that come from it to
// the queue (the kernel's NFQUEUE target through nft's xtables compat,
// which kernels without nft's own queue expression have); the agent gives
// each its verdict after the link's delay. Delays apply where packets
// arrive, not where they leave (as on netns): a pod that is killed takes
// its agent with it, and packets held at its exit (its connections' last
// FIN or RST) would be lost, leaving its peers with dead connections that
// refuse the node when it comes back. Packets from the harness and from
// peers with no delay are not queued; with no agent listening they pass
// (bypass).

// DelayRequest is the body of POST /delay: the link from each peer pod by
// its IP, and a cap on what the pod receives (bits/s, 0 none). No links
// remove the delays.
type DelayRequest struct {
	Links     map[string]netem.Link `json:"links"`
	Bandwidth float64               `json:"bandwidth,omitempty"`
}

const delayTable = "chainperf-delay"

// badRequest is a request the agent refuses as given (HTTP 400).
type badRequest string

func (b badRequest) Error() string { return string(b) }

type delayer struct {
	mu        sync.Mutex
	links     atomic.Pointer[map[netip.Addr]netem.Link]
	bandwidth atomic.Uint64 // math.Float64bits would do; bits/s fit
	serving   bool
}

func (d *delayer) linkOf(src, _ netip.Addr) netem.Link {
	if m := d.links.Load(); m != nil {
		return (*m)[src]
	}
	return netem.Link{}
}

// set puts the links in force: the queue's rules for the peers that have
// a delay (or loss), and the map the queue's hook reads.
func (d *delayer) set(req DelayRequest) error {
	links := map[netip.Addr]netem.Link{}
	for ip, l := range req.Links {
		a, err := netip.ParseAddr(ip)
		if err != nil || !a.Is4() {
			return badRequest(fmt.Sprintf("peer %q is not an IPv4 address", ip))
		}
		if l.Delay < 0 || l.Jitter < 0 || l.Loss < 0 || l.Loss > 1 {
			return badRequest(fmt.Sprintf("peer %s: delay %s, jitter %s, loss %g", ip, l.Delay, l.Jitter, l.Loss))
		}
		if l != (netem.Link{}) || req.Bandwidth > 0 {
			links[a] = l
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.links.Store(&links)
	d.bandwidth.Store(uint64(max(0, req.Bandwidth)))
	if len(links) > 0 && !d.serving {
		nf, err := netem.OpenQueue(0)
		if err != nil {
			return fmt.Errorf("nfqueue (the pod needs CAP_NET_ADMIN): %w", err)
		}
		if err := netem.Serve(context.Background(), nf, d.linkOf, func() float64 { return float64(d.bandwidth.Load()) }); err != nil {
			_ = nf.Close()
			return fmt.Errorf("nfqueue: %w", err)
		}
		d.serving = true
	}
	return queueRules(links)
}

// queueRules replaces the delay table: one rule per peer, the packets
// from it to the queue.
func queueRules(links map[netip.Addr]netem.Link) error {
	conn, err := nftables.New()
	if err != nil {
		return fmt.Errorf("nftables: %w", err)
	}
	t := &nftables.Table{Family: nftables.TableFamilyIPv4, Name: delayTable}
	conn.AddTable(t)
	conn.DelTable(t)
	if len(links) > 0 {
		conn.AddTable(t)
		accept := nftables.ChainPolicyAccept
		in := conn.AddChain(&nftables.Chain{Name: "in", Table: t, Type: nftables.ChainTypeFilter,
			Hooknum: nftables.ChainHookInput, Priority: nftables.ChainPriorityMangle, Policy: &accept})
		// xt_NFQ_info_v3: queue number, queues in all, flags (bypass),
		// host byte order, padded to 8 bytes.
		info := make(xt.Unknown, 8)
		binary.NativeEndian.PutUint16(info[0:], netem.QueueNum)
		binary.NativeEndian.PutUint16(info[2:], 1)
		binary.NativeEndian.PutUint16(info[4:], 1) // NFQ_FLAG_BYPASS
		for a := range links {
			ip := a.As4()
			conn.AddRule(&nftables.Rule{Table: t, Chain: in, Exprs: []expr.Any{
				&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 12, Len: 4}, // source
				&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: ip[:]},
				&expr.Target{Name: "NFQUEUE", Rev: 3, Info: &info},
			}})
		}
	}
	return flush(conn)
}
