package build

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An application repository like a chain's: the app module in app/, with
// a replace directive of its own to a dependency module beside it, and a
// main package whose `version` prints the dependency's version.
func appRepo(t *testing.T) (repo string, commit func(msg string) string) {
	t.Helper()
	repo = t.TempDir()
	write := func(p, s string) {
		t.Helper()
		p = filepath.Join(repo, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("dep/go.mod", "module example.com/dep\n\ngo 1.26\n")
	write("dep/dep.go", "package dep\n\nconst Version = \"dep 1\"\n")
	write("app/go.mod", "module example.com/app\n\ngo 1.26\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n")
	write("app/cmd/appd/main.go", `package main

import (
	"fmt"
	"os"

	"example.com/dep"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "version" {
		fmt.Println("appd 1.0 with", dep.Version)
		return
	}
	os.Exit(2)
}
`)
	gitc := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	gitc("init", "-q")
	commit = func(msg string) string {
		gitc("add", "-A")
		gitc("commit", "-q", "-m", msg)
		return gitc("rev-parse", "HEAD")
	}
	return repo, commit
}

// An app in a sub-module of a repository builds inside its module (its
// replace directive applies), is cached by commit, and a replacement by
// local directory swaps the dependency (and is a different build).
func TestBuildAppFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo, commit := appRepo(t)
	first := commit("app")
	cache := t.TempDir()
	ctx := context.Background()
	bin, err := BuildApp(ctx, App{Dir: repo, Ref: "HEAD", Package: "./app/cmd/appd"}, cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bin.Commit != first || bin.Version != "appd 1.0 with dep 1" || bin.Toolchain == "" {
		t.Fatalf("built %+v", bin)
	}
	again, err := BuildApp(ctx, App{Dir: repo, Ref: first, Package: "./app/cmd/appd"}, cache, func(string, ...any) { t.Error("built again: not cached") })
	if err != nil || again.Path != bin.Path {
		t.Fatalf("cached: %v %+v", err, again)
	}

	dep2 := t.TempDir()
	os.WriteFile(filepath.Join(dep2, "go.mod"), []byte("module example.com/dep\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dep2, "dep.go"), []byte("package dep\n\nconst Version = \"dep 2\"\n"), 0o644)
	swapped, err := BuildApp(ctx, App{Dir: repo, Ref: first, Package: "./app/cmd/appd", Replace: map[string]string{"example.com/dep": dep2}}, cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if swapped.Path == bin.Path || swapped.Version != "appd 1.0 with dep 2" || len(swapped.Replaced) != 1 {
		t.Fatalf("replaced: %+v", swapped)
	}
}

// A build that fails says so with the compiler's words from the build
// log's end, and leaves nothing in the cache.
func TestBuildAppFailureShowsTheLog(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo, commit := appRepo(t)
	commit("app")
	os.WriteFile(filepath.Join(repo, "app/cmd/appd/broken.go"), []byte("package main\n\nvar x int = \"not an int\"\n"), 0o644)
	bad := commit("broken")
	cache := t.TempDir()
	_, err := BuildApp(context.Background(), App{Dir: repo, Ref: bad, Package: "./app/cmd/appd"}, cache, nil)
	if err == nil || !strings.Contains(err.Error(), "build log ends") || !strings.Contains(err.Error(), "broken.go:3") {
		t.Fatalf("error %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(cache, "apps"))
	if len(entries) != 0 {
		t.Fatalf("cache holds %v after a failed build", entries)
	}
	if _, err := BuildApp(context.Background(), App{Dir: repo, Ref: "nope", Package: "./app/cmd/appd"}, cache, nil); err == nil || !strings.Contains(err.Error(), "does not name a commit") {
		t.Fatalf("bad ref: %v", err)
	}
	if _, err := BuildApp(context.Background(), App{Dir: repo, Ref: bad, Package: "./app/cmd/appd", Replace: map[string]string{"example.com/dep": "/nonexistent"}}, cache, nil); err == nil || !strings.Contains(err.Error(), "/nonexistent") {
		t.Fatalf("bad replace: %v", err)
	}
}

func TestToolchain(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ gomod, want string }{
		{"module m\n\ngo 1.23.6\n", "go1.23.6"},
		{"module m\n\ngo 1.24.0\n\ntoolchain go1.24.1\n", "go1.24.1"},
		{"module m\n\ngo 1.22\n", "go1.22.0"},
		{"module m\n\ngo 1.19\n", "local"},
		{"module m\n", "local"},
	} {
		p := filepath.Join(dir, "go.mod")
		os.WriteFile(p, []byte(c.gomod), 0o644)
		got, err := Toolchain(p)
		if err != nil || got != c.want {
			t.Errorf("%q: %q %v; want %q", c.gomod, got, err, c.want)
		}
	}
	if minor("go1.24.1") != "go1.24" || minor("go1.26") != "go1.26" {
		t.Error("minor")
	}
}
