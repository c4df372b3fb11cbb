package live

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeadAndTail: a log within the cap is kept whole; a longer one keeps
// its start and its end and says what was cut; a symlink is not followed.
func TestHeadAndTail(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.log")
	os.WriteFile(small, []byte("one\ntwo\n"), 0o644)
	if got, size, err := HeadAndTail(small, 100); err != nil || string(got) != "one\ntwo\n" || size != 8 {
		t.Errorf("small: %q, %d, %v", got, size, err)
	}
	big := filepath.Join(dir, "big.log")
	text := strings.Repeat("a", 1000) + strings.Repeat("m", 5000) + strings.Repeat("z", 1000)
	os.WriteFile(big, []byte(text), 0o644)
	got, size, err := HeadAndTail(big, 1600)
	if err != nil || size != 7000 {
		t.Fatalf("big: %d, %v", size, err)
	}
	head, rest, ok := bytes.Cut(got, []byte("\n[chainperf: 5400 bytes of this log cut here, to keep 1600 of 7000]\n"))
	if !ok || string(head) != strings.Repeat("a", 200) || len(rest) != 1400 || !bytes.HasSuffix(rest, bytes.Repeat([]byte("z"), 1000)) {
		t.Errorf("big: head %d bytes, rest %d bytes, marker %v", len(head), len(rest), ok)
	}
	link := filepath.Join(dir, "link.log")
	os.Symlink(small, link)
	if _, _, err := HeadAndTail(link, 100); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("symlink: %v; want it refused", err)
	}
	if _, _, err := HeadAndTail(dir, 100); err == nil {
		t.Error("a directory read as a log")
	}
}
