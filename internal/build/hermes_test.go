package build

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Hermes is cached by its version: a version is three numbers (no path,
// no range, no "latest"), and one in the cache is used without cargo.
func TestHermesCachedByVersion(t *testing.T) {
	cache := t.TempDir()
	for _, v := range []string{"", "1.10", "latest", "^1.10.5", "1.10.5/../..", "1.10.5 --path /"} {
		if _, err := Hermes(context.Background(), v, cache); err == nil {
			t.Errorf("version %q accepted", v)
		}
	}
	bin := filepath.Join(cache, "hermes", "9.9.9", "bin", "hermes")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", "") // no cargo: the cached binary must do
	if got, err := Hermes(context.Background(), "9.9.9", cache); err != nil || got != bin {
		t.Errorf("cached: %q, %v", got, err)
	}
	if _, err := Hermes(context.Background(), "9.9.8", cache); err == nil {
		t.Error("an uncached version without cargo: no error")
	}
}
