package load

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometbft/cometbft/test/loadtime/payload"
)

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "txs.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReplayReadsHexAndBase64 reads a recorded workload and sends it in
// order through two phases, refusing a phase that needs more than is left.
func TestReplayReadsHexAndBase64(t *testing.T) {
	want := []string{"a=1", "key=value two", "\x00\x01binary", "a=4"}
	file := writeFile(t, fmt.Sprintf("# a comment\n%x\n\n%s\n0x%x\r\n%s\n", want[0], base64.StdEncoding.EncodeToString([]byte(want[1])),
		want[2], base64.RawStdEncoding.EncodeToString([]byte(want[3]))))
	r, err := ReadReplay(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := r.Prepare(ctx, 3); err != nil {
		t.Fatal(err)
	}
	var got []string
	for seq := uint64(0); seq < 3; seq++ {
		tx, err := r.Append(ctx, nil, seq)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(tx))
	}
	// The next phase goes on at tx 3; it may ask for 1, not 2.
	if err := r.Prepare(ctx, 2); err == nil || !strings.Contains(err.Error(), "has 1 left of 4") {
		t.Fatalf("a phase of 2 txs with 1 left: %v", err)
	}
	tx, err := r.Append(ctx, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, string(tx))
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("replayed %q, want %q", got, want)
	}
	if _, err := r.Append(ctx, nil, 1); err == nil {
		t.Fatal("a tx past the file's end")
	}
}

// TestReplayRefusesBadFiles: bad lines are named by file:line; special and
// empty files are refused.
func TestReplayRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		path, want string
	}{
		{writeFile(t, "6869\nnot hex!\n"), "txs.txt:2: neither hex nor base64"},
		{writeFile(t, "# only a comment\n\n"), "holds no tx"},
		{writeFile(t, strings.Repeat("ab", 2<<20)+"\n"), "a line longer than"},
		{dir, "not a regular file"},
		{"/dev/null", "not a regular file"},
		{filepath.Join(dir, "missing"), "no such file"},
	} {
		if _, err := ReadReplay(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
}

// TestReplayStampsLoadtimePayloadsAgain: a file of CometBFT loadtime txs
// is replayed with each tx's intended send time, id and size kept.
func TestReplayStampsLoadtimePayloadsAgain(t *testing.T) {
	lt, err := NewLoadtime("recorded", 2, 100, 300)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		tx, err := lt.AppendAt(context.Background(), nil, uint64(i), old)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&text, "%x\n", tx)
	}
	r, err := ReadReplay(writeFile(t, text.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.String(), "loadtime payloads") {
		t.Fatalf("not seen as loadtime: %s", r)
	}
	now := time.Now().Round(time.Microsecond)
	tx, err := r.AppendAt(context.Background(), nil, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	p, err := payload.FromBytes(tx)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Time.AsTime().Equal(now) || string(p.Id) != string(lt.ID[:]) || p.Size != 300 || len(tx) < 298 || len(tx) > 300 { // CometBFT pads in hex, to an even size
		t.Fatalf("replayed payload: time %v (want %v), id %x, size %d, %d bytes", p.Time.AsTime(), now, p.Id, p.Size, len(tx))
	}
}

func FuzzReplayLine(f *testing.F) {
	for _, s := range []string{"6869", "0x6869", "aGk=", "aGk", "", "#", "zz", "0x", "====", "YQ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		tx, err := decodeTx([]byte(line))
		if err == nil && len(tx) == 0 && line != "" {
			t.Fatalf("%q: an empty tx and no error", line)
		}
	})
}
