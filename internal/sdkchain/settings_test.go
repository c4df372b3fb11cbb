package sdkchain

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const genesisDoc = `{"chain_id":"c","consensus":{"params":{"block":{"max_bytes":"22020096","max_gas":"-1"},
"abci":{"vote_extensions_enable_height":"0"}}},
"app_state":{"mint":{"params":{"inflation_max":"0.200000000000000000","blocks_per_year":"6311520"}},
"bank":{"params":{"default_send_enabled":true}},"gov":{"params":{"min_deposit":[{"denom":"stake","amount":"1"}]}},
"distribution":{"params":{"community_tax":"0.020000000000000000"}},"staking":{"params":{"max_validators":100}}}}`

func TestPatchGenesis(t *testing.T) {
	p := filepath.Join(t.TempDir(), "genesis.json")
	os.WriteFile(p, []byte(genesisDoc), 0o644)
	s := Settings{Genesis: map[string]any{
		"consensus.params.block.max_gas":             int64(50_000_000),
		"app_state.mint.params.inflation_max":        0.5,
		"app_state.bank.params.default_send_enabled": false,
		"app_state.staking.params.max_validators":    int64(7),
	}, Pos: func(k string) string { return "x.toml:9" }}
	if err := s.PatchGenesis(p, "wasmd"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Consensus struct {
			Params struct {
				Block struct {
					MaxGas string `json:"max_gas"`
				}
			}
		}
		AppState struct {
			Mint struct {
				Params struct {
					InflationMax string `json:"inflation_max"`
				}
			}
			Bank struct {
				Params struct {
					DefaultSendEnabled bool `json:"default_send_enabled"`
				}
			}
			Staking struct {
				Params struct {
					MaxValidators json.Number `json:"max_validators"`
				}
			}
		} `json:"app_state"`
	}
	b, _ := os.ReadFile(p)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Consensus.Params.Block.MaxGas != "50000000" || doc.AppState.Mint.Params.InflationMax != "0.5" ||
		doc.AppState.Bank.Params.DefaultSendEnabled || doc.AppState.Staking.Params.MaxValidators != "7" {
		t.Fatalf("patched: %s", b)
	}
	if !strings.Contains(string(b), `"chain_id": "c"`) {
		t.Fatalf("other keys lost: %s", b)
	}
}

// Every bad key and value is reported at once, with the scenario's line,
// the nearest key the chain's file has, or the type it wants.
func TestPatchGenesisRefusals(t *testing.T) {
	p := filepath.Join(t.TempDir(), "genesis.json")
	os.WriteFile(p, []byte(genesisDoc), 0o644)
	s := Settings{Genesis: map[string]any{
		"consensus.params.block.max_gass":         int64(1),
		"app_state.mint.params.inflation_max":     "lots",
		"app_state.bank.params":                   int64(1),
		"app_state.staking.params.max_validators": "seven",
	}, Pos: func(k string) string { return "x.toml:9" }}
	err := s.PatchGenesis(p, "wasmd")
	if err == nil {
		t.Fatal("bad patches taken")
	}
	for _, want := range []string{
		`x.toml:9: testnet.genesis.consensus.params.block.max_gass: wasmd's genesis has no "consensus.params.block.max_gass" (did you mean "consensus.params.block.max_gas"?)`,
		`inflation_max: want a number (the file has "0.200000000000000000"), got the string "lots"`,
		`app_state.bank.params: is a table in the file`,
		`max_validators: want a number (the file has 100), got the string "seven"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != genesisDoc {
		t.Error("a refused patch changed the file")
	}
}

func TestAppTomlSettings(t *testing.T) {
	p := filepath.Join(t.TempDir(), "app.toml")
	os.WriteFile(p, []byte("minimum-gas-prices = \"\"\niavl-cache-size = 781250\n\n[mempool]\nmax-txs = -1\n\n[state-sync]\nsnapshot-interval = 0\n\n[telemetry]\nenabled = false\nglobal-labels = []\n"), 0o644)
	s := Settings{App: map[string]any{"iavl-cache-size": int64(100), "mempool.max-txs": int64(5000), "telemetry.enabled": true}}
	edits, err := s.appTomlEdits(p, "wasmd")
	if err != nil {
		t.Fatal(err)
	}
	if err := editAppToml(p, edits); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	for _, want := range []string{"iavl-cache-size = 100\n", "max-txs = 5000\n", "enabled = true\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("app.toml lacks %q:\n%s", want, b)
		}
	}
	bad := Settings{App: map[string]any{"mempool.max-tx": int64(1), "iavl-cache-size": "big", "telemetry.enabled": int64(1), "minimum-gas-prices": "1stake"}}
	_, err = bad.appTomlEdits(p, "wasmd")
	for _, want := range []string{`wasmd's app.toml has no "mempool.max-tx" (did you mean "mempool.max-txs"?)`, "iavl-cache-size: want an integer", "telemetry.enabled: want true or false",
		"testnet.app.minimum-gas-prices: is set by chainperf on every node"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// The address prefix is read from the address the chain's own keys
// command prints (beside a warning); a prefix the scenario gives must be
// the chain's.
func TestAddressPrefix(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "appd")
	os.WriteFile(bin, []byte("#!/bin/sh\necho 'WARNING: keyring test' >&2\necho wasm1qyqszqgpqyqszqgpqyqszqgpqyqszqgpjnp7du\n"), 0o755)
	got, err := addressPrefix(context.Background(), bin, t.TempDir())
	if err != nil || got != "wasm" {
		t.Fatalf("prefix %q %v; want wasm", got, err)
	}
	if p, err := prefix("", "wasm", "appd"); err != nil || p != "wasm" {
		t.Errorf("unset: %q %v", p, err)
	}
	if p, err := prefix("wasm", "wasm", "appd"); err != nil || p != "wasm" {
		t.Errorf("the chain's own: %q %v", p, err)
	}
	if _, err := prefix("cosmos", "wasm", "appd"); err == nil || !strings.Contains(err.Error(), `appd makes addresses with "wasm"`) {
		t.Errorf("a prefix not the chain's: %v", err)
	}
	os.WriteFile(bin, []byte("#!/bin/sh\necho not-an-address\n"), 0o755)
	if _, err := addressPrefix(context.Background(), bin, t.TempDir()); err == nil {
		t.Error("no address read as a prefix")
	}
}
