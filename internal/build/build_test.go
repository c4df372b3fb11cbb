package build

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo makes a git repository with two commits of a tiny Go program: the
// first builds, the second does not.
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q")
	write("go.mod", "module example.com/node\n\ngo 1.21\n")
	write("main.go", "package main\n\nfunc main() {}\n")
	run("add", ".")
	run("commit", "-qm", "builds")
	run("tag", "good")
	write("main.go", "package main\n\nfunc main() { undefined() }\n")
	run("commit", "-qam", "breaks")
	return dir
}

// A commit is built once and then read from the cache; a commit that does
// not compile gives the compiler's output and leaves nothing in the cache;
// a ref that names nothing is refused.
func TestBuildCachesAndReportsFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	dir, cache := repo(t), t.TempDir()
	ctx := context.Background()
	b, err := Build(ctx, Spec{Dir: dir, Ref: "good", Package: "."}, cache)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(b.Path)
	if err != nil || len(b.Commit) != 40 {
		t.Fatalf("binary %+v: %v", b, err)
	}
	again, err := Build(ctx, Spec{Dir: dir, Ref: b.Commit, Package: "."}, cache)
	if err != nil || again.Path != b.Path {
		t.Fatalf("second build %+v, %v; want the cached %s", again, err, b.Path)
	}
	if st2, _ := os.Stat(again.Path); !st2.ModTime().Equal(st.ModTime()) {
		t.Error("the cached binary was built again")
	}
	_, err = Build(ctx, Spec{Dir: dir, Ref: "HEAD", Package: "."}, cache)
	if err == nil || !strings.Contains(err.Error(), "undefined: undefined") {
		t.Fatalf("broken commit: %v; want the compiler's error", err)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 {
		t.Errorf("cache holds %d entries; want only the good build", len(entries))
	}
	if _, err := Build(ctx, Spec{Dir: dir, Ref: "no-such-ref"}, cache); err == nil || !strings.Contains(err.Error(), "does not name a commit") {
		t.Errorf("unknown ref: %v", err)
	}
}
