// Package external is the provider of a network that already runs:
// chainperf reaches its nodes at the URLs the scenario lists and starts,
// stops and perturbs none of them.
package external

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

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
		p.ends[n.Name] = testnet.Endpoint{RPC: strings.TrimRight(nd.RPC, "/"), Metrics: nd.Metrics, Pprof: strings.TrimRight(nd.Pprof, "/")}
		if u, err := url.Parse(nd.RPC); err == nil {
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

// Status is what a node says of itself, as far as chainperf needs.
type Status struct {
	Moniker, Network, Version string
	Height                    int64
}

// ReadStatus asks the node at rpc for its status (GET /status, which
// CometBFT and chainperf's sink both answer), within 5 s.
func ReadStatus(ctx context.Context, rpc string) (Status, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(rpc, "/")+"/status", nil)
	if err != nil {
		return Status{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Status{}, err
	}
	defer resp.Body.Close()
	var r struct {
		Result *struct {
			NodeInfo struct {
				Moniker, Network, Version string
			} `json:"node_info"`
			SyncInfo struct {
				Height string `json:"latest_block_height"`
			} `json:"sync_info"`
		} `json:"result"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&r); err != nil || r.Result == nil {
		return Status{}, fmt.Errorf("HTTP %d, not a CometBFT status answer", resp.StatusCode)
	}
	st := Status{Moniker: r.Result.NodeInfo.Moniker, Network: r.Result.NodeInfo.Network, Version: r.Result.NodeInfo.Version}
	st.Height, _ = strconv.ParseInt(r.Result.SyncInfo.Height, 10, 64)
	return st, nil
}

// CheckTargets refuses URLs outside this machine (127.0.0.0/8, ::1,
// localhost) unless mine says the network is the user's own: load is
// never sent to someone else's network by a typo.
func CheckTargets(urls []string, mine bool) error {
	if mine {
		return nil
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("%s: %v", scenario.Redact(raw), err)
		}
		if !Local(u.Hostname()) {
			return fmt.Errorf("%s is not on this machine: load a network only if it is yours; say so with --target-is-mine (or [testnet] target_is_mine = true)", scenario.Redact(raw))
		}
	}
	return nil
}

// Local says whether host is this machine's loopback.
func Local(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
