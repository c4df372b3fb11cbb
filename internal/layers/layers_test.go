package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/chainperf/chainperf/"

// goList runs go list on the module's packages with format f.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, out)
	}
	return strings.Fields(string(out))
}

// TestReadersKnowNoChain: the readers of a run (results, compare, report,
// dashboard) reach no chain package, even through another package: a
// chain hands over findings, which they render as data. The scenario
// reads its latency table without netem.
func TestReadersKnowNoChain(t *testing.T) {
	for _, tc := range []struct {
		pkg    string
		banned []string
	}{
		{"results", []string{"cosmos", "evm", "sdkchain", "chain"}},
		{"compare", []string{"cosmos", "evm", "sdkchain", "chain"}},
		{"report", []string{"cosmos", "evm", "sdkchain", "chain"}},
		{"dashboard", []string{"cosmos", "evm", "sdkchain", "chain"}},
		{"scenario", []string{"netem"}},
		{"finding", []string{"results", "load", "scenario"}}, // a leaf
		{"results", []string{"netem"}},                       // the WAN a run had is latency.WAN
	} {
		deps := map[string]bool{}
		for _, d := range goList(t, "-deps", "../"+tc.pkg) {
			deps[d] = true
		}
		for _, b := range tc.banned {
			if deps[mod+"internal/"+b] {
				t.Errorf("internal/%s depends on internal/%s", tc.pkg, b)
			}
		}
	}
}

// TestExperimentOnlyFromCmd: experiment is the sequence of a run; only
// the command wires it.
func TestExperimentOnlyFromCmd(t *testing.T) {
	lines := goList(t, "-f", "{{.ImportPath}}:{{join .Imports \",\"}}", "../../...")
	for _, l := range lines {
		pkg, imports, _ := strings.Cut(l, ":")
		if strings.HasPrefix(pkg, mod+"cmd/") {
			continue
		}
		for _, imp := range strings.Split(imports, ",") {
			if imp == mod+"internal/experiment" {
				t.Errorf("%s imports internal/experiment", pkg)
			}
		}
	}
}

// TestNoChainNamedOutsideTheChains: a chain is its own package and one
// registration. The scenario, the testnet, the experiment, the load and
// the command neither test a chain's name nor reach a chain's table by a
// field of its own, and the first four import no chain package (the
// command wires the chains in).
func TestNoChainNamedOutsideTheChains(t *testing.T) {
	chainPkgs := []string{"internal/cosmos", "internal/evm", "internal/sdkchain"}
	named := regexp.MustCompile(`"(cosmos|evm)"|\.(Cosmos|EVM)\b`)
	for _, dir := range []string{"scenario", "testnet", "experiment", "load", "cmd"} {
		root := "../" + dir
		if dir == "cmd" {
			root = "../../cmd"
		}
		for _, l := range goList(t, "-f", "{{.ImportPath}}:{{.Dir}}:{{join .GoFiles \",\"}}:{{join .Imports \",\"}}", root+"/...") {
			parts := strings.SplitN(l, ":", 4)
			pkg, pkgDir, files, imports := parts[0], parts[1], parts[2], parts[3]
			if strings.HasSuffix(pkg, "test") { // test tables and fakes (scenariotest's bad inputs)
				continue
			}
			for _, imp := range strings.Split(imports, ",") {
				if dir != "cmd" && slices.Contains(chainPkgs, strings.TrimPrefix(imp, mod)) {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
			for _, f := range strings.Split(files, ",") {
				for i, line := range readLines(t, filepath.Join(pkgDir, f)) {
					if code, _, _ := strings.Cut(line, "//"); named.MatchString(code) {
						t.Errorf("%s:%d names a chain: %s", filepath.Join(strings.TrimPrefix(pkg, mod), f), i+1, strings.TrimSpace(line))
					}
				}
			}
		}
	}
}

// TestNoProviderReachesTheStore: a provider makes a testnet real; what a
// run found reaches the results database through the experiment (a
// harness pod's runs through the command, store.ImportDir).
func TestNoProviderReachesTheStore(t *testing.T) {
	for _, pkg := range goList(t, "../testnet/...") {
		if strings.HasSuffix(pkg, "test") { // the test fakes and helpers
			continue
		}
		for _, d := range goList(t, "-deps", pkg) {
			if d == mod+"internal/store" {
				t.Errorf("%s depends on internal/store", strings.TrimPrefix(pkg, mod))
			}
		}
	}
}

// readLines is a source file's lines.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(data), "\n")
}
