package files

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.toml")
	os.WriteFile(ok, []byte("x = 1\n"), 0o644)
	if data, err := ReadRegular(ok, 100); err != nil || string(data) != "x = 1\n" {
		t.Errorf("regular file: %q, %v", data, err)
	}
	big := filepath.Join(dir, "big.toml")
	os.WriteFile(big, make([]byte, 101), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{big: "at most 100", dir: "is a directory", "/dev/zero": "is a device", fifo: "is a named pipe", filepath.Join(dir, "none"): "no such file"} {
		done := make(chan error, 1)
		go func() { _, err := ReadRegular(path, 100); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v; want %q", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still reading after 5 s", path)
		}
	}
}

// TestWriteAtomic: the new content replaces the old whole, a symlink at
// the path is replaced and its target untouched, a write that cannot
// happen leaves the old file, and no temporary file stays behind.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "summary.json")
	if err := WriteAtomic(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content %q; want two", b)
	}
	target := filepath.Join(t.TempDir(), "elsewhere")
	os.WriteFile(target, []byte("keep"), 0o644)
	link := filepath.Join(dir, "report.md")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(link, []byte("report"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink != 0 {
		t.Error("the symlink is still there")
	}
	// A folder that is gone: an error, nothing written.
	if err := WriteAtomic(filepath.Join(dir, "gone", "x.json"), []byte("x"), 0o644); err == nil {
		t.Error("write into a missing folder: no error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left: %v; want summary.json and report.md", names)
	}
}
