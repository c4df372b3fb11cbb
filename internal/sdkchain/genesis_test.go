package sdkchain

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/cosmos"
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

// The scenario's own accounts are funded after the wallets, each with the
// wallets' balance; an address of another chain is refused by its index.
func TestFundAccountsOfTheScenario(t *testing.T) {
	path := filepath.Join(t.TempDir(), "genesis.json")
	genesis := `{"chain_id":"c","app_state":{"auth":{"params":{},"accounts":[]},"bank":{"params":{},"balances":[],"supply":[],"denom_metadata":[],"send_enabled":[]}}}`
	os.WriteFile(path, []byte(genesis), 0o644)
	ws, err := cosmos.Wallets("s", 2, "wasm", 0)
	if err != nil {
		t.Fatal(err)
	}
	spec := cosmos.Config{Bech32Prefix: "wasm", Denom: "stake", WalletBalance: 77, Accounts: []string{ws[0].Address, ws[1].Address}}
	if err := fundAccounts(path, spec); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, w := range ws {
		if !strings.Contains(string(b), `"address":"`+w.Address+`","coins":[{"denom":"stake","amount":"77"}]`) {
			t.Errorf("%s not funded with 77stake: %s", w.Address, b)
		}
	}
	if !strings.Contains(string(b), `"supply":[{"denom":"stake","amount":"154"}]`) {
		t.Errorf("supply: %s", b)
	}
	os.WriteFile(path, []byte(genesis), 0o644)
	other, _ := cosmos.Wallets("s", 1, "cosmos", 0)
	spec.Accounts = []string{ws[0].Address, other[0].Address}
	if err := fundAccounts(path, spec); err == nil || !strings.Contains(err.Error(), "testnet.cosmos.accounts[1]: "+other[0].Address+" is not an address of this chain, whose addresses begin wasm1") {
		t.Errorf("another chain's address: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != genesis {
		t.Errorf("a refused account changed genesis: %s", b)
	}
}
