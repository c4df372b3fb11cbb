package netns_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/netns"
	"github.com/chainperf/chainperf/internal/testnet/providertest"
)

// The netns provider passes the checks every provider passes, on real
// CometBFT nodes as emulated hosts with a 5 ms uniform delay (so that the
// latency fault has delays to scale); after Close no namespace is left.
func TestNetnsConformance(t *testing.T) {
	if testing.Short() || os.Geteuid() != 0 {
		t.Skip("real nodes in network namespaces, as root")
	}
	for _, tool := range []string{"ip", "iptables-legacy"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	exe := providertest.Chainperf(t)
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 4\nfull_nodes = 1\nprovider = \"netns\"\nuniform_delay = \"5ms\"\nnetem_backend = \"nfqueue\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	tn := providertest.Testnet(t, s.Testnet)
	p, err := netns.New(tn, s.Testnet, nil, testnet.ProviderOptions{Exe: exe})
	if err != nil {
		t.Fatal(err)
	}
	providertest.Setup(t, tn)
	tag := tn.Network.Tag
	t.Cleanup(func() { _ = netns.Remove(context.Background(), tag) })
	providertest.Conformance(t, providertest.Subject{Provider: p, Testnet: tn, Patience: 40 * time.Second, Block: 1300 * time.Millisecond,
		Gone: func(t *testing.T) {
			providertest.NoProcessUnder(t, tn.Dir)
			if nss, err := netns.Namespaces(context.Background(), tag); err != nil || len(nss) > 0 {
				t.Errorf("namespaces left: %v %v", nss, err)
			}
		}})
}
