package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// An App says how to build a chain application's node binary (a Cosmos
// SDK or Cosmos EVM chain): from a released Go module version (Module,
// "module:PKG@VERSION"), or from a git tree at a ref (Dir, Ref, Package).
// Either way the build runs inside the application's own module, as its
// CI would: its go.mod's replace directives apply, cgo libraries shipped
// in Go modules link, and the Go toolchain its go.mod asks for builds it.
type App struct {
	Module  string
	Dir     string
	Ref     string
	Package string // relative to the repository root, "./cmd/appd"
	// Replace swaps a dependency of the application: module path to a
	// version, a commit or branch of that module (resolved through the Go
	// module proxy) or a local directory holding the module.
	Replace map[string]string
}

// An AppBinary is a built (or cached) application binary and what it was
// built from.
type AppBinary struct {
	Path      string   `json:"-"`
	Name      string   `json:"name"`             // the binary's file name: its main package's
	Source    string   `json:"source"`           // module@version, or the git dir
	Commit    string   `json:"commit,omitempty"` // for a git tree
	Package   string   `json:"package"`
	Toolchain string   `json:"toolchain"`          // the Go that built it, e.g. go1.24.1
	Replaced  []string `json:"replaced,omitempty"` // "MOD => MOD@VERSION" or "MOD => DIR"
	Version   string   `json:"version"`            // what the binary's `version` prints
}

// BuildApp builds a into cache, once per source, version or commit,
// package and replacements (a replacement by local directory is keyed by
// a hash of its sources). A failed build caches nothing and its error
// ends with the build log's last lines.
func BuildApp(ctx context.Context, a App, cache string, logf func(string, ...any)) (*AppBinary, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	src, reps, dir, err := appDir(ctx, a, cache)
	if err != nil {
		return nil, err
	}
	if bin := cached(ctx, dir); bin != nil {
		return bin, nil
	}
	os.RemoveAll(dir) // a cached binary that no longer runs is built again
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	// Built in a fresh folder renamed into place whole: an interrupted or
	// failed build leaves nothing cached.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".build-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	tree := filepath.Join(tmp, "src")
	at, err := src.unpack(ctx, tree)
	if err != nil {
		return nil, err
	}
	modDir := filepath.Join(tree, filepath.FromSlash(at.modSub))
	toolchain, err := Toolchain(filepath.Join(modDir, "go.mod"))
	if err != nil {
		return nil, err
	}
	if local, err := localGo(ctx); err == nil && minor(local) == minor(toolchain) {
		toolchain = local // a patch release of the same Go builds it as well, with no download
	}
	logf("building %s with %s (minutes the first time; cached after)", at.source, toolchain)
	logPath := filepath.Join(tmp, "build.log")
	env := []string{"GOTOOLCHAIN=" + toolchain, "GOFLAGS=-mod=mod", "GOWORK=off", "CGO_ENABLED=1"}
	var replaced []string
	for _, r := range reps {
		target, err := r.target(ctx, modDir, env)
		if err != nil {
			return nil, err
		}
		if err := goCmd(ctx, modDir, env, logPath, "mod", "edit", "-replace", r.mod+"="+target); err != nil {
			return nil, fmt.Errorf("replace %s with %s: %w", r.mod, r.to, err)
		}
		replaced = append(replaced, r.mod+" => "+target)
	}
	name := path.Base(src.pkg)
	if name == "." || name == "/" || name == ".." {
		name = "node"
	}
	out := filepath.Join(tmp, name)
	// What an SDK chain's Makefile stamps, so that `version` says what
	// was built (the linker ignores it in a binary without the SDK).
	ldflags := fmt.Sprintf("-X github.com/cosmos/cosmos-sdk/version.Name=%[1]s -X github.com/cosmos/cosmos-sdk/version.AppName=%[1]s -X github.com/cosmos/cosmos-sdk/version.Version=%[2]s -X github.com/cosmos/cosmos-sdk/version.Commit=%[3]s",
		name, src.version, src.commit)
	if err := goCmd(ctx, modDir, env, logPath, "build", "-ldflags", ldflags, "-o", out, at.pkgArg); err != nil {
		return nil, fmt.Errorf("building %s with %s failed: %w", at.source, toolchain, err)
	}
	version, err := output(ctx, out, "version")
	if err != nil {
		return nil, fmt.Errorf("%s: the built binary's `version` failed: %w", at.source, err)
	}
	bin := &AppBinary{Name: name, Source: at.source, Commit: src.commit, Package: src.pkg, Toolchain: toolchain,
		Replaced: replaced, Version: strings.TrimSpace(firstLine(version))}
	if bin.Version == "" {
		bin.Version = src.version
	}
	b, _ := json.MarshalIndent(bin, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, "build.json"), b, 0o644); err != nil {
		return nil, err
	}
	os.RemoveAll(tree) // the sources are not kept: the cache holds binaries
	if err := os.Rename(tmp, dir); err != nil && !exists(filepath.Join(dir, "build.json")) {
		return nil, err
	}
	bin.Path = filepath.Join(dir, name)
	return bin, nil
}

// ErrNotBuilt says an application has no cached build.
var ErrNotBuilt = errors.New("not built yet")

// CachedApp returns a's cached build without building it, or ErrNotBuilt.
func CachedApp(ctx context.Context, a App, cache string) (*AppBinary, error) {
	_, _, dir, err := appDir(ctx, a, cache)
	if err != nil {
		return nil, err
	}
	if bin := cached(ctx, dir); bin != nil {
		return bin, nil
	}
	return nil, ErrNotBuilt
}

// appDir resolves a's sources and replacements and the cache folder its
// build lives in.
func appDir(ctx context.Context, a App, cache string) (*appSource, []replacement, string, error) {
	src, err := resolveApp(ctx, a)
	if err != nil {
		return nil, nil, "", err
	}
	reps, repKey, err := resolveReplace(a.Replace)
	if err != nil {
		return nil, nil, "", err
	}
	sum := sha256.Sum256([]byte(src.pkg + "\x00" + repKey))
	return src, reps, filepath.Join(cache, "apps", src.key+"-"+hex.EncodeToString(sum[:4])), nil
}

// cached returns the build in dir if there is one that runs: a binary
// linked to a cgo library in the Go module cache stops running when that
// cache is cleaned.
func cached(ctx context.Context, dir string) *AppBinary {
	b, err := os.ReadFile(filepath.Join(dir, "build.json"))
	if err != nil {
		return nil
	}
	var bin AppBinary
	if json.Unmarshal(b, &bin) != nil {
		return nil
	}
	if bin.Name == "" || bin.Name != filepath.Base(bin.Name) {
		return nil
	}
	bin.Path = filepath.Join(dir, bin.Name)
	if _, err := output(ctx, bin.Path, "version"); err != nil {
		return nil
	}
	return &bin
}

// appSource is where an application's sources come from. Only what the
// cache key needs is resolved up front; finding the module (the module
// proxy, git) waits until a build needs the sources.
type appSource struct {
	key     string // cache folder name
	pkg     string // the main package, as an import path or ./dir
	commit  string
	version string // the release, or the commit's short form
	unpack  func(ctx context.Context, dst string) (unpacked, error)
}

// unpacked says where in an unpacked tree the build runs.
type unpacked struct {
	source string // what it was built from: module@version, or dir at commit
	modSub string // the module's folder inside the tree
	pkgArg string // what go build is given, inside the module
}

func resolveApp(ctx context.Context, a App) (*appSource, error) {
	switch {
	case a.Module != "" && a.Dir != "":
		return nil, errors.New("give an application's module or its git dir, not both")
	case a.Module != "":
		pkg, version, err := ParseModule(a.Module)
		if err != nil {
			return nil, err
		}
		esc, _ := module.EscapePath(pkg)
		return &appSource{
			key: strings.ReplaceAll(esc, "/", "_") + "@" + version, pkg: pkg, version: version,
			unpack: func(ctx context.Context, dst string) (unpacked, error) {
				modPath, dir, err := findModule(ctx, pkg, version)
				if err != nil {
					return unpacked{}, err
				}
				rel := strings.TrimPrefix(strings.TrimPrefix(pkg, modPath), "/")
				return unpacked{source: modPath + "@" + version, pkgArg: "./" + rel}, os.CopyFS(dst, os.DirFS(dir))
			},
		}, nil
	case a.Dir != "":
		commit, err := Resolve(ctx, a.Dir, a.Ref)
		if err != nil {
			return nil, err
		}
		root, err := git(ctx, a.Dir, "rev-parse", "--show-toplevel")
		if err != nil {
			return nil, fmt.Errorf("%s is not inside a git work tree", a.Dir)
		}
		root = strings.TrimSpace(root)
		pkg := a.Package
		if pkg == "" {
			pkg = "."
		}
		return &appSource{
			key: commit, pkg: pkg, commit: commit, version: commit[:12],
			unpack: func(ctx context.Context, dst string) (unpacked, error) {
				modSub, pkgArg, err := moduleOf(ctx, root, commit, path.Clean(filepath.ToSlash(pkg)))
				if err != nil {
					return unpacked{}, err
				}
				at := unpacked{source: fmt.Sprintf("%s at %s", a.Dir, commit[:12]), modSub: modSub, pkgArg: pkgArg}
				return at, export(ctx, root, commit, dst)
			},
		}, nil
	}
	return nil, errors.New("name the application: module:PKG@VERSION or a git dir and ref")
}

// findModule finds the module that holds pkg at version: the longest
// prefix of pkg the module proxy serves at that version. It returns the
// module's path and its folder in the module cache.
func findModule(ctx context.Context, pkg, version string) (string, string, error) {
	var last string
	for p := pkg; p != "." && p != "/"; p = path.Dir(p) {
		cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", p+"@"+version)
		cmd.Dir = os.TempDir()
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local", "GOWORK=off")
		out, _ := cmd.Output()
		var m struct{ Dir, Error string }
		if err := json.Unmarshal(out, &m); err == nil && m.Dir != "" && m.Error == "" {
			return p, m.Dir, nil
		}
		if m.Error != "" && last == "" {
			last = m.Error
		}
	}
	return "", "", fmt.Errorf("no module holding %s is served at %s (does the Go module proxy have that version?): %s", pkg, version, last)
}

// moduleOf finds the go.mod nearest above pkg (a folder relative to the
// repository root) in the tree at commit: the module's folder, and pkg
// relative to it as go build takes it.
func moduleOf(ctx context.Context, root, commit, pkg string) (string, string, error) {
	for d := pkg; ; d = path.Dir(d) {
		f := "go.mod"
		if d != "." {
			f = d + "/go.mod"
		}
		if _, err := git(ctx, root, "cat-file", "-e", commit+":"+f); err == nil {
			rel := "."
			if d != pkg {
				rel = "./" + strings.TrimPrefix(strings.TrimPrefix(pkg, d), "/")
			}
			if d == "." {
				d = ""
			}
			return d, rel, nil
		}
		if d == "." {
			return "", "", fmt.Errorf("no go.mod at or above %s at commit %s", pkg, commit[:12])
		}
	}
}

// export writes the tree at commit into dst (git archive: the user's
// checkout is not touched).
func export(ctx context.Context, root, commit, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	archive := exec.CommandContext(ctx, "git", "-C", root, "archive", "--format=tar", commit)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dst)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	var archErr bytes.Buffer
	archive.Stderr = &archErr
	if err := untar.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		untar.Wait()
		return fmt.Errorf("git archive %s: %v: %s", commit[:12], err, archErr.String())
	}
	if err := untar.Wait(); err != nil {
		return fmt.Errorf("unpack %s: %w", commit[:12], err)
	}
	return nil
}

// Toolchain is the Go toolchain a go.mod asks for: its toolchain line,
// else its go line as a release (go 1.23 is go1.23.0). The go command
// fetches it from the module proxy like a module. A module older than
// Go 1.21 (which cannot name a toolchain) builds with the local Go.
func Toolchain(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	f, err := modfile.Parse(gomod, b, nil)
	if err != nil {
		// A directive newer than this x/mod knows: the go line still reads.
		if f, err = modfile.ParseLax(gomod, b, nil); err != nil {
			return "", err
		}
	}
	if f.Toolchain != nil && f.Toolchain.Name != "" && f.Toolchain.Name != "default" {
		return f.Toolchain.Name, nil
	}
	if f.Go == nil {
		return "local", nil
	}
	v := "v" + f.Go.Version
	if semver.Compare(v, "v1.21") < 0 {
		return "local", nil
	}
	if strings.Count(f.Go.Version, ".") == 1 {
		return "go" + f.Go.Version + ".0", nil
	}
	return "go" + f.Go.Version, nil
}

// localGo is the version of the go command on PATH, e.g. go1.26.8.
func localGo(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// minor is a Go version's release line: go1.24.1 is go1.24.
func minor(v string) string {
	if i := strings.Index(v, "."); i >= 0 {
		if j := strings.Index(v[i+1:], "."); j >= 0 {
			return v[:i+1+j]
		}
	}
	return v
}

// A replacement of one dependency.
type replacement struct{ mod, to string }

// resolveReplace checks the replacements and returns them in a stable
// order with the part of the cache key they make.
func resolveReplace(m map[string]string) ([]replacement, string, error) {
	var out []replacement
	var key strings.Builder
	for _, mod := range slices.Sorted(maps.Keys(m)) {
		to := m[mod]
		if err := module.CheckPath(mod); err != nil {
			return nil, "", fmt.Errorf("replace %q: %v", mod, err)
		}
		if to == "" {
			return nil, "", fmt.Errorf("replace %q: give a version, a commit or a local directory", mod)
		}
		fmt.Fprintf(&key, "%s=%s\n", mod, to)
		if isLocal(to) {
			sum, err := HashTree(to)
			if err != nil {
				return nil, "", fmt.Errorf("replace %s with %s: %w", mod, to, err)
			}
			fmt.Fprintf(&key, " %s\n", sum)
		}
		out = append(out, replacement{mod, to})
	}
	return out, key.String(), nil
}

func isLocal(to string) bool {
	return strings.HasPrefix(to, "/") || strings.HasPrefix(to, "./") || strings.HasPrefix(to, "../")
}

// target is what go mod edit -replace takes: MOD@VERSION (a commit or
// branch resolved to its pseudo-version by the module proxy) or an
// absolute local directory.
func (r replacement) target(ctx context.Context, modDir string, env []string) (string, error) {
	if isLocal(r.to) {
		abs, err := filepath.Abs(r.to)
		if err != nil {
			return "", err
		}
		if !exists(filepath.Join(abs, "go.mod")) {
			return "", fmt.Errorf("replace %s: %s holds no go.mod", r.mod, abs)
		}
		return abs, nil
	}
	if semver.IsValid(r.to) {
		return r.mod + "@" + r.to, nil
	}
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-json", r.mod+"@"+r.to)
	cmd.Dir = modDir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var m struct{ Version string }
	if err != nil || json.Unmarshal(out, &m) != nil || m.Version == "" {
		return "", fmt.Errorf("replace %s: %q is not a version, commit or branch the module proxy knows: %s", r.mod, r.to, strings.TrimSpace(stderr.String()))
	}
	return r.mod + "@" + m.Version, nil
}

// goCmd runs the go command in dir, appending its output to logPath; a
// failure's error holds the log's last lines.
func goCmd(ctx context.Context, dir string, env []string, logPath string, args ...string) error {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(f, "$ go %s\n", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %v; the build log ends:\n%s", args[0], err, tail(logPath, 25))
	}
	return nil
}

// tail returns the last n lines of the file at p.
func tail(p string, n int) string {
	b, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// HashTree hashes go.mod, go.sum and the non-test .go files under src:
// what a build of its Go module depends on.
func HashTree(src string) (string, error) {
	var files []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if !d.IsDir() && (name == "go.mod" || name == "go.sum" || strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", errors.New("no sources in " + src)
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(src, f)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
