package build

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxModuleFile bounds a file read from a module (a contract's wasm is
// hundreds of KB).
const MaxModuleFile = 8 << 20

// ModuleFile reads a file of a Go module version, "MODULE@VERSION/PATH"
// (github.com/CosmWasm/wasmd@v0.61.14/x/wasm/keeper/testdata/queue.wasm):
// the module is fetched into the module cache as a build fetches it, and
// the path may not leave the module's folder.
func ModuleFile(ctx context.Context, spec string) ([]byte, error) {
	mod, rest, ok := strings.Cut(spec, "@")
	version, file, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || mod == "" || version == "" || file == "" {
		return nil, fmt.Errorf("%q: want MODULE@VERSION/PATH, e.g. github.com/CosmWasm/wasmd@v0.61.14/x/wasm/keeper/testdata/queue.wasm", spec)
	}
	if !filepath.IsLocal(file) {
		return nil, fmt.Errorf("%q: the path must stay inside the module", spec)
	}
	_, dir, err := findModule(ctx, mod, version)
	if err != nil {
		return nil, err
	}
	return ReadInside(dir, file, MaxModuleFile)
}

// ReadInside reads path under dir, at most max bytes, refusing a path (or
// a symlink on it) that leads out of dir.
func ReadInside(dir, path string, max int64) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: over %d MB", path, max>>20)
	}
	return data, nil
}
