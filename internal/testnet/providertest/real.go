package providertest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// Chainperf builds the chainperf binary (real nodes run it as
// `chainperf node`) into the test's temp dir and returns its path.
func Chainperf(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "chainperf")
	out, err := exec.Command("go", "build", "-o", exe, "github.com/chainperf/chainperf/cmd/chainperf").CombinedOutput()
	if err != nil {
		t.Fatalf("build chainperf: %v\n%s", err, out)
	}
	return exe
}

// Testnet resolves spec into a testnet with free loopback ports and its
// homes written under a temp dir the test removes.
func Testnet(t *testing.T, spec scenario.Testnet) *testnet.Testnet {
	t.Helper()
	t.Setenv("CHAINPERF_REGISTRY", t.TempDir())
	dir := t.TempDir()
	probe := testnet.New(spec, "tn-000000", dir, "127.0.0.1", 0)
	base, err := TestBlock(probe.PortCount())
	if err != nil {
		t.Fatal(err)
	}
	tn := testnet.New(spec, testnet.NewID(), dir, "127.0.0.1", base)
	return tn
}

// Setup writes tn's homes (after a provider placed its nodes).
func Setup(t *testing.T, tn *testnet.Testnet) {
	t.Helper()
	if err := tn.Setup(); err != nil {
		t.Fatal(err)
	}
}

// NoProcessUnder fails t when a process's command line names dir (a node
// whose home is there still runs).
func NoProcessUnder(t *testing.T, dir string) {
	t.Helper()
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err == nil && bytes.Contains(data, []byte(dir)) {
			t.Errorf("%s still runs: %s", filepath.Dir(p), bytes.ReplaceAll(data, []byte{0}, []byte{' '}))
		}
	}
}

// ProviderTestPorts to ProviderTestPortsEnd is where these tests' testnets
// take their ports: apart from chainperf's automatic blocks
// (testnet.FirstAutoPort up) and the command tests' lanes (11000-26500),
// which tests running beside these in other processes take, and below
// Linux's ephemeral ports (32768 up) and the local cluster's NodePorts
// (30000 up). A port is free when probed and bound by its node only later:
// an outgoing connection's ephemeral port could take it meanwhile (the
// likely cause of a CI run's process conformance chain that made no block
// with its ports at 41000).
const (
	ProviderTestPorts    = 28000
	ProviderTestPortsEnd = 30000
)

// TestBlock is the first block of count free ports from ProviderTestPorts,
// for a test that starts nodes on 127.0.0.1.
func TestBlock(count int) (int, error) {
	for b := ProviderTestPorts; b+count <= ProviderTestPortsEnd; b += count {
		if base, err := testnet.AllocatePorts("127.0.0.1", b, count); err == nil {
			return base, nil
		}
	}
	return 0, fmt.Errorf("no block of %d free ports from %d", count, ProviderTestPorts)
}
