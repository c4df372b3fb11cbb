package layers

import (
	"os/exec"
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
