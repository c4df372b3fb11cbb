package testnet

import (
	"strings"
	"testing"
)

// TestFirstPort: CHAINPERF_FIRST_PORT moves the automatic search (two
// harnesses with registries of their own take apart ranges); a value that
// is not a port is an error that names the variable, never a silent
// default.
func TestFirstPort(t *testing.T) {
	t.Setenv("CHAINPERF_REGISTRY", t.TempDir())
	t.Setenv("CHAINPERF_FIRST_PORT", "")
	if p, err := FirstPort(); err != nil || p != FirstAutoPort {
		t.Errorf("unset: %d, %v; want %d", p, err, FirstAutoPort)
	}
	t.Setenv("CHAINPERF_FIRST_PORT", "33000")
	if b, err := AllocatePorts("127.0.0.1", 0, 6); err != nil || b < 33000 || b > 33100 {
		t.Errorf("from 33000: block at %d, %v; want 33000 or just above", b, err)
	}
	for _, bad := range []string{"x", "80", "70000", "-1", "33000 "} {
		t.Setenv("CHAINPERF_FIRST_PORT", bad)
		if _, err := AllocatePorts("127.0.0.1", 0, 6); err == nil || !strings.Contains(err.Error(), "CHAINPERF_FIRST_PORT") {
			t.Errorf("%q: %v; want an error naming CHAINPERF_FIRST_PORT", bad, err)
		}
	}
}
