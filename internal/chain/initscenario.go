package chain

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/sdkchain"
)

// An AppSource is where a scenario's chain application comes from, as
// `scenario init` was given it: a path or "module:PKG@VERSION" (Binary),
// or a git tree at a ref (Dir, Ref, Package).
type AppSource struct {
	Binary            string
	Dir, Ref, Package string
}

// BuildProbe is a scenario whose node resolution (experiment.ResolveNode)
// builds src when it is a release or a tree, as a run would, before
// anything is known of it but that it is an SDK application.
func BuildProbe(src AppSource) []byte {
	text := "[workload]\nkind = \"cosmos-send\"\n[testnet]\nchain = \"cosmos\"\n[testnet.cosmos]\n"
	if src.Binary != "" {
		return []byte(text + "binary = " + scenario.Quote(src.Binary) + "\n")
	}
	return fmt.Appendf([]byte(text), "[testnet.cosmos.build]\ndir = %s\nref = %s\npackage = %s\n",
		scenario.Quote(src.Dir), scenario.Quote(src.Ref), scenario.Quote(src.Package))
}

// An Initial scenario is what InitScenario wrote and why.
type Initial struct {
	Text                       []byte
	About, Kind, Denom, Prefix string
}

// InitScenario asks the application at binary what it is and writes the
// scenario that runs it (ScenarioFor).
func InitScenario(ctx context.Context, binary string, src AppSource, file string) (Initial, error) {
	id, err := sdkchain.Identify(ctx, binary)
	if err != nil {
		return Initial{}, err
	}
	return Initial{Text: ScenarioFor(id, src, file), About: id.About(), Kind: KindOf(id), Denom: id.Denom, Prefix: id.Prefix}, nil
}

// KindOf is the chain kind that runs the application id names: "evm" for
// a Cosmos EVM application, else "cosmos".
func KindOf(id sdkchain.Identity) string {
	if id.EVM != "" {
		return "evm"
	}
	return "cosmos"
}

// ScenarioFor writes a scenario that runs the application id describes,
// from src, with its chain kind's send workload: signed bank sends (a
// Cosmos SDK chain, its denom and prefix written as the binary made them)
// or native EVM transfers (a Cosmos EVM chain: chainperf sets its EVM
// denom in genesis), on 4 validators and 1 full node, 30 s at 100 tx/s,
// every tx followed to its fate and the balances checked after. file is
// the name the comment tells to run.
func ScenarioFor(id sdkchain.Identity, src AppSource, file string) []byte {
	kind := KindOf(id)
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# %s, as `chainperf scenario init` found it:\n# %s\n", comment(id.About()), comment(describeSource(src)))
	if kind == "evm" {
		w("# Native EVM transfers from 1,000 Ethereum accounts funded in genesis (the\n")
		w("# EVM denom is chainperf's, testnet.evm.denom, set in genesis) on 4\n")
	} else {
		w("# Staking denom %s, addresses %s1... (from its own init and keys).\n", comment(id.Denom), comment(id.Prefix))
		w("# Signed bank sends from 1,000 wallets funded in genesis on 4\n")
	}
	w("# validators + 1 full node, 30 s at 100 tx/s; every tx followed to its\n")
	w("# fate and every wallet's balance checked after the run.\n")
	w("#   chainperf run %s\n", comment(file))
	w("name = %s\n\n", scenario.Quote(scenarioName(id)))
	w("[testnet]\nvalidators = 4\nfull_nodes = 1\nchain = %q\n\n", kind)
	w("[testnet.%s]\n", kind)
	if src.Binary != "" {
		w("binary = %s\n", scenario.Quote(src.Binary))
	}
	if kind == "cosmos" {
		w("denom = %s\nbech32_prefix = %s\n", scenario.Quote(id.Denom), scenario.Quote(id.Prefix))
		w("gas_price = 0.001\n")
	}
	w("wallets = 1000\n")
	if src.Dir != "" {
		w("\n[testnet.%s.build]\ndir = %s\nref = %s\npackage = %s\n", kind, scenario.Quote(src.Dir), scenario.Quote(src.Ref), scenario.Quote(src.Package))
	}
	w("\n[workload]\n")
	if kind == "evm" {
		w("kind = \"evm-transfer\"\namount = 1000\n")
	} else {
		w("kind = \"cosmos-send\"\nmode = \"pregenerate\"\n")
		w("# 0: the gas limit from a simulation on the chain (any chain's send).\ngas_limit = 0\n")
	}
	w("\n[load]\nrate = 100\nmax_in_flight = 800\nduration = \"30s\"\n")
	w("\n[experiment]\nkind = \"steady\"\n")
	w("\n[criteria]\nmax_unresolved = 0\nmax_rejected_share = 0.01\n")
	return b.Bytes()
}

func describeSource(src AppSource) string {
	if src.Dir != "" {
		return fmt.Sprintf("built from %s at %s (package %s)", src.Dir, src.Ref, src.Package)
	}
	return src.Binary
}

// comment is s fit for a TOML comment: what a binary printed of itself
// or a path given may hold a line break that would end it.
func comment(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

var nameRE = regexp.MustCompile(`[^a-z0-9]+`)

// scenarioName is "NAME-send" of the application's name, in the letters a
// run's name is shown in.
func scenarioName(id sdkchain.Identity) string {
	name := strings.Trim(nameRE.ReplaceAllString(strings.ToLower(id.Name), "-"), "-")
	if name == "" {
		name = "chain"
	}
	return name + "-send"
}
