package sdkchain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mnemonic = "abandon ability able about above absent absorb abstract absurd abuse access accident acoustic acquire across"

// TestKeysAddNeverEchoesTheMnemonic: the operator key's address is read
// from keys add's JSON; when there is none, the error does not quote the
// output, and a failing command's stderr has its mnemonic removed.
func TestKeysAddNeverEchoesTheMnemonic(t *testing.T) {
	addr, err := operatorAddress([]byte("WARNING: something\n{\"name\":\"operator\",\"address\":\"cosmos1abc\",\"mnemonic\":\"" + mnemonic + "\"}\n"))
	if err != nil || addr != "cosmos1abc" {
		t.Fatalf("address %q, %v", addr, err)
	}
	_, err = operatorAddress([]byte("{\"name\":\"operator\",\"mnemonic\":\"" + mnemonic + "\"}\n" + mnemonic))
	if err == nil || strings.Contains(err.Error(), "abandon") {
		t.Fatalf("no address: %v", err)
	}
	// A chain binary that fails after printing its mnemonic.
	bin := filepath.Join(t.TempDir(), "fakechaind")
	os.WriteFile(bin, []byte("#!/bin/sh\necho '{\"mnemonic\":\""+mnemonic+"\"}' >&2\necho \"**Important** write this mnemonic\" >&2\necho '"+mnemonic+"' >&2\nexit 1\n"), 0o755)
	_, err = cli(context.Background(), bin, "keys", "add", "operator")
	if err == nil || strings.Contains(err.Error(), "abandon") || !strings.Contains(err.Error(), "[mnemonic removed]") {
		t.Fatalf("failing keys add: %v", err)
	}
	if !strings.Contains(err.Error(), "write this mnemonic") {
		t.Fatalf("the rest of stderr should stay: %v", err)
	}
}
