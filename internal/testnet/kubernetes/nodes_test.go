package kubernetes_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes/kubetest"
	"github.com/chainperf/chainperf/internal/testnet/providertest"
)

// TestKubernetesTwoNodes: a second node joins the local cluster (its own
// kubelet, containerd and bridge on this machine: kube/localcluster/
// addnode.sh), the two carry zone labels, and a testnet whose zones are
// placed by that label has each zone's pods on its node; the handshake
// between pods across the nodes is measured beside one within a node;
// then every provider check passes on the two, with 5 ms emulated
// between every two pods (each pod's agent) so that the latency fault has
// delays to scale, and after Close the testnet's namespace and every
// object with its label are gone. (This is the provider's conformance run:
// one on a single node checked the same with one testnet more.)
func TestKubernetesTwoNodes(t *testing.T) {
	cs := kubetest.Cluster(t)
	exe := providertest.Chainperf(t)
	ctx := context.Background()
	out, err := exec.Command("bash", "../../../kube/localcluster/addnode.sh", "2").CombinedOutput()
	t.Cleanup(func() { _ = exec.Command("bash", "../../../kube/localcluster/rmnode.sh", "2").Run() })
	if err != nil {
		t.Fatalf("addnode.sh 2: %v\n%s", err, out)
	}
	var socks string
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "export CHAINPERF_KUBE_CTR="); ok {
			socks = rest
		}
	}
	if strings.Count(socks, ",") != 1 {
		t.Fatalf("addnode.sh printed no two sockets:\n%s", out)
	}
	const label = "chainperf.io/zone"
	zoneOf := map[string]string{"chainperf-node": "east", "chainperf-node-2": "west"}
	for node, zone := range zoneOf {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{label: zone}}})
		if _, err := cs.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			unset := []byte(`{"metadata":{"labels":{"` + label + `":null}}}`)
			_, _ = cs.CoreV1().Nodes().Patch(context.Background(), node, types.MergePatchType, unset, metav1.PatchOptions{})
		})
	}
	text := `[testnet]
validators = 4
full_nodes = 1
provider = "kubernetes"
zones = ["east", "west"]
[testnet.kubernetes]
zone_label = "` + label + `"
containerd = "` + socks + `"
`
	s, err := scenario.Parse("t.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	tn := providertest.Testnet(t, s.Testnet)
	p, err := kubernetes.New(tn, s.Testnet, nil, testnet.ProviderOptions{Exe: exe})
	if err != nil {
		t.Fatal(err)
	}
	providertest.Setup(t, tn)
	ns := testnet.ClusterNamespace(tn.ID)
	t.Cleanup(func() { _ = kubernetes.DeleteNamespace(context.Background(), cs, ns) })
	if err := p.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Start(ctx, tn.Nodes...); err != nil {
		p.Close(ctx)
		t.Fatal(err)
	}
	zones := s.Testnet.ZoneOf()
	for _, n := range tn.Nodes {
		pod, err := cs.CoreV1().Pods(ns).Get(ctx, strings.ToLower(n.Name), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := zoneOf[pod.Spec.NodeName]; got != zones[n.Name] {
			t.Errorf("%s (zone %s) runs on %s (zone %s)", n.Name, zones[n.Name], pod.Spec.NodeName, got)
		}
	}
	// validator0 and validator2 are east, validator1 west.
	rtt := func(a, b *testnet.Node) time.Duration {
		var xs []time.Duration
		for range 9 {
			d, err := p.RTT(ctx, a, b)
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, d)
		}
		slices.Sort(xs)
		return xs[4]
	}
	within, across := rtt(tn.Nodes[0], tn.Nodes[2]), rtt(tn.Nodes[0], tn.Nodes[1])
	t.Logf("handshake, median of 9: within a node %s, across the nodes %s", within, across)
	if across <= 0 || across > 20*time.Millisecond {
		t.Errorf("handshake across the nodes %s", across)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}

	// Every provider check on the two nodes, with a delay between the pods
	// (zones placed by a node label keep the cluster's own latency: this
	// testnet's pods go where the scheduler puts them).
	s2, err := scenario.Parse("t.toml", []byte(`[testnet]
validators = 4
full_nodes = 1
provider = "kubernetes"
uniform_delay = "5ms"
[testnet.kubernetes]
containerd = "`+socks+`"
`))
	if err != nil {
		t.Fatal(err)
	}
	tn2 := providertest.Testnet(t, s2.Testnet)
	p2, err := kubernetes.New(tn2, s2.Testnet, nil, testnet.ProviderOptions{Exe: exe})
	if err != nil {
		t.Fatal(err)
	}
	providertest.Setup(t, tn2)
	ns2 := testnet.ClusterNamespace(tn2.ID)
	t.Cleanup(func() { _ = kubernetes.DeleteNamespace(context.Background(), cs, ns2) })
	providertest.Conformance(t, providertest.Subject{Provider: p2, Testnet: tn2, Patience: 60 * time.Second, Block: 1300 * time.Millisecond,
		Gone: func(t *testing.T) {
			if _, err := cs.CoreV1().Namespaces().Get(ctx, ns2, metav1.GetOptions{}); err == nil {
				t.Errorf("namespace %s left", ns2)
			}
			pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: kubernetes.LabelTestnet + "=" + tn2.ID})
			if err != nil || len(pods.Items) > 0 {
				t.Errorf("pods left: %v %v", pods, err)
			}
		}})
}
