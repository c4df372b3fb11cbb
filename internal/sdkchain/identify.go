package sdkchain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// An Identity is what a chain's binary says of itself: its name and
// version, the Cosmos SDK (and Cosmos EVM, CosmWasm) it was built with,
// and the staking denom and address prefix its own init and keys make.
type Identity struct {
	Name, Version string // the application's, as `version --long` prints them
	SDK           string // the Cosmos SDK version it was built with
	EVM           string // github.com/cosmos/evm's version ("": none)
	Wasm          string // github.com/CosmWasm/wasmd's version ("": none)
	Denom         string // app_state.staking.params.bond_denom of its init's genesis
	Prefix        string // the bech32 prefix of the addresses its keys make
}

// About is the identity on one line: "wasmd v0.70.3 (Cosmos SDK v0.54.0)".
func (id Identity) About() string {
	name := strings.TrimSpace(id.Name + " " + id.Version)
	parts := []string{"Cosmos SDK " + id.SDK}
	if id.EVM != "" {
		parts = append(parts, "Cosmos EVM "+id.EVM)
	}
	if id.Wasm != "" && id.Name != "wasmd" {
		parts = append(parts, "wasmd "+id.Wasm)
	}
	return fmt.Sprintf("%s (%s)", name, strings.Join(parts, ", "))
}

// identifyTime bounds each command Identify runs: init and keys of an SDK
// chain take a second or two.
const identifyTime = time.Minute

// Identify asks binary what it is: `version --long --output json`, then
// `init` and `keys add` in a home of its own (removed after) for the
// denom and prefix a run would read. A binary that is not a Cosmos SDK
// application (no cosmos-sdk among its build dependencies) is an error
// that says so.
func Identify(ctx context.Context, binary string) (Identity, error) {
	ctx, cancel := context.WithTimeout(ctx, identifyTime)
	defer cancel()
	// A CometBFT node of its own is no SDK application: its scenario names
	// it in testnet.binary.
	const notSDK = "; a CometBFT node (its own application inside) is testnet.binary (`chainperf scenario default` shows it)"
	out, err := cli(ctx, binary, "version", "--long", "--output", "json")
	if err != nil {
		return Identity{}, fmt.Errorf("%s is not a Cosmos SDK application chainperf can ask (`version --long --output json`): %w%s", binary, err, notSDK)
	}
	id, err := parseVersion(out)
	if err != nil {
		return Identity{}, fmt.Errorf("%s version --long --output json: %w%s", filepath.Base(binary), err, notSDK)
	}
	if id.Name == "" {
		id.Name = filepath.Base(binary) // SDK v0.54 templates leave it unset
	}
	if _, err := readShape(ctx, binary); err != nil {
		return Identity{}, err
	}
	home, err := os.MkdirTemp("", "chainperf-identify-")
	if err != nil {
		return Identity{}, err
	}
	defer os.RemoveAll(home)
	if _, err := cli(ctx, binary, "init", "identify", "--chain-id", "chainperf-identify", "--home", home); err != nil {
		return Identity{}, err
	}
	if id.Denom, err = BondDenom(filepath.Join(home, "config", "genesis.json")); err != nil {
		if errors.Is(err, ErrNoStaking) {
			err = fmt.Errorf("%s: %w", filepath.Base(binary), err)
		}
		return Identity{}, err
	}
	if _, err := cli(ctx, binary, "keys", "add", "operator", "--keyring-backend", "test", "--home", home, "--output", "json"); err != nil {
		return Identity{}, err
	}
	if id.Prefix, err = addressPrefix(ctx, binary, home); err != nil {
		return Identity{}, err
	}
	return id, nil
}

// parseVersion reads `version --long --output json`: the SDK's version
// from cosmos_sdk_version (v0.54 on) or the cosmos-sdk build dependency
// (after a replacement's "=>", the one built), Cosmos EVM and wasmd from
// theirs.
func parseVersion(out []byte) (Identity, error) {
	// Some SDK versions print a warning line before the JSON.
	if i := strings.IndexByte(string(out), '{'); i > 0 {
		out = out[i:]
	}
	var v struct {
		Name       string   `json:"name"`
		ServerName string   `json:"server_name"`
		Version    string   `json:"version"`
		SDK        string   `json:"cosmos_sdk_version"`
		Deps       []string `json:"build_deps"`
	}
	if err := json.NewDecoder(strings.NewReader(string(out))).Decode(&v); err != nil {
		return Identity{}, fmt.Errorf("not the SDK's version JSON: %w", err)
	}
	id := Identity{Name: v.Name, Version: v.Version, SDK: v.SDK}
	if id.Name == "" && !strings.ContainsAny(v.ServerName, "<>") {
		id.Name = v.ServerName
	}
	for _, d := range v.Deps {
		path, version := buildDep(d)
		switch path {
		case "github.com/cosmos/cosmos-sdk":
			if id.SDK == "" {
				id.SDK = version
			}
		case "github.com/cosmos/evm":
			id.EVM = version
		case "github.com/CosmWasm/wasmd":
			id.Wasm = version
		}
	}
	if id.SDK == "" {
		return Identity{}, fmt.Errorf("no Cosmos SDK among its build dependencies (%d listed): not a Cosmos SDK application", len(v.Deps))
	}
	return id, nil
}

// buildDep splits "path@version" or "path@version => path2@version2" (a
// replacement: the second was built) into the module path asked for and
// the version built.
func buildDep(d string) (path, version string) {
	asked, built, replaced := strings.Cut(d, "=>")
	path, version, _ = strings.Cut(strings.TrimSpace(asked), "@")
	if replaced {
		if _, v, ok := strings.Cut(strings.TrimSpace(built), "@"); ok {
			version = v
		} else {
			version = "local " + strings.TrimSpace(built)
		}
	}
	return path, version
}
