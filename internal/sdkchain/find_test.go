package sdkchain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeChain writes a tiny Go module shaped like chains/cosmos.
func fakeChain(t *testing.T, dir, msg string) {
	t.Helper()
	main := filepath.Join(dir, "cmd", SDKD.Name, "main.go")
	if err := os.MkdirAll(filepath.Dir(main), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module fake\n\ngo 1.26\n"), 0o644)
	os.WriteFile(main, []byte("package main\n\nfunc main() { println(\""+msg+"\") }\n"), 0o644)
}

// TestBuildCachesBySources: the test chain is built once per source state
// and a changed source builds a new binary.
func TestBuildCachesBySources(t *testing.T) {
	src, cache := t.TempDir(), t.TempDir()
	fakeChain(t, src, "one")
	var built []string
	logf := func(f string, a ...any) { built = append(built, f) }
	first, err := SDKD.Build(context.Background(), src, cache, logf)
	if err != nil {
		t.Fatal(err)
	}
	again, err := SDKD.Build(context.Background(), src, cache, logf)
	if err != nil || again != first || len(built) != 1 {
		t.Fatalf("second build: %s %v, %d builds; want the cached %s", again, err, len(built), first)
	}
	fakeChain(t, src, "two")
	changed, err := SDKD.Build(context.Background(), src, cache, logf)
	if err != nil || changed == first || len(built) != 2 {
		t.Fatalf("changed source: %s %v, %d builds", changed, err, len(built))
	}
	os.WriteFile(filepath.Join(src, "cmd", SDKD.Name, "main.go"), []byte("package main\nfunc main() { undefined() }\n"), 0o644)
	if _, err := SDKD.Build(context.Background(), src, cache, nil); err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Fatalf("a broken source: %v", err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(cache, "*.tmp*")); len(tmps) > 0 {
		t.Fatalf("a failed build left %v", tmps)
	}
}

func TestFindNamesWhatIsMissing(t *testing.T) {
	t.Setenv("CHAINPERF_SDKD", "/nonexistent/chainperf-sdkd")
	if _, err := SDKD.Find(context.Background(), "", nil); err == nil || !strings.Contains(err.Error(), "CHAINPERF_SDKD=/nonexistent/chainperf-sdkd") {
		t.Fatalf("Find: %v", err)
	}
	if p, err := SDKD.Find(context.Background(), "rel/gaiad", nil); err != nil || !filepath.IsAbs(p) {
		t.Fatalf("a named binary: %s %v", p, err)
	}
}

func TestEditAppToml(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.toml")
	os.WriteFile(path, []byte("minimum-gas-prices = \"\"\n[api]\nenable = true\naddress = \"tcp://0.0.0.0:1317\"\n[grpc]\nenable = true\n[grpc-web]\nenable = true\n"), 0o644)
	if err := editAppToml(path, map[string]string{".minimum-gas-prices": `"0.025uatom"`}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := "minimum-gas-prices = \"0.025uatom\"\n[api]\nenable = false\naddress = \"tcp://0.0.0.0:1317\"\n[grpc]\nenable = false\n[grpc-web]\nenable = false\n"
	if string(b) != want {
		t.Fatalf("app.toml:\n%s\nwant:\n%s", b, want)
	}
	os.WriteFile(path, []byte("[api]\nenable = true\n"), 0o644)
	if err := editAppToml(path, map[string]string{".minimum-gas-prices": `"0stake"`}); err == nil || !strings.Contains(err.Error(), "minimum-gas-prices") {
		t.Fatal("an app.toml without minimum-gas-prices was taken")
	}
}
