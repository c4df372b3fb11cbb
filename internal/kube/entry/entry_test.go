package entry

import (
	"os"
	"path/filepath"
	"testing"
)

// A mounted ConfigMap holds its files as links into a hidden ..data dir
// (a directory of links, for items with paths); the copy follows the
// links, leaves the hidden entries out, and keeps a key's mode private.
func TestCopyTreeFromAConfigMapMount(t *testing.T) {
	src, home := t.TempDir(), t.TempDir()
	data := filepath.Join(src, "..2026_11_24_07_00_00.1")
	os.MkdirAll(filepath.Join(data, "config"), 0o755)
	os.WriteFile(filepath.Join(data, "config", "config.toml"), []byte("moniker = \"v0\"\n"), 0o644)
	os.WriteFile(filepath.Join(data, "config", "node_key.json"), []byte("{}"), 0o400)
	os.Symlink(filepath.Base(data), filepath.Join(src, "..data"))
	os.Symlink("..data/config", filepath.Join(src, "config"))
	if err := copyTree(src, home); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(home, "config", "config.toml"))
	if err != nil || string(got) != "moniker = \"v0\"\n" {
		t.Fatalf("config.toml: %q, %v", got, err)
	}
	if st, err := os.Stat(filepath.Join(home, "config", "node_key.json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("node_key.json: %v, %v", st, err)
	}
	entries, _ := os.ReadDir(home)
	if len(entries) != 1 || entries[0].Name() != "config" {
		t.Errorf("home holds %v; want config/ only", entries)
	}
}

// Run refuses no command, and reports a node binary that does not exist
// after copying the files.
func TestRunErrors(t *testing.T) {
	if err := Run(nil, t.TempDir(), 0, nil); err == nil {
		t.Error("no node command: no error")
	}
	home := t.TempDir()
	if err := Run(nil, home, 0, []string{filepath.Join(home, "missing")}); err == nil {
		t.Error("a missing node binary: no error")
	}
}
