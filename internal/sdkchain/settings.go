package sdkchain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/chainperf/chainperf/internal/cometcfg"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/suggest"
)

// Settings are a scenario's genesis patches (JSON paths) and app.toml
// keys ("section.key", ".key" or "key" at the top), and where the
// scenario wrote each, for errors ("file.toml:12").
type Settings struct {
	Genesis map[string]any
	App     map[string]any
	// Traces is the OTLP/HTTP URL each node sends the application's spans
	// to (the run's, not the scenario's); "": none.
	Traces string
	// Servers turns on each node's REST gateway and gRPC server, at its
	// own ports (the API and GRPC of testnet.Ports), for reads through them.
	Servers bool
	// Pos gives the scenario position of a key ("testnet.genesis.K");
	// nil gives none.
	Pos func(key string) string
}

func (s Settings) errorf(key, format string, args ...any) error {
	msg := key + ": " + fmt.Sprintf(format, args...)
	if s.Pos != nil {
		if p := s.Pos(key); p != "" {
			msg = p + ": " + msg
		}
	}
	return errors.New(msg)
}

// PatchGenesis sets the scenario's genesis patches in the genesis file at
// path, each checked against the file: a path it does not have is
// refused with the nearest one it has, a value of another type than the
// file's is refused naming the type it wants. Every problem is reported.
func (s Settings) PatchGenesis(path, chain string) error {
	if len(s.Genesis) == 0 {
		return nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(s.Genesis)) {
		if err := setJSON(doc, k, s.Genesis[k]); err != nil {
			var miss missing
			if errors.As(err, &miss) {
				err = fmt.Errorf("%s's genesis has no %q%s", chain, k, didYouMean(k, jsonPaths(doc)))
			}
			errs = append(errs, s.errorf("testnet.genesis."+k, "%v", err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

type missing struct{}

func (missing) Error() string { return "missing" }

// setJSON sets the leaf at a dotted path of doc to value, converted to the
// type of the value there. Lists are indexed by number ("validators.0").
func setJSON(doc map[string]any, path string, value any) error {
	parts := strings.Split(path, ".")
	var parent any = doc
	for i, p := range parts {
		last := i == len(parts)-1
		var cur any
		var set func(any)
		switch c := parent.(type) {
		case map[string]any:
			v, ok := c[p]
			if !ok {
				return missing{}
			}
			cur, set = v, func(x any) { c[p] = x }
		case []any:
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 || n >= len(c) {
				return missing{}
			}
			cur, set = c[n], func(x any) { c[n] = x }
		default:
			return missing{}
		}
		if !last {
			parent = cur
			continue
		}
		v, err := likeJSON(cur, value)
		if err != nil {
			return err
		}
		set(v)
	}
	return nil
}

// likeJSON converts a scenario value to the JSON type of old. Numbers in
// SDK and CometBFT genesis files are often strings ("max_gas": "-1",
// decimals "0.130000000000000000"): those take a TOML number or a string
// that reads as one.
func likeJSON(old, value any) (any, error) {
	switch o := old.(type) {
	case string:
		numeric := isNumber(o)
		switch v := value.(type) {
		case string:
			if numeric && !isNumber(v) {
				return nil, fmt.Errorf("want a number (the file has %q), got the string %q", o, v)
			}
			return v, nil
		case int64:
			if numeric {
				return strconv.FormatInt(v, 10), nil
			}
		case float64:
			if numeric && !math.IsNaN(v) && !math.IsInf(v, 0) {
				return strconv.FormatFloat(v, 'f', -1, 64), nil
			}
		}
		return nil, fmt.Errorf("want a string (the file has %q), got %s", o, describe(value))
	case json.Number:
		switch v := value.(type) {
		case int64:
			return json.Number(strconv.FormatInt(v, 10)), nil
		case float64:
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				return json.Number(strconv.FormatFloat(v, 'f', -1, 64)), nil
			}
		}
		return nil, fmt.Errorf("want a number (the file has %s), got %s", o, describe(value))
	case bool:
		if v, ok := value.(bool); ok {
			return v, nil
		}
		return nil, fmt.Errorf("want true or false, got %s", describe(value))
	case []any:
		if v, ok := value.([]any); ok {
			return v, nil
		}
		return nil, fmt.Errorf("want a list, got %s", describe(value))
	case nil:
		return value, nil // null in the file: any value
	}
	return nil, fmt.Errorf("is a table in the file: set the keys inside it")
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func describe(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("the string %q", s)
	}
	return fmt.Sprintf("%v (%T)", v, v)
}

// jsonPaths lists the leaf paths of doc (lists' items are not listed).
func jsonPaths(doc map[string]any) []string {
	var out []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(prefix+k+".", sub)
				continue
			}
			out = append(out, prefix+k)
		}
	}
	walk("", doc)
	slices.Sort(out)
	return out
}

func didYouMean(key string, keys []string) string {
	if s := suggest.Closest(key, keys); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// appTomlValues reads the settings of app.toml at path with their types
// (the keys "section.key", top-level keys bare).
func appTomlValues(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	root := map[string]any{}
	if err := toml.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return scenario.Flatten(root), nil
}

// appTomlEdits turns the scenario's app.toml settings into the line
// edits editAppToml makes ("section.key" or ".key" to a TOML value),
// each checked against the file the chain's init wrote: a key it lacks
// is refused with the nearest it has, a value of another type than the
// file's names the type it wants.
func (s Settings) appTomlEdits(path, chain string) (map[string]string, error) {
	out := map[string]string{}
	if len(s.App) == 0 {
		return out, nil
	}
	have, err := appTomlValues(path)
	if err != nil {
		return nil, err
	}
	keys := slices.Sorted(maps.Keys(have))
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(s.App)) {
		name := strings.TrimPrefix(k, ".")
		old, ok := have[name]
		if ownedAppKeys[name] {
			errs = append(errs, s.errorf("testnet.app."+k, "is set by chainperf on every node (its gas price, servers and ports)"))
			continue
		}
		if !ok {
			errs = append(errs, s.errorf("testnet.app."+k, "%s's app.toml has no %q%s", chain, name, didYouMean(name, keys)))
			continue
		}
		lit, err := tomlLiteral(old, s.App[k])
		if err != nil {
			errs = append(errs, s.errorf("testnet.app."+k, "%v", err))
			continue
		}
		if !strings.Contains(name, ".") {
			name = "." + name // a top-level key, as editAppToml takes it
		}
		out[name] = lit
	}
	return out, errors.Join(errs...)
}

// ownedAppKeys are the app.toml keys chainperf sets on every node: the
// minimum gas price, the servers whose fixed ports would clash, the EVM
// chain ID and JSON-RPC server.
var ownedAppKeys = map[string]bool{
	"minimum-gas-prices": true, "api.enable": true, "grpc.enable": true, "grpc-web.enable": true,
	"evm.evm-chain-id": true, "json-rpc.enable": true, "json-rpc.address": true, "json-rpc.ws-address": true,
}

// tomlLiteral writes value as a TOML literal of old's type.
func tomlLiteral(old, value any) (string, error) {
	v, err := cometcfg.Like(old, value)
	if err != nil {
		return "", err
	}
	b, err := toml.Marshal(map[string]any{"v": v})
	if err != nil {
		return "", err
	}
	_, lit, _ := strings.Cut(strings.TrimSpace(string(b)), "= ")
	return lit, nil
}

// Check runs the chain binary's init in a temporary home and checks the
// settings against the app.toml and genesis.json it writes: what a run's
// set-up will find, reported before any node starts.
func (s Settings) Check(ctx context.Context, binary string) error {
	if len(s.Genesis) == 0 && len(s.App) == 0 {
		return nil
	}
	home, err := os.MkdirTemp("", "chainperf-settings-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	if _, err := cli(ctx, binary, "init", "check", "--chain-id", "check", "--home", home); err != nil {
		return err
	}
	chain := filepath.Base(binary)
	_, appErr := s.appTomlEdits(filepath.Join(home, "config", "app.toml"), chain)
	return errors.Join(appErr, s.PatchGenesis(filepath.Join(home, "config", "genesis.json"), chain))
}
