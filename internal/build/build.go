// Package build makes a node binary from a Go source tree at a git ref:
// the tree at that commit is exported (git archive, the user's checkout
// is not touched), built with go build, and cached by commit, package and
// flags, so that the same commit is built once.
package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A Spec says what to build.
type Spec struct {
	Dir     string   // a git work tree (or a directory inside one)
	Ref     string   // branch, tag or commit
	Package string   // Go package path relative to the repository root, "./cmd/node"
	Flags   []string // go build flags
}

// A Binary is a built (or cached) node binary.
type Binary struct {
	Path   string
	Commit string // full commit hash
}

// CacheDir is where binaries are kept: $CHAINPERF_BUILD_CACHE, else the
// user cache dir's chainperf/builds.
func CacheDir() string {
	if d := os.Getenv("CHAINPERF_BUILD_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "chainperf", "builds")
	}
	return filepath.Join(os.TempDir(), "chainperf-builds")
}

// Resolve returns the full commit hash ref names in dir.
func Resolve(ctx context.Context, dir, ref string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("ref %q does not name a commit in %s", ref, dir)
	}
	return strings.TrimSpace(out), nil
}

// Build builds s into cache (reusing a binary built before). A failed
// build returns the compiler's output in the error and caches nothing.
func Build(ctx context.Context, s Spec, cache string) (*Binary, error) {
	commit, err := Resolve(ctx, s.Dir, s.Ref)
	if err != nil {
		return nil, err
	}
	key := sha256.Sum256([]byte(s.Package + "\x00" + strings.Join(s.Flags, "\x00")))
	out := filepath.Join(cache, commit+"-"+hex.EncodeToString(key[:4]), "node")
	if st, err := os.Stat(out); err == nil && st.Mode().IsRegular() {
		return &Binary{Path: out, Commit: commit}, nil
	}
	root, err := git(ctx, s.Dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not inside a git work tree", s.Dir)
	}
	src, err := os.MkdirTemp("", "chainperf-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(src)
	if err := export(ctx, strings.TrimSpace(root), commit, src); err != nil {
		return nil, err
	}
	tmp := out + ".part"
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	pkg := s.Package
	if pkg == "" {
		pkg = "."
	}
	args := append(append([]string{"build", "-o", tmp}, s.Flags...), pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = src
	if b, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		os.Remove(filepath.Dir(out))
		return nil, fmt.Errorf("go build %s at %s failed:\n%s", pkg, commit[:12], strings.TrimSpace(string(b)))
	}
	if err := os.Rename(tmp, out); err != nil {
		return nil, err
	}
	return &Binary{Path: out, Commit: commit}, nil
}

// Between lists the commits after good up to and including bad, oldest
// first, on the ancestry path from good to bad (what git bisect walks).
func Between(ctx context.Context, dir, good, bad string) ([]string, error) {
	out, err := git(ctx, dir, "rev-list", "--ancestry-path", "--reverse", good+".."+bad)
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// Subject returns a commit's one-line subject.
func Subject(ctx context.Context, dir, commit string) string {
	out, _ := git(ctx, dir, "log", "-1", "--format=%s", commit)
	return strings.TrimSpace(out)
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
