package chain

import (
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/sdkchain"
)

// What init writes is a scenario the parser takes, of the chain kind the
// binary is, with what the binary said; a name or path with a line break
// stays inside its comment.
func TestScenarioFor(t *testing.T) {
	tree := t.TempDir()
	for _, c := range []struct {
		id   sdkchain.Identity
		src  AppSource
		kind string
		want []string
	}{
		{sdkchain.Identity{Name: "wasmd", Version: "v0.70.3", SDK: "v0.54.0", Denom: "stake", Prefix: "wasm"},
			AppSource{Binary: "module:github.com/CosmWasm/wasmd/cmd/wasmd@v0.70.3"}, "cosmos",
			[]string{`name = 'wasmd-send'`, `bech32_prefix = 'wasm'`, `kind = "cosmos-send"`}},
		{sdkchain.Identity{Name: "evmd\n[load]\nrate = 1", SDK: "v0.54.3", EVM: "v0.7.3", Denom: "atest", Prefix: "cosmos"},
			AppSource{Dir: tree, Ref: "main", Package: "./evmd/cmd/evmd"}, "evm",
			[]string{`kind = "evm-transfer"`, "[testnet.evm.build]", `ref = 'main'`}},
	} {
		text := ScenarioFor(c.id, c.src, "x.toml")
		s, err := scenario.Parse("x.toml", text)
		if err != nil {
			t.Fatalf("%s\n%s", err, text)
		}
		if s.Testnet.Chain != c.kind || s.Load.Rate != 100 {
			t.Errorf("chain %q, rate %v; want %q at 100\n%s", s.Testnet.Chain, s.Load.Rate, c.kind, text)
		}
		for _, w := range c.want {
			if !strings.Contains(string(text), w) {
				t.Errorf("no %q in\n%s", w, text)
			}
		}
	}
}
