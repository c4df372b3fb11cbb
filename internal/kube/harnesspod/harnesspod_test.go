package harnesspod

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackUnpack: a results dir goes through whole (files, dirs), a
// symlink in it is left out; a hostile tar (a path out, an absolute path,
// a link, a file over the byte bound, too many entries, a file written
// twice) is refused with the entry named.
func TestPackUnpack(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "reports", "run-1", "profiles"), 0o755)
	os.WriteFile(filepath.Join(src, "runs.db"), []byte("db bytes"), 0o644)
	os.WriteFile(filepath.Join(src, "reports", "run-1", "profiles", "v0-cpu.pb.gz"), []byte("profile"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(src, "reports", "passwd"))
	var buf bytes.Buffer
	if err := Pack(&buf, src); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if err := Unpack(bytes.NewReader(buf.Bytes()), dst, 1<<20, 100); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"runs.db": "db bytes", "reports/run-1/profiles/v0-cpu.pb.gz": "profile"} {
		if got, err := os.ReadFile(filepath.Join(dst, path)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v", path, got, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dst, "reports", "passwd")); !os.IsNotExist(err) {
		t.Errorf("the symlink came through: %v", err)
	}
	if err := Unpack(bytes.NewReader(buf.Bytes()), t.TempDir(), 10, 100); err == nil || !strings.Contains(err.Error(), "more than 10 bytes") {
		t.Errorf("byte bound: %v", err)
	}

	tarOf := func(entries ...*tar.Header) []byte {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		for _, h := range entries {
			tw.WriteHeader(h)
			if h.Typeflag == tar.TypeReg {
				tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
			}
		}
		tw.Close()
		return b.Bytes()
	}
	file := func(name string) *tar.Header {
		return &tar.Header{Name: name, Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}
	}
	for _, c := range []struct {
		name string
		tar  []byte
		want string
	}{
		{"a path out", tarOf(file("../escape")), `"../escape" is outside`},
		{"an absolute path", tarOf(file("/etc/x")), `"/etc/x" is outside`},
		{"a link", tarOf(&tar.Header{Name: "l", Typeflag: tar.TypeSymlink, Linkname: "/etc"}), `"l" is not a file or a directory`},
		{"too many", tarOf(file("a"), file("b"), file("c")), "more than 2 entries"},
		{"twice", tarOf(file("a"), file("a")), "file exists"},
	} {
		err := Unpack(bytes.NewReader(c.tar), t.TempDir(), 1<<20, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}
