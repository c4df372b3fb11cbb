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
