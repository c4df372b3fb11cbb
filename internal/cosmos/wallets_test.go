package cosmos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/load"
)

// TestUnkeyedWalletsSignAsKeyedOnes checks that a workload over wallets
// without keys derives each signer's key when it first signs and makes the
// very txs the keyed wallets make, and refuses a derivation that does not
// give the wallet's address.
func TestUnkeyedWalletsSignAsKeyedOnes(t *testing.T) {
	const n = 6
	keyed, err := Wallets("w", n, "cosmos", 3)
	if err != nil {
		t.Fatal(err)
	}
	unkeyed, err := Unkeyed("w", n, "cosmos", 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range unkeyed {
		if unkeyed[i].Key != nil || unkeyed[i].PubKey != nil || unkeyed[i].Address != keyed[i].Address || unkeyed[i].Number != keyed[i].Number {
			t.Fatalf("unkeyed wallet %d = %+v, keyed %+v", i, unkeyed[i], keyed[i])
		}
	}
	cfg := func(keys func(int) (Wallet, error)) WorkloadConfig {
		return WorkloadConfig{Kind: KindSend, ChainID: "c", Denom: "stake", Mix: []MixEntry{{Msg: MsgSendKind, Weight: 1, Amount: 1}},
			GasLimit: 100000, Fee: 10, Funded: 1000, Senders: load.Uniform{N: n, Seed: 1}, Receivers: load.Uniform{N: n, Seed: 2}, Keys: keys}
	}
	txs := func(c WorkloadConfig, ws []Wallet) ([][]byte, error) {
		w, err := NewWorkload(c, ws)
		if err != nil {
			return nil, err
		}
		if err := w.Prepare(context.Background(), 20); err != nil {
			return nil, err
		}
		return w.pre, nil
	}
	want, err := txs(cfg(nil), keyed)
	if err != nil {
		t.Fatal(err)
	}
	got, err := txs(cfg(KeysOf("w", "cosmos")), unkeyed)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("tx %d differs between keyed and unkeyed wallets", i)
		}
	}
	if _, err := txs(cfg(nil), unkeyed); err == nil || !strings.Contains(err.Error(), "no way to derive them") {
		t.Fatalf("unkeyed wallets and no Keys: %v", err)
	}
	if _, err := txs(cfg(KeysOf("other", "cosmos")), unkeyed); err == nil || !strings.Contains(err.Error(), "its key derives") {
		t.Fatalf("keys of another seed: %v", err)
	}
	var b Builder
	if _, err := b.Append(nil, &TxSpec{ChainID: "c"}, &unkeyed[0], 0); err == nil || !strings.Contains(err.Error(), "no key to sign with") {
		t.Fatalf("signing with an unkeyed wallet: %v", err)
	}
}

// TestFundAccountsStreams funds many accounts from an iterator and checks
// the file is the genesis it was with them added; bad addresses, a short
// count and a genesis that holds the writer's stand-ins leave the file as
// it was.
func TestFundAccountsStreams(t *testing.T) {
	path := filepath.Join(t.TempDir(), "genesis.json")
	if err := os.WriteFile(path, []byte(genesisOf), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 5000
	gen := func(count int, bad string) Addresses {
		return func(yield func(string) error) error {
			for i := range count {
				a := fmt.Sprintf("cosmos1q%08d", i)
				if i == 7 && bad != "" {
					a = bad
				}
				if err := yield(a); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, c := range []struct {
		name  string
		addrs Addresses
		want  string
	}{
		{"a quote in an address", gen(n, `cosmos1"x`), "is not bech32"},
		{"fewer than said", gen(n-1, ""), "4999 addresses to fund, not 5000"},
		{"more than said", gen(n+1, ""), "more than the 5000 addresses"},
	} {
		if _, _, err := FundAccounts(path, n, c.addrs, "stake", big.NewInt(7)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v", c.name, err)
		}
		if b, _ := os.ReadFile(path); string(b) != genesisOf {
			t.Fatalf("%s: the genesis changed", c.name)
		}
	}
	first, size, err := FundAccounts(path, n, gen(n, ""), "stake", big.NewInt(7))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		AppState struct {
			Auth struct {
				Accounts []struct {
					Address       string `json:"address"`
					AccountNumber string `json:"account_number"`
				} `json:"accounts"`
			} `json:"auth"`
			Bank struct {
				Balances []struct {
					Address string
					Coins   []struct{ Denom, Amount string }
				} `json:"balances"`
				Supply []struct{ Denom, Amount string } `json:"supply"`
			} `json:"bank"`
		} `json:"app_state"`
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &g); err != nil || int64(len(b)) != size {
		t.Fatalf("%d bytes (said %d): %v", len(b), size, err)
	}
	acc, bal := g.AppState.Auth.Accounts, g.AppState.Bank.Balances
	if first != 2 || len(acc) != n+2 || len(bal) != n+2 || acc[n+1].AccountNumber != "5001" || acc[n+1].Address != "cosmos1q00004999" || bal[n+1].Address != "cosmos1q00004999" ||
		bal[n+1].Coins[0].Amount != "7" || g.AppState.Bank.Supply[0].Amount != "35200" {
		t.Fatalf("first %d, %d accounts (last %+v), %d balances (last %+v), supply %+v", first, len(acc), acc[len(acc)-1], len(bal), bal[len(bal)-1], g.AppState.Bank.Supply)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if err := os.WriteFile(path, []byte(strings.Replace(genesisOf, `"c"`, `"@chainperf:accounts@"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := FundAccounts(path, 1, gen(1, ""), "stake", big.NewInt(7)); err == nil || !strings.Contains(err.Error(), "stand-in") {
		t.Fatalf("a genesis holding the stand-in: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".funding-*")); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// BenchmarkFundAccounts writes a million accounts into a genesis (the
// streaming writer alone; addresses made up, not derived):
//
//	go test -run X -bench FundAccounts -benchtime 1x -benchmem ./internal/cosmos/
func BenchmarkFundAccounts(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "genesis.json")
	addrs := func(yield func(string) error) error {
		var buf []byte
		for i := range n {
			buf = fmt.Appendf(buf[:0], "cosmos1qqqqqqqqqqqqqqqqqqqqqqqqqqqq%010d", i)
			if err := yield(string(buf)); err != nil {
				return err
			}
		}
		return nil
	}
	for b.Loop() {
		if err := os.WriteFile(path, []byte(genesisOf), 0o644); err != nil {
			b.Fatal(err)
		}
		_, size, err := FundAccounts(path, n, addrs, "stake", big.NewInt(1_000_000_000_000))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(size)/1e6, "MB")
	}
}

// BenchmarkUnkeyedWallets derives a million wallets' addresses on every
// core (what a state built from genesis costs chainperf before funding):
//
//	go test -run X -bench UnkeyedWallets -benchtime 1x -benchmem ./internal/cosmos/
func BenchmarkUnkeyedWallets(b *testing.B) {
	for b.Loop() {
		if _, err := Unkeyed("bench", 1_000_000, "cosmos", 0); err != nil {
			b.Fatal(err)
		}
	}
}

// A mnemonic of a seed and a name is the same every time, another for
// another name or seed, and one BIP-39 takes back (24 words).
func TestMnemonicOf(t *testing.T) {
	a, b := MnemonicOf("chainperf", "relayer"), MnemonicOf("chainperf", "relayer")
	if a != b || len(strings.Fields(a)) != 24 {
		t.Fatalf("%d words, repeatable %v", len(strings.Fields(a)), a == b)
	}
	if a == MnemonicOf("chainperf", "relayer2") || a == MnemonicOf("other", "relayer") {
		t.Error("the same mnemonic for another name or seed")
	}
	if _, err := FromMnemonic(a, DefaultHDPath, "wasm"); err != nil {
		t.Error(err)
	}
}
