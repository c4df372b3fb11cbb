package kubernetes_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes/kubetest"
	"github.com/chainperf/chainperf/internal/testnet/providertest"
)

// The emulated delays are real in the pods: with 40 ms one way between
// every two pods, a TCP handshake from one validator's pod to the other's
// takes about 80 ms (the SYN and the SYN-ACK are each delayed at their
// sender); scaled by 2 about 160 ms, by 0 next to nothing, and restored
// about 80 ms again.
func TestKubernetesDelays(t *testing.T) {
	cs := kubetest.Cluster(t)
	exe := providertest.Chainperf(t)
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 2\nfull_nodes = 0\nprovider = \"kubernetes\"\nuniform_delay = \"40ms\"\njitter = 0.0\n"))
	if err != nil {
		t.Fatal(err)
	}
	tn := providertest.Testnet(t, s.Testnet)
	p, err := kubernetes.New(tn, s.Testnet, nil, testnet.ProviderOptions{Exe: exe})
	if err != nil {
		t.Fatal(err)
	}
	providertest.Setup(t, tn)
	t.Cleanup(func() { _ = kubernetes.DeleteNamespace(context.Background(), cs, testnet.ClusterNamespace(tn.ID)) })
	ctx := context.Background()
	if err := p.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	if err := p.Start(ctx, tn.Nodes...); err != nil {
		t.Fatal(err)
	}
	a, b := tn.Nodes[0], tn.Nodes[1]
	// rtt is the median of 5 handshakes from a to b.
	rtt := func() time.Duration {
		var xs []time.Duration
		for i := 0; i < 5; i++ {
			d, err := p.RTT(ctx, a, b)
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, d)
		}
		slices.Sort(xs)
		return xs[2]
	}
	for _, step := range []struct {
		what     string
		do       func() error
		min, max time.Duration
	}{
		{"40 ms each way", func() error { return nil }, 78 * time.Millisecond, 120 * time.Millisecond},
		{"scaled by 2", func() error { return p.ScaleLatency(ctx, 2) }, 158 * time.Millisecond, 210 * time.Millisecond},
		{"scaled by 0", func() error { return p.ScaleLatency(ctx, 0) }, 0, 20 * time.Millisecond},
		{"restored", func() error { return p.RestoreLatency(ctx) }, 78 * time.Millisecond, 120 * time.Millisecond},
	} {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.what, err)
		}
		if d := rtt(); d < step.min || d > step.max {
			t.Errorf("%s: handshake %s; want %s to %s", step.what, d, step.min, step.max)
		} else {
			t.Logf("%s: handshake %s", step.what, d)
		}
	}
}
