// Package kubetest gives tests the cluster they run against: the one
// kube/localcluster/up.sh started (.ci/run exports its KUBECONFIG and
// CHAINPERF_KUBE_CTR).
package kubetest

import (
	"os"
	"testing"

	k8s "k8s.io/client-go/kubernetes"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes"
)

// Cluster returns a client of the test cluster. Without one the test is
// skipped, except in CI, where it fails: nothing of the kubernetes
// provider goes untested there.
func Cluster(t *testing.T) k8s.Interface {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real nodes in a cluster")
	}
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
