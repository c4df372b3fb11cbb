// Package madeup_test adds a chain that does not exist, "toy", the way a
// real one is added: its [testnet.toy] table (type, defaults, checks) and
// its workload kind registered with the scenario, its adapter in
// chain.All. Nothing outside this file changes: the scenario decodes and
// checks the toy's table as it does Cosmos's, and the run record holds the
// toy's figure as data.
package madeup_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// toy is the [testnet.toy] table.
type toy struct {
	Depth int    `toml:"depth"`
	Coin  string `toml:"coin"`
}

func init() {
	scenario.RegisterChain(scenario.ChainSection{
		Name:      "toy",
		Is:        "a toy chain",
		Defaults:  []byte("# The toy chain.\n[testnet.toy]\ndepth = 2\ncoin = \"utoy\"\n"),
		New:       func() any { return new(toy) },
		Workloads: []string{"toy-send"},
		Check: func(s *scenario.Scenario, c *scenario.Checker) {
			if d := s.Testnet.Section("toy").(*toy).Depth; d < 1 {
				c.Fail("testnet.toy.depth", "%d: must be at least 1", d)
			}
		},
		CheckWorkload: func(s *scenario.Scenario, c *scenario.Checker) {},
	})
	chain.All = append(chain.All, chain.Entry{Name: "toy", New: func(context.Context, *scenario.Scenario, *slog.Logger) (chain.Adapter, error) {
		return toyAdapter{}, nil
	}})
}

// toyAdapter records one figure.
type toyAdapter struct{}

func (toyAdapter) Prepare(context.Context, *testnet.Testnet) error { return nil }

func (toyAdapter) Workload(_ context.Context, _ []string, r *results.Run) (load.Workload, error) {
	r.SetFinding(finding.Finding{Source: "chain/toy", Title: "Toy", Figures: []finding.Figure{{Name: "toy depth", Value: 2}}})
	return nil, nil
}

func TestAMadeUpChain(t *testing.T) {
	const frame = "[testnet]\nchain = \"toy\"\n[testnet.toy]\n"
	for _, c := range []struct{ name, text, want string }{
		{"misspelled key", frame + "depht = 3\n", `f.toml:4: unknown key "testnet.toy.depht" (did you mean "testnet.toy.depth"?)`},
		{"its check", frame + "depth = 0\n", "f.toml:4: testnet.toy.depth: 0: must be at least 1"},
		{"wrong type", frame + "depth = \"deep\"\n", "f.toml:4: testnet.toy.depth must be an integer, got string"},
		{"its kind elsewhere", "[workload]\nkind = \"toy-send\"\n", `f.toml:2: workload.kind: "toy-send" needs a toy chain: set testnet.chain = "toy"`},
		{"a kvstore kind on it", "[testnet]\nchain = \"toy\"\n[workload]\nkind = \"kvstore\"\n", `f.toml:4: workload.kind: "kvstore" sends kvstore txs, which a toy chain rejects: use toy-send`},
		{"chain misspelled", "[testnet]\nchain = \"toi\"\n", `testnet.chain: "toi" is not one of kvstore, cosmos, evm, toy (did you mean "toy"?)`},
	} {
		_, err := scenario.Parse("f.toml", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}

	s, err := scenario.Parse("f.toml", []byte(frame+"depth = 5\n[workload]\nkind = \"toy-send\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := *s.Testnet.Section("toy").(*toy); got != (toy{Depth: 5, Coin: "utoy"}) {
		t.Errorf("section %+v; want depth 5 and the default coin", got)
	}
	if def := string(scenario.DefaultText()); !strings.Contains(def, "# The toy chain.\n[testnet.toy]\ndepth = 2\n") {
		t.Errorf("the default scenario lacks the toy's defaults")
	}
	a, err := chain.New(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var r results.Run
	if _, err := a.Workload(context.Background(), nil, &r); err != nil {
		t.Fatal(err)
	}
	if f, ok := r.Finding("chain/toy"); !ok || f.Check() != nil || f.Figures[0].Value != 2 {
		t.Errorf("the toy's finding: %+v, %v", f, ok)
	}
}
