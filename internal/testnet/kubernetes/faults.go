package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chainperf/chainperf/internal/kube/agent"
	"github.com/chainperf/chainperf/internal/testnet"
)

func agentPort(*testnet.Node) int { return AgentPort }

func (p *Provider) agent(n *testnet.Node) agent.Client {
	if p.fwd != nil {
		return agent.Client{Base: "http://" + p.fwd.addr(podName(n), agentPort(n))}
	}
	return agent.Client{Base: "http://" + net.JoinHostPort(n.Host, strconv.Itoa(agentPort(n)))}
}

// each calls f for every node and joins the errors.
func each(nodes []*testnet.Node, f func(*testnet.Node) error) error {
	var errs []error
	for _, n := range nodes {
		if err := f(n); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", n.Name, err))
		}
	}
	return errors.Join(errs...)
}

// Pause freezes the nodes (their agents stop them with SIGSTOP); their
// pods keep running.
func (p *Provider) Pause(ctx context.Context, nodes ...*testnet.Node) error {
	return each(nodes, func(n *testnet.Node) error { return p.agent(n).Do(ctx, "/pause", nil) })
}

// Resume lets paused nodes go on.
func (p *Provider) Resume(ctx context.Context, nodes ...*testnet.Node) error {
	return each(nodes, func(n *testnet.Node) error { return p.agent(n).Do(ctx, "/resume", nil) })
}

// Disconnect cuts the nodes off every address (peers and harness) but
// their agents' port.
func (p *Provider) Disconnect(ctx context.Context, nodes ...*testnet.Node) error {
	return each(nodes, func(n *testnet.Node) error { return p.agent(n).Do(ctx, "/cut", &agent.Request{All: true}) })
}

// Reconnect undoes Disconnect.
func (p *Provider) Reconnect(ctx context.Context, nodes ...*testnet.Node) error {
	return each(nodes, func(n *testnet.Node) error { return p.agent(n).Do(ctx, "/restore", nil) })
}

// Partition cuts every node of a group from the pods of the other groups;
// the harness still reaches them all.
func (p *Provider) Partition(ctx context.Context, groups [][]*testnet.Node) error {
	var errs []error
	for i, g := range groups {
		var others []string
		for j, h := range groups {
			if j != i {
				for _, n := range h {
					others = append(others, n.Host)
				}
			}
		}
		errs = append(errs, each(g, func(n *testnet.Node) error {
			return p.agent(n).Do(ctx, "/cut", &agent.Request{Peers: others})
		}))
	}
	return errors.Join(errs...)
}

// Heal undoes Partition.
func (p *Provider) Heal(ctx context.Context, groups [][]*testnet.Node) error {
	var errs []error
	for _, g := range groups {
		errs = append(errs, p.Reconnect(ctx, g...))
	}
	return errors.Join(errs...)
}

// Stop deletes the nodes' pods (SIGTERM, then SIGKILL after 10 s) and
// waits until they are gone. Their data goes with them: started again, a
// node syncs from its peers.
func (p *Provider) Stop(ctx context.Context, nodes ...*testnet.Node) error {
	return p.remove(ctx, 10, nodes)
}

// Kill deletes the nodes' pods at once, as a crash would.
func (p *Provider) Kill(ctx context.Context, nodes ...*testnet.Node) error {
	return p.remove(ctx, 0, nodes)
}

func (p *Provider) remove(ctx context.Context, grace int64, nodes []*testnet.Node) error {
	var errs []error
	for _, n := range nodes {
		p.mu.Lock()
		delete(p.running, n.Name)
		p.mu.Unlock()
		err := p.cs.CoreV1().Pods(p.ns).Delete(ctx, podName(n), metav1.DeleteOptions{GracePeriodSeconds: &grace})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete pod of %s: %w", n.Name, err))
		}
	}
	for _, n := range nodes {
		if err := p.waitGone(ctx, n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (p *Provider) waitGone(ctx context.Context, n *testnet.Node) error {
	for end := time.Now().Add(time.Minute); time.Now().Before(end); {
		_, err := p.cs.CoreV1().Pods(p.ns).Get(ctx, podName(n), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			p.log.Info("node stopped", "node", n.Name)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("pod of %s still there a minute after its deletion", n.Name)
}
