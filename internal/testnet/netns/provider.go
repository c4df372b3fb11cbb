package netns

import (
	"context"
	"errors"
	"fmt"

	"github.com/chainperf/chainperf/internal/latency"
	"github.com/chainperf/chainperf/internal/netem"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/process"
)

// A Provider runs every node as a process in its own network namespace:
// an emulated host with its own address, links that can be cut, routes
// that can split the network, and the emulated WAN's delays.
type Provider struct {
	*process.Provider // starts, stops, kills and pauses the nodes' processes
	net               *testnet.Testnet
	spec              scenario.Testnet
	table             *latency.Table
	shaper            netem.Shaper // nil: no emulated WAN
	wan               *netem.WAN
	base              *netem.Plan // the delays before the first latency change
	opened            bool
}

var (
	_ testnet.Provider      = (*Provider)(nil)
	_ testnet.Disconnecter  = (*Provider)(nil)
	_ testnet.Partitioner   = (*Provider)(nil)
	_ testnet.LatencyShaper = (*Provider)(nil)
)

// New places t's nodes on a free /24 of spec.Subnet (each node's Host is
// its address there) and returns the provider that makes them real. table
// is the zone table of an emulated WAN (nil: the built-in one). It makes
// nothing yet: Open does.
func New(t *testnet.Testnet, spec scenario.Testnet, table *latency.Table, o testnet.ProviderOptions) (*Provider, error) {
	if err := Preflight(spec, o); err != nil {
		return nil, err
	}
	nw, err := Pick(t.ID, spec.Subnet)
	if err != nil {
		return nil, err
	}
	t.Network = &nw
	for i, n := range t.Nodes {
		n.Host = nw.Address(i).String()
	}
	opts := []process.Option{process.WithLogger(o.Log), process.Wrapped(func(n *testnet.Node) []string { return nw.Exec(t.Index(n)) })}
	if o.Detach {
		opts = append(opts, process.Detached())
	}
	return &Provider{Provider: process.New(t, o.Exe, opts...), net: t, spec: spec, table: table}, nil
}

// Preflight says what stops this provider before anything is made: no
// root, no iproute2, or a detached testnet asking for delays that only a
// live harness keeps.
func Preflight(spec scenario.Testnet, o testnet.ProviderOptions) error {
	if err := CheckRoot(); err != nil {
		return err
	}
	if spec.Emulated() && o.Detach && spec.NetemBackend != "tc" {
		return errors.New("a detached testnet cannot keep an emulated WAN's delays: the nfqueue delay daemon lives in chainperf and ends with it; run it in the foreground")
	}
	return nil
}

// Name is "netns".
func (p *Provider) Name() string { return "netns" }

// Open makes the namespaces, links and bridge, then the emulated WAN's
// delays if the scenario has one. On error it removes what it made.
func (p *Provider) Open(ctx context.Context) (err error) {
	nw := *p.net.Network
	if err := Create(ctx, nw, len(p.net.Nodes)); err != nil {
		return fmt.Errorf("emulated network: %w", err)
	}
	p.opened = true
	defer func() {
		if err != nil {
			_ = Remove(context.WithoutCancel(ctx), nw.Tag)
			p.opened = false
		}
	}()
	if p.spec.Emulated() {
		if p.shaper, p.wan, err = shape(ctx, p.spec, p.net, p.table); err != nil {
			return err
		}
	}
	return nil
}

// WAN describes the emulated WAN (nil: none).
func (p *Provider) WAN() *netem.WAN { return p.wan }

// Close ends every node, the delay daemon and the namespaces.
func (p *Provider) Close(ctx context.Context) error {
	err := p.Provider.Close(ctx)
	if p.shaper != nil {
		p.shaper.Close()
		p.shaper = nil
	}
	if p.opened {
		err = errors.Join(err, Remove(context.WithoutCancel(ctx), p.net.Network.Tag))
		p.opened = false
	}
	return err
}

// Disconnect cuts each node's link to the bridge: peers and harness lose it.
func (p *Provider) Disconnect(ctx context.Context, nodes ...*testnet.Node) error {
	return p.link(ctx, false, nodes)
}

// Reconnect brings each node's link up again.
func (p *Provider) Reconnect(ctx context.Context, nodes ...*testnet.Node) error {
	return p.link(ctx, true, nodes)
}

func (p *Provider) link(ctx context.Context, up bool, nodes []*testnet.Node) error {
	for _, n := range nodes {
		if err := SetLink(ctx, *p.net.Network, p.net.Index(n), up); err != nil {
			return err
		}
	}
	return nil
}

// Partition adds blackhole routes between the groups.
func (p *Provider) Partition(ctx context.Context, groups [][]*testnet.Node) error {
	return Split(ctx, *p.net.Network, p.indices(groups), false)
}

// Heal removes the routes Partition added for the same groups.
func (p *Provider) Heal(ctx context.Context, groups [][]*testnet.Node) error {
	return Split(ctx, *p.net.Network, p.indices(groups), true)
}

func (p *Provider) indices(groups [][]*testnet.Node) [][]int {
	out := make([][]int, len(groups))
	for i, g := range groups {
		for _, n := range g {
			out[i] = append(out[i], p.net.Index(n))
		}
	}
	return out
}

// ScaleLatency multiplies the delays of the links that touch nodes (all
// when none) by scale. Only the nfqueue backend can change delays while
// the testnet runs.
func (p *Provider) ScaleLatency(_ context.Context, scale float64, nodes ...*testnet.Node) error {
	rp, err := p.replanner()
	if err != nil {
		return err
	}
	var only map[int]bool
	for _, n := range nodes {
		if only == nil {
			only = map[int]bool{}
		}
		only[p.net.Index(n)] = true
	}
	if p.base == nil {
		p.base = rp.Plan()
	}
	rp.SetPlan(p.base.Scaled(scale, only))
	return nil
}

// RestoreLatency puts back the delays the testnet started with.
func (p *Provider) RestoreLatency(context.Context) error {
	rp, err := p.replanner()
	if err != nil {
		return err
	}
	if p.base != nil {
		rp.SetPlan(p.base)
	}
	return nil
}

func (p *Provider) replanner() (netem.Replanner, error) {
	rp, ok := p.shaper.(netem.Replanner)
	if !ok {
		return nil, errors.New("a latency change needs the nfqueue backend (the tc backend's delays are fixed for the run)")
	}
	return rp, nil
}

// shape starts the emulated WAN's delays between t's nodes: zones from
// spec (or one uniform delay) over table.
func shape(ctx context.Context, spec scenario.Testnet, t *testnet.Testnet, table *latency.Table) (netem.Shaper, *netem.WAN, error) {
	plan, wan, err := testnet.WANPlan(spec, t, table)
	if err != nil {
		return nil, nil, err
	}
	sh, err := netem.Start(ctx, spec.NetemBackend, *t.Network, len(t.Nodes), plan)
	if err != nil {
		return nil, nil, fmt.Errorf("emulated WAN: %w", err)
	}
	wan.Backend = sh.Backend()
	return sh, wan, nil
}
