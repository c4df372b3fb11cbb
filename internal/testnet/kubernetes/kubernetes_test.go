package kubernetes_test

import (
	"context"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8s "k8s.io/client-go/kubernetes"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes"
	"github.com/chainperf/chainperf/internal/testnet/providertest"
)

// Cluster returns a client of the cluster the tests run on: the one
// kube/localcluster/up.sh started (KUBECONFIG and CHAINPERF_KUBE_CTR set by
// .ci/run). Without one the test is skipped, except in CI, where it fails.
func cluster(t *testing.T) k8s.Interface {
	t.Helper()
	if os.Getenv("KUBECONFIG") == "" || os.Getenv(kubernetes.CtrEnv) == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI runs the kubernetes tests on a real cluster: KUBECONFIG and CHAINPERF_KUBE_CTR must be set (kube/localcluster/up.sh)")
		}
		t.Skip("no cluster: run `eval $(sudo kube/localcluster/up.sh)` first")
	}
	cfg, err := kubernetes.Config(scenario.Kubernetes{})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := k8s.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// The kubernetes provider passes the checks every provider passes, on real
// CometBFT nodes in pods of a real cluster; after Close the testnet's
// namespace and every object with its label are gone.
func TestKubernetesConformance(t *testing.T) {
	cs := cluster(t)
	exe := providertest.Chainperf(t)
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 4\nfull_nodes = 1\nprovider = \"kubernetes\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	tn := providertest.Testnet(t, s.Testnet)
	p, err := kubernetes.New(tn, s.Testnet, testnet.ProviderOptions{Exe: exe})
	if err != nil {
		t.Fatal(err)
	}
	providertest.Setup(t, tn)
	ns := testnet.ClusterNamespace(tn.ID)
	t.Cleanup(func() { _ = kubernetes.DeleteNamespace(context.Background(), cs, ns) })
	providertest.Conformance(t, providertest.Subject{Provider: p, Testnet: tn, Patience: 60 * time.Second, Block: 1300 * time.Millisecond,
		Gone: func(t *testing.T) {
			ctx := context.Background()
			if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil {
				t.Errorf("namespace %s left", ns)
			}
			pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: kubernetes.LabelTestnet + "=" + tn.ID})
			if err != nil || len(pods.Items) > 0 {
				t.Errorf("pods left: %v %v", pods, err)
			}
		}})
}
