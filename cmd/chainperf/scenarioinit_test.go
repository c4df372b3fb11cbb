package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/sdkchain"
)

// scenario init on chainperf's two test chains: the SDK chain's file is a
// Cosmos scenario with its denom and prefix, the EVM chain's an EVM one
// (TestThirdPartyChains runs init's file of a wasmd release to PASS). What
// is not an SDK application, and flags that do not name one chain, are
// refused, with nothing written.
func TestScenarioInit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test chains' binaries (built when not at hand)")
	}
	t.Parallel()
	for _, c := range []struct {
		chain sdkchain.TestChain
		want  []string
	}{
		{sdkchain.SDKD, []string{`chain = "cosmos"`, `denom = 'stake'`, `bech32_prefix = 'cosmos'`, `kind = "cosmos-send"`}},
		{sdkchain.EVMD, []string{`chain = "evm"`, "[testnet.evm]", `kind = "evm-transfer"`}},
	} {
		bin, err := c.chain.Find(context.Background(), "", t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		text := initScenario(t, "--binary", bin)
		for _, w := range append(c.want, "binary = '"+bin+"'") {
			if !strings.Contains(text, w) {
				t.Errorf("%s: no %s in\n%s", c.chain.Name, w, text)
			}
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "x.toml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "one of the two"},
		{[]string{"--binary", "/bin/true", "--dir", "."}, "one of the two"},
		{[]string{"--dir", "."}, "--dir needs --ref"},
		{[]string{"--binary", "/bin/true"}, "not the SDK's version JSON"},
		{[]string{"--binary", filepath.Join(dir, "nothing")}, "nothing"},
	} {
		out, code := cli(t, t.TempDir(), append([]string{"scenario", "init", file}, c.args...)...)
		if code == 0 || !strings.Contains(out, c.want) {
			t.Errorf("init %v: exit %d; want an error with %q\n%s", c.args, code, c.want, out)
		}
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("init %v wrote %s", c.args, file)
		}
	}
}
