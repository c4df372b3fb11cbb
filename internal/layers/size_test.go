package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// longFuncs are the functions of over 80 lines there were when this test
// came (2026-11-29), at their length then: each may shrink (then lower
// or drop its entry), none may grow, and no other may pass 80.
var longFuncs = map[string]int{
	"internal/why/timeline.go Timeline":                        181,
	"internal/evm/verify.go Verify":                            169,
	"internal/testnet/providertest/conformance.go Conformance": 141,
	"internal/experiment/spread.go DriveSpread":                141,
	"internal/experiment/drive.go Drive":                       130,
	"internal/why/internals.go Internals":                      126,
	"internal/testnet/kubernetes/harness.go RunHarness":        120,
	"internal/cosmos/verify.go Verify":                         111,
	"internal/evm/fund.go Fund":                                101,
	"internal/chain/evm.go Workload":                           99,
	"internal/cosmos/genesis.go FundAccounts":                  98,
	"internal/experiment/run.go run":                           97,
	"internal/why/internals.go node":                           89,
	"internal/testnet/kubernetes/pod.go createPod":             83,
	"internal/chain/cosmos.go Workload":                        83,
	"internal/report/report.go Markdown":                       81,
	"internal/build/app.go BuildApp":                           81,
}

// TestSizes: no non-test function of over 80 lines but those above (at
// most as long as they were) and the commands' wiring (cmd's ...Cmd: a
// command's flags, help and RunE), no source file of over 600 lines.
func TestSizes(t *testing.T) {
	fset := token.NewFileSet()
	for _, root := range []string{"..", "../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			name := strings.TrimPrefix(filepath.ToSlash(path), "../../")
			if !strings.HasPrefix(name, "cmd/") {
				name = "internal/" + strings.TrimPrefix(filepath.ToSlash(path), "../")
			}
			if n := fset.File(f.Pos()).LineCount(); n > 600 {
				t.Errorf("%s: %d lines; split it (600 at most)", name, n)
			}
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
				key := name + " " + fd.Name.Name
				if strings.HasPrefix(name, "cmd/") && strings.HasSuffix(fd.Name.Name, "Cmd") {
					continue // a command's wiring: its flags, help and RunE
				}
				if was, ok := longFuncs[key]; ok && n > was || !ok && n > 80 {
					t.Errorf("%s: %d lines (at most %d): split it", key, n, max(was, 80))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
