package chain

import (
	"path/filepath"
	"testing"

	"github.com/cometbft/cometbft/config"

	"github.com/chainperf/chainperf/internal/cometcfg"
)

// The application mempool's type is asked for only where the chain's
// CometBFT has it: v0.39's default config (chainperf-evmd v0.7.3's) has
// it, v0.38's (a Cosmos EVM v0.6 chain's, and chainperf's own) does not.
func TestHasAppMempool(t *testing.T) {
	v038 := filepath.Join(t.TempDir(), "config.toml")
	config.WriteConfigFile(v038, config.DefaultConfig())
	for _, c := range []struct {
		path string
		want bool
	}{
		{filepath.Join("..", "testnet", "testdata", "cometbft-v0.39.3-config.toml"), true},
		{v038, false},
	} {
		tmpl, err := cometcfg.ReadTemplate(c.path, "cometbft")
		if err != nil {
			t.Fatal(err)
		}
		if got := hasAppMempool(tmpl); got != c.want {
			t.Errorf("%s: application mempool %v, want %v", c.path, got, c.want)
		}
	}
}
