package sdkchain

import (
	"context"
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for _, c := range []struct {
		name, out string
		want      Identity
		err       string
	}{
		{"SDK v0.54 names itself", `{"name":"","server_name":"<appd>","version":"","cosmos_sdk_version":"v0.54.3","build_deps":["github.com/cosmos/evm@v0.7.3"]}`,
			Identity{SDK: "v0.54.3", EVM: "v0.7.3"}, ""},
		{"a replaced SDK is the one built", `{"name":"wasmd","server_name":"wasmd","version":"v0.61.14","build_deps":["github.com/CosmWasm/wasmvm/v3@v3.0.7","github.com/cosmos/cosmos-sdk@v0.53.6 => github.com/cosmos/cosmos-sdk@v0.53.8"]}`,
			Identity{Name: "wasmd", Version: "v0.61.14", SDK: "v0.53.8"}, ""},
		{"a warning line before the JSON", "WARNING: config\n" + `{"name":"gaiad","version":"v25.0.0","build_deps":["github.com/CosmWasm/wasmd@v0.60.0","github.com/cosmos/cosmos-sdk@v0.53.0 => ../sdk"]}`,
			Identity{Name: "gaiad", Version: "v25.0.0", SDK: "local ../sdk", Wasm: "v0.60.0"}, ""},
		{"a CometBFT node is not an SDK application", `{"name":"x","build_deps":["github.com/cometbft/cometbft@v0.38.19"]}`, Identity{}, "no Cosmos SDK"},
		{"not JSON", "0.38.19\n", Identity{}, "not the SDK's version JSON"},
	} {
		id, err := parseVersion([]byte(c.out))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %+v, %v; want an error with %q", c.name, id, err, c.err)
			}
			continue
		}
		if err != nil || id != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, id, err, c.want)
		}
	}
	if got := (Identity{Name: "gaiad", Version: "v25.0.0", SDK: "v0.53.0", Wasm: "v0.60.0"}).About(); got != "gaiad v25.0.0 (Cosmos SDK v0.53.0, wasmd v0.60.0)" {
		t.Errorf("About: %q", got)
	}
}

// chainperf's two test chains say what they are: the SDK chain's bond
// denom and prefix as its init and keys make them, the EVM chain as one.
func TestIdentifyTestChains(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test chains' binaries (built when not at hand)")
	}
	for _, c := range []struct {
		chain       TestChain
		evm         bool
		denom, pref string
	}{{SDKD, false, "stake", "cosmos"}, {EVMD, true, "", ""}} {
		bin, err := c.chain.Find(context.Background(), "", t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		id, err := Identify(context.Background(), bin)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %+v", c.chain.Name, id)
		if id.SDK == "" || (id.EVM != "") != c.evm || id.Denom == "" || id.Prefix == "" ||
			c.denom != "" && (id.Denom != c.denom || id.Prefix != c.pref) {
			t.Errorf("%s: %+v; want EVM %v, denom %q, prefix %q", c.chain.Name, id, c.evm, c.denom, c.pref)
		}
	}
	if _, err := Identify(context.Background(), "/bin/true"); err == nil || !strings.Contains(err.Error(), "not") {
		t.Errorf("/bin/true identified: %v", err)
	}
}
