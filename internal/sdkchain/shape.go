package sdkchain

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A shape is how a chain's CLI offers what set-up drives, read from its
// own help before any of it is used: chains on a fork of the SDK (or on
// an older one) move the genesis commands to the top and lack flags the
// template app has.
type shape struct {
	// genesis is the command the genesis commands (add-genesis-account,
	// gentx, collect-gentxs) are under: "genesis" (SDK v0.47 on) or ""
	// (at the top, as before v0.47 and in forks of it).
	genesis string
	// defaultDenom: init takes --default-denom; without it a denom of the
	// scenario's is patched into genesis after init.
	defaultDenom bool
}

// genesisCommands are the commands set-up needs to make a genesis.
var genesisCommands = []string{"add-genesis-account", "gentx", "collect-gentxs"}

// readShape reads binary's help: `genesis --help`, else the top-level
// help, for the genesis commands, and `init --help` for --default-denom.
// A binary with neither is refused naming what was looked for and where.
func readShape(ctx context.Context, binary string) (shape, error) {
	help := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, binary, append(args, "--help")...).CombinedOutput()
		return string(out), err
	}
	offers := func(out string) bool {
		for _, c := range genesisCommands {
			if !strings.Contains(out, c) {
				return false
			}
		}
		return true
	}
	var s shape
	sub, subErr := help("genesis")
	top, topErr := help()
	switch {
	case subErr == nil && offers(sub):
		s.genesis = "genesis"
	case topErr == nil && offers(top):
	default:
		msg := strings.TrimSpace(sub)
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		if msg == "" && subErr != nil {
			msg = subErr.Error()
		}
		return s, fmt.Errorf("%s is not a Cosmos SDK chain binary chainperf can set up: neither `%s genesis --help` nor `%s --help` offers %s (the commands that make a genesis; SDK v0.47 and later have them under genesis): %s",
			binary, filepath.Base(binary), filepath.Base(binary), strings.Join(genesisCommands, ", "), msg)
	}
	in, _ := help("init")
	s.defaultDenom = strings.Contains(in, "--default-denom")
	return s, nil
}

// genesisArgs is a genesis command's arguments as the chain takes them.
func (s shape) genesisArgs(args ...string) []string {
	if s.genesis == "" {
		return args
	}
	return append([]string{s.genesis}, args...)
}

// patchDenom makes denom the genesis file's staking, mint and coin denom
// where init wrote old: what init's --default-denom does, for a chain
// whose init lacks it. It returns how many values it changed.
func patchDenom(path, old, denom string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	n := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && s == old && (k == "bond_denom" || k == "mint_denom" || k == "denom") {
					v[k] = denom
					n++
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return 0, err
	}
	return n, os.WriteFile(path, out, 0o644)
}
