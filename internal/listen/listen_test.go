package listen

import (
	"strings"
	"testing"
)

func TestListenRefusesOtherMachinesUnlessAsked(t *testing.T) {
	if _, _, err := Open("--addr", "0.0.0.0:0", false); err == nil || !strings.Contains(err.Error(), "--allow-remote") {
		t.Fatalf("0.0.0.0 without --allow-remote: %v", err)
	}
	l, warning, err := Open("--addr", "0.0.0.0:0", true)
	if err != nil || !strings.Contains(warning, "no login") {
		t.Fatalf("with --allow-remote: %v %q", err, warning)
	}
	l.Close()
	l, warning, err = Open("--addr", "127.0.0.1:0", false)
	if err != nil || warning != "" {
		t.Fatalf("loopback: %v %q", err, warning)
	}
	defer l.Close()
	if _, _, err := Open("--addr", l.Addr().String(), false); err == nil || !strings.Contains(err.Error(), "taken") {
		t.Fatalf("a port in use: %v", err)
	}
	if _, _, err := Open("--addr", "nonsense", false); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Fatalf("bad addr: %v", err)
	}
}
