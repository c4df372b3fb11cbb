package evm

import (
	"encoding/json"
	"fmt"
	"os"
)

// EditGenesis makes the genesis file at path a Cosmos EVM chain's with
// denom as its 18-decimal gas token: x/vm's evm_denom and the bank
// metadata x/vm reads the token's decimals from (display unit display,
// 10^18 denom). A genesis without app_state.evm is not a Cosmos EVM
// chain's, and says so.
func EditGenesis(path, denom, display string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var app map[string]map[string]json.RawMessage
	if err := json.Unmarshal(doc["app_state"], &app); err != nil {
		return fmt.Errorf("%s: app_state: %w", path, err)
	}
	if app["evm"] == nil || app["bank"] == nil {
		return fmt.Errorf("%s has no app_state.evm: the binary is not a Cosmos EVM chain", path)
	}
	var params map[string]any
	if err := json.Unmarshal(app["evm"]["params"], &params); err != nil || params == nil {
		return fmt.Errorf("%s: app_state.evm.params: not a Cosmos EVM genesis (%v)", path, err)
	}
	params["evm_denom"] = denom
	var metas []map[string]any
	if m := app["bank"]["denom_metadata"]; len(m) > 0 {
		if err := json.Unmarshal(m, &metas); err != nil {
			return fmt.Errorf("%s: app_state.bank.denom_metadata: %w", path, err)
		}
	}
	kept := metas[:0]
	for _, m := range metas {
		if m["base"] != denom {
			kept = append(kept, m)
		}
	}
	metas = append(kept, map[string]any{
		"description": "chainperf's gas token",
		"denom_units": []map[string]any{
			{"denom": denom, "exponent": 0, "aliases": []string{}},
			{"denom": display, "exponent": 18, "aliases": []string{}},
		},
		"base": denom, "display": display, "name": display, "symbol": display, "uri": "", "uri_hash": "",
	})
	set := func(m map[string]json.RawMessage, key string, v any) {
		if err == nil {
			m[key], err = json.Marshal(v)
		}
	}
	set(app["evm"], "params", params)
	set(app["bank"], "denom_metadata", metas)
	set(doc, "app_state", app)
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}
