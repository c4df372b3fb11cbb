// Package external is the provider of a network that already runs:
// chainperf reaches its nodes at the URLs the scenario lists and starts,
// stops and perturbs none of them.
package external

import (
	"context"
	"errors"
	"fmt"

	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// A Provider reaches the nodes of an external network. It has no fault
// capability: someone else's nodes are not chainperf's to kill.
type Provider struct {
	t      *testnet.Testnet
	ends   map[string]testnet.Endpoint
	status Status // what the first node said when Open asked
}

var _ testnet.Provider = (*Provider)(nil)

// New returns the provider of t, a model made by testnet.NewExternal from
// spec.
func New(t *testnet.Testnet, spec scenario.Testnet) *Provider {
	p := &Provider{t: t, ends: map[string]testnet.Endpoint{}}
	for i, n := range t.Nodes {
		nd := spec.Nodes[i]
		// The checked form is the one every client is given.
		rpc, u, _ := nodehttp.Canonical(nd.RPC)
		metrics, _, _ := nodehttp.Canonical(nd.Metrics)
		pprof, _, _ := nodehttp.Canonical(nd.Pprof)
		p.ends[n.Name] = testnet.Endpoint{RPC: rpc, Metrics: metrics, Pprof: pprof}
		if u != nil {
			n.Host = u.Hostname()
		}
	}
	return p
}

// Name is "external".
func (p *Provider) Name() string { return scenario.ProviderExternal }

// Open checks that every node answers; it makes nothing.
func (p *Provider) Open(ctx context.Context) error {
	var errs []error
	for i, n := range p.t.Nodes {
		rpc := p.ends[n.Name].RPC
		st, err := ReadStatus(ctx, rpc)
		if i == 0 {
			p.status = st
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("node %s at %s does not answer /status: %v", n.Name, scenario.Redact(rpc), scenario.Redact(err.Error())))
		}
	}
	return errors.Join(errs...)
}

// Version says what the network runs, as its first node told Open.
func (p *Provider) Version() string {
	s := p.status
	return fmt.Sprintf("%s %s (moniker %s)", s.Network, s.Version, s.Moniker)
}

// Start does nothing: the nodes run already.
func (p *Provider) Start(context.Context, ...*testnet.Node) error { return nil }

// Stop does nothing: the nodes are not chainperf's.
func (p *Provider) Stop(context.Context, ...*testnet.Node) error { return nil }

// Endpoint is where the scenario says n is.
func (p *Provider) Endpoint(n *testnet.Node) testnet.Endpoint { return p.ends[n.Name] }

// Exited never reports: chainperf does not own the processes.
func (p *Provider) Exited(*testnet.Node) (error, bool) { return nil, false }

// Close does nothing.
func (p *Provider) Close(context.Context) error { return nil }

// Status is what a node says of itself, as far as chainperf reads it.
type Status = nodehttp.Status

// ReadStatus asks the node at rpc for its status (GET /status, which
// CometBFT and chainperf's sink both answer), within nodehttp's caps.
func ReadStatus(ctx context.Context, rpc string) (Status, error) {
	return nodehttp.ReadStatus(ctx, rpc)
}

// CheckTargets refuses URLs outside this machine (127.0.0.0/8, ::1,
// localhost) unless mine says the network is the user's own: load is
// never sent to someone else's network by a typo.
func CheckTargets(urls []string, mine bool) error {
	if mine {
		return nil
	}
	for _, raw := range urls {
		if raw == "" {
			continue
		}
		_, u, err := nodehttp.Canonical(raw)
		if err != nil {
			return err
		}
		if !nodehttp.Local(u.Hostname()) {
			return fmt.Errorf("%s is not on this machine: load a network only if it is yours; say so with --target-is-mine (or [testnet] target_is_mine = true)", scenario.Redact(raw))
		}
	}
	return nil
}
