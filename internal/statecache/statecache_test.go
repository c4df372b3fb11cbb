package statecache

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// home makes a node home with a genesis and a data dir holding file.
func home(t *testing.T, genesis, file string) string {
	t.Helper()
	h := t.TempDir()
	for _, d := range []string{"config", "data/application.db"} {
		if err := os.MkdirAll(filepath.Join(h, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(h, "config", "genesis.json"), []byte(genesis), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h, "data", "application.db", "000001.log"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestSaveOpenRestore(t *testing.T) {
	dir := t.TempDir()
	key, err := Key(map[string]any{"wallets": 10})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := Key(map[string]any{"wallets": 11})
	if key == other || len(key) != 32 {
		t.Fatalf("keys %q and %q", key, other)
	}
	if st, err := Open(dir, key); st != nil || err != nil {
		t.Fatalf("nothing saved: %v, %v", st, err)
	}
	a, b := home(t, `{"g":1}`, "store a"), home(t, `{"g":1}`, "store b")
	st, err := Save(dir, Meta{Key: key, Created: time.Now(), Height: 3, Chain: []byte(`{"x":1}`)},
		[]Home{{"validator0", a}, {"validator1", b}}, map[string][]byte{"wallets": []byte("cosmos1a\n")})
	if err != nil {
		t.Fatal(err)
	}
	if st.Meta.Bytes != int64(len(`{"g":1}`)+len("store a")+len("store b")+len("cosmos1a\n")) {
		t.Fatalf("bytes %d", st.Meta.Bytes)
	}
	got, err := Open(dir, key)
	var chain bytes.Buffer
	if err != nil || got == nil || got.Meta.Height != 3 || json.Compact(&chain, got.Meta.Chain) != nil || chain.String() != `{"x":1}` {
		t.Fatalf("open: %+v, %v", got, err)
	}
	if w, err := os.ReadFile(got.File("wallets")); err != nil || string(w) != "cosmos1a\n" {
		t.Fatalf("wallets file: %q, %v", w, err)
	}
	// A new home of validator1 gets validator1's store and the genesis.
	fresh := home(t, `{"new":true}`, "fresh")
	if err := got.Restore("validator1", fresh); err != nil {
		t.Fatal(err)
	}
	if s, _ := os.ReadFile(filepath.Join(fresh, "data", "application.db", "000001.log")); string(s) != "store b" {
		t.Fatalf("restored store %q", s)
	}
	if g, _ := os.ReadFile(filepath.Join(fresh, "config", "genesis.json")); string(g) != `{"g":1}` {
		t.Fatalf("restored genesis %q", g)
	}
	if err := got.Restore("validator7", fresh); err == nil {
		t.Fatal("a node the state does not hold was restored")
	}
	// Saved again (another run meanwhile): the first is kept.
	if again, err := Save(dir, Meta{Key: key, Height: 9}, []Home{{"validator0", a}}, nil); err != nil || again.Meta.Height != 3 {
		t.Fatalf("saved twice: %+v, %v", again, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
	// A meta that is not this state's is an error that says what to do.
	if err := os.WriteFile(filepath.Join(dir, key, "meta.json"), []byte(`{"key":"`+other+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, key); err == nil || !strings.Contains(err.Error(), "remove the directory") {
		t.Fatalf("a foreign meta: %v", err)
	}
	if _, err := Open(dir, "../etc"); err == nil {
		t.Fatal("a key that is a path was opened")
	}
}

// A store holding a link is not saved: the copy would follow it out, or
// drop a file the store needs.
func TestSaveRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	key, _ := Key("links")
	h := home(t, `{}`, "x")
	if err := os.Symlink("/etc/passwd", filepath.Join(h, "data", "application.db", "LOCK")); err != nil {
		t.Fatal(err)
	}
	if _, err := Save(dir, Meta{Key: key}, []Home{{"validator0", h}}, nil); err == nil || !strings.Contains(err.Error(), "a symlink") {
		t.Fatalf("a store with a link: %v", err)
	}
	if st, _ := Open(dir, key); st != nil {
		t.Fatal("a failed save left a state")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("a failed save left %v", left)
	}
}
