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

// States past the size cap go least recently used first: a restored one
// counts as used, the one just saved is never removed, and a directory
// that is not a state of ours is left alone.
func TestPruneLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	h := home(t, `{"chain_id":"x"}`, strings.Repeat("d", 1000))
	var keys []string
	for i := range 3 {
		key, _ := Key(map[string]any{"wallets": i})
		st, err := Save(dir, Meta{Key: key}, []Home{{Node: "validator0", Dir: h}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Saved an hour apart, oldest first.
		at := time.Now().Add(time.Duration(i-3) * time.Hour)
		os.Chtimes(filepath.Join(st.Dir, "meta.json"), at, at)
		keys = append(keys, key)
	}
	size := func() int64 { st, _ := open(dir, keys[0]); return st.Meta.Bytes }()
	os.Mkdir(filepath.Join(dir, strings.Repeat("0", 32)), 0o755) // no meta.json: not ours
	if _, err := Open(dir, keys[0]); err != nil {                // the oldest restored now
		t.Fatal(err)
	}
	removed, err := Prune(dir, keys[2], 2*size)
	if err != nil || len(removed) != 1 || removed[0] != keys[1] {
		t.Fatalf("Prune removed %v, %v; want the least recently used, %s", removed, err, keys[1])
	}
	// A cap below the state just saved removes every other but keeps it.
	removed, err = Prune(dir, keys[2], 0)
	if err != nil || len(removed) != 1 || removed[0] != keys[0] {
		t.Fatalf("Prune removed %v, %v; want %s", removed, err, keys[0])
	}
	for key, want := range map[string]bool{keys[2]: true, strings.Repeat("0", 32): true, keys[0]: false} {
		if _, err := os.Stat(filepath.Join(dir, key)); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", key, err == nil, want)
		}
	}
	t.Setenv("CHAINPERF_STATE_CACHE_MAX_GB", "1.5")
	if n, err := MaxBytes(); err != nil || n != 3<<29 {
		t.Errorf("MaxBytes = %d, %v", n, err)
	}
	t.Setenv("CHAINPERF_STATE_CACHE_MAX_GB", "lots")
	if _, err := MaxBytes(); err == nil || !strings.Contains(err.Error(), "CHAINPERF_STATE_CACHE_MAX_GB") {
		t.Errorf("a bad cap: %v", err)
	}
}
