package sdkchain

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bond denom is read from init's genesis; a genesis without a staking
// module (an Interchain Security consumer's) says why chainperf cannot make
// its validators, instead of asking for a denom that would not help.
func TestBondDenom(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ genesis, want, err string }{
		{`{"app_state":{"staking":{"params":{"bond_denom":"utia"}}}}`, "utia", ""},
		{`{"app_state":{"staking":{"params":{}}}}`, "", "set testnet.cosmos.denom"},
		{`{"app_state":{"bank":{},"ccvconsumer":{}}}`, "", "no staking module"},
		{`{"app_state":`, "", "genesis.json"},
	} {
		path := filepath.Join(dir, "genesis.json")
		os.WriteFile(path, []byte(c.genesis), 0o644)
		got, err := BondDenom(path)
		if got != c.want || (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %q, %v; want %q, an error with %q", c.genesis, got, err, c.want, c.err)
		}
	}
	os.WriteFile(filepath.Join(dir, "genesis.json"), []byte(`{"app_state":{}}`), 0o644)
	if _, err := BondDenom(filepath.Join(dir, "genesis.json")); !errors.Is(err, ErrNoStaking) {
		t.Errorf("no staking: %v", err)
	}
}

// A gentx pays its gas at the scenario's price, rounded up to a whole unit:
// a chain that checks its minimum gas price on genesis txs (Celestia's)
// refuses a free one at its first block.
func TestGentxFee(t *testing.T) {
	for price, want := range map[float64]string{0: "<nil>", 0.001: "200", 0.002: "400", 0.0000001: "1", 0.25: "50000"} {
		if got := GentxFee(price).String(); got != want {
			t.Errorf("gas price %g: fee %s, want %s", price, got, want)
		}
	}
}
