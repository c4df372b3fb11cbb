package sdkchain

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/cosmos"
	bip39 "github.com/cosmos/go-bip39"
)

// TestMnemonicAsTheSDKDerivesIt: the funder's key chainperf derives from a
// mnemonic is the one the SDK's keyring recovers from it (chainperf-sdkd
// keys add --recover), on the default path and on another account index.
func TestMnemonicAsTheSDKDerivesIt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds chainperf-sdkd")
	}
	bin, err := SDKD.Find(context.Background(), "", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"}
	for _, bits := range []int{128, 256} {
		e, _ := bip39.NewEntropy(bits)
		m, _ := bip39.NewMnemonic(e)
		words = append(words, m)
	}
	words = append(words, cosmos.MnemonicOf("chainperf", "relayer")) // the relayer's: Hermes recovers it as the SDK does
	for i, m := range words {
		for _, path := range []string{cosmos.DefaultHDPath, "m/44'/118'/3'/0/7"} {
			w, err := cosmos.FromMnemonic("  "+m+"\n", path, "cosmos")
			if err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			cmd := exec.Command(bin, "keys", "add", "k", "--recover", "--hd-path", path, "--keyring-backend", "test", "--home", home, "--output", "json")
			cmd.Stdin = strings.NewReader(m + "\n")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("keys add --recover: %v", err)
			}
			var got struct{ Address string }
			if err := json.Unmarshal(out[strings.IndexByte(string(out), '{'):], &got); err != nil {
				t.Fatalf("keys add output: %v", err)
			}
			if got.Address != w.Address {
				t.Errorf("mnemonic %d, %s: chainperf derives %s, the SDK %s", i, path, w.Address, got.Address)
			}
			// The same key exported as hex is the same funder.
			exp := exec.Command(bin, "keys", "export", "k", "--unarmored-hex", "--unsafe", "--keyring-backend", "test", "--home", home)
			exp.Stdin = strings.NewReader("y\n")
			hexKey, err := exp.Output()
			if err != nil {
				t.Fatalf("keys export: %v", err)
			}
			if k, err := cosmos.FromSecret(string(hexKey), cosmos.DefaultHDPath, "cosmos"); err != nil || k.Address != got.Address {
				t.Errorf("mnemonic %d, %s: the exported hex key gives %s (%v), the SDK %s", i, path, k.Address, err, got.Address)
			}
		}
	}
	// A bad word or checksum, a bad path: errors that do not quote the words.
	bad := strings.Replace(words[0], "about", "abort", 1)
	if _, err := cosmos.FromMnemonic(bad, cosmos.DefaultHDPath, "cosmos"); err == nil || strings.Contains(err.Error(), "abandon") {
		t.Errorf("bad checksum: %v", err)
	}
	for _, p := range []string{"44'/118'", "m/x", "m/4294967295"} {
		if _, err := cosmos.FromMnemonic(words[0], p, "cosmos"); err == nil {
			t.Errorf("path %q accepted", p)
		}
	}
}

// HasStartFlag reads a chain binary's start command: chainperf-sdkd's (the
// Cosmos SDK's) takes --mempool.max-txs, not a flag it never had, nor a
// prefix of one.
func TestHasStartFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds chainperf-sdkd")
	}
	bin, err := SDKD.Find(context.Background(), "", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if !HasStartFlag(ctx, bin, "--mempool.max-txs") || HasStartFlag(ctx, bin, "--mempool.max-txs-nope") || HasStartFlag(ctx, bin, "--mempool.max") {
		t.Error("start --help read wrong")
	}
	if HasStartFlag(ctx, "/nonexistent/chaind", "--home") {
		t.Error("a binary that does not run has a flag")
	}
}
