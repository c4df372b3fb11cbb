package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseModule(t *testing.T) {
	for _, c := range []struct{ spec, pkg, version, err string }{
		{"module:github.com/cometbft/cometbft/cmd/cometbft@v1.0.1", "github.com/cometbft/cometbft/cmd/cometbft", "v1.0.1", ""},
		{"module:github.com/cometbft/cometbft/cmd/cometbft@v1.0.0-rc1", "github.com/cometbft/cometbft/cmd/cometbft", "v1.0.0-rc1", ""},
		{"module:github.com/cometbft/cometbft/cmd/cometbft", "", "", "write module:PACKAGE@VERSION"},
		{"module:github.com/cometbft/cometbft/cmd/cometbft@latest", "", "", "not a released version"},
		{"module:github.com/cometbft/cometbft/cmd/cometbft@v1.0", "", "", "not a released version"},
		{"module:github.com/cometbft/cometbft/cmd/cometbft@main", "", "", "not a released version"},
		{"module:../cmd/cometbft@v1.0.1", "", "", "invalid"},
		{"module:@v1.0.1", "", "", "write module:PACKAGE@VERSION"},
		{"/usr/bin/cometbft", "", "", "does not start with"},
	} {
		pkg, version, err := ParseModule(c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v; want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || pkg != c.pkg || version != c.version {
			t.Errorf("%s: %q %q %v", c.spec, pkg, version, err)
		}
	}
}

// The kvstore probe reads the node's own start help: a node that offers
// proxy_app 'kvstore' passes; one with a proxy_app flag but no built-in
// kvstore, and a binary with no start command at all, are refused.
func TestProbeKVStore(t *testing.T) {
	dir := t.TempDir()
	script := func(name, help string, exit int) string {
		p := filepath.Join(dir, name)
		text := "#!/bin/sh\ncat <<'END'\n" + help + "\nEND\nexit " + string(rune('0'+exit)) + "\n"
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ctx := context.Background()
	good := script("good", "      --proxy_app string   proxy app address, or one of: 'kvstore', 'persistent_kvstore' or 'noop' for local testing.", 0)
	if err := probeKVStore(ctx, good); err != nil {
		t.Errorf("a node with kvstore refused: %v", err)
	}
	noKV := script("nokv", "      --proxy_app string   proxy app address", 0)
	if err := probeKVStore(ctx, noKV); err == nil || !strings.Contains(err.Error(), "no built-in kvstore app") {
		t.Errorf("a node without kvstore: %v", err)
	}
	notNode := script("notnode", "unknown command \"start\"", 1)
	if err := probeKVStore(ctx, notNode); err == nil || !strings.Contains(err.Error(), "not a CometBFT node binary") {
		t.Errorf("not a node: %v", err)
	}
}
