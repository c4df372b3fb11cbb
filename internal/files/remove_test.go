package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A crafted dir cannot make RemoveBeneath remove anything outside it: a
// link as the path, a link in a middle component, a link inside what is
// removed, the dir itself a link, and a path outside.
func TestRemoveBeneathStaysInside(t *testing.T) {
	outside := t.TempDir()
	precious := filepath.Join(outside, "precious")
	if err := os.MkdirAll(filepath.Join(precious, "validator0"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(precious, "validator0", "keep"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(precious, "keep"), []byte("x"), 0o644)
	intact := func() {
		t.Helper()
		for _, p := range []string{filepath.Join(precious, "keep"), filepath.Join(precious, "validator0", "keep")} {
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("%s was removed: %v", p, err)
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "net")
	os.MkdirAll(filepath.Join(dir, "real", "data"), 0o755)
	os.Symlink(precious, filepath.Join(dir, "home"))                     // a node home that is a link
	os.Symlink(precious, filepath.Join(dir, "mid"))                      // a middle component
	os.Symlink(precious, filepath.Join(dir, "real", "data", "link-out")) // inside what is removed

	if err := RemoveBeneath(dir, filepath.Join(dir, "home")); err != nil {
		t.Fatalf("removing a link home: %v", err)
	}
	intact()
	if _, err := os.Lstat(filepath.Join(dir, "home")); !os.IsNotExist(err) {
		t.Errorf("the link itself stayed: %v", err)
	}
	err := RemoveBeneath(dir, filepath.Join(dir, "mid", "validator0"))
	if err == nil || !strings.Contains(err.Error(), "not followed") {
		t.Errorf("a link in a middle component: %v; want a refusal", err)
	}
	intact()
	if err := RemoveBeneath(dir, "/etc"); err == nil || !strings.Contains(err.Error(), "not inside") {
		t.Errorf("a path outside: %v; want a refusal", err)
	}
	linkDir := filepath.Join(t.TempDir(), "linked-net")
	os.Symlink(precious, linkDir)
	if err := RemoveBeneath(linkDir, linkDir); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("the dir itself a link: %v; want a refusal", err)
	}
	intact()
	if err := RemoveBeneath(dir, dir); err != nil {
		t.Fatalf("the whole dir: %v", err)
	}
	intact()
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("the dir stayed: %v", err)
	}
}
