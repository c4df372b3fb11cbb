// Package statecache keeps a testnet's start state on disk, so that a
// chain whose genesis takes minutes to load (a million funded accounts)
// loads it once: every node's data directory once the nodes made their
// first blocks, the genesis they started from, and what the chain adapter
// adds (the wallets it funded). A state is named by a hash of all that
// made it, so a changed binary, testnet or funding is a new state, never
// a stale one.
package statecache

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/chainperf/chainperf/internal/files"
)

// format changes when what a state holds or how it is laid out does, so
// that states an older chainperf saved are not read.
const format = 1

// Dir is where states are kept: $CHAINPERF_STATE_CACHE, else the user
// cache dir's chainperf/states.
func Dir() string {
	if d := os.Getenv("CHAINPERF_STATE_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "chainperf", "states")
	}
	return filepath.Join(os.TempDir(), "chainperf-states")
}

// Key names the state that what describes makes: a hash of its JSON.
func Key(what any) (string, error) {
	b, err := json.Marshal(struct {
		Format int `json:"format"`
		What   any `json:"what"`
	}{format, what})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16]), nil
}

// Meta is what a state says of itself.
type Meta struct {
	Key     string    `json:"key"`
	Created time.Time `json:"created"`
	// Height is the nodes' height when they were stopped to be saved.
	Height int64 `json:"height"`
	// BuildSecs is how long the nodes took from their start to Height:
	// what a run starting from the state does not spend.
	BuildSecs float64 `json:"build_secs"`
	// Bytes is the disk the state takes: the data directories and genesis.
	Bytes int64 `json:"bytes"`
	// Chain is the adapter's own (its wallets, its funding).
	Chain json.RawMessage `json:"chain,omitempty"`
}

// A State is a saved start state, read only.
type State struct {
	Dir  string
	Meta Meta
}

var keyPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// Open finds the state key names in dir; nil and no error when there is
// none. Opening it counts as a use (Prune keeps what was used last).
func Open(dir, key string) (*State, error) {
	st, err := open(dir, key)
	if st != nil {
		now := time.Now()
		os.Chtimes(filepath.Join(st.Dir, "meta.json"), now, now) //nolint:errcheck // a read-only cache still restores
	}
	return st, err
}

func open(dir, key string) (*State, error) {
	if !keyPattern.MatchString(key) {
		return nil, fmt.Errorf("state key %q is not one Key makes", key)
	}
	path := filepath.Join(dir, key)
	raw, err := files.ReadRegular(filepath.Join(path, "meta.json"), 1<<20)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("saved state %s: %w", path, err)
	}
	var m Meta
	if err := json.Unmarshal(raw, &m); err != nil || m.Key != key {
		return nil, fmt.Errorf("saved state %s: meta.json is not this state's (%v): remove the directory to build it again", path, err)
	}
	return &State{Dir: path, Meta: m}, nil
}

// Genesis is the path of the state's genesis file.
func (s *State) Genesis() string { return filepath.Join(s.Dir, "genesis.json") }

// File is the path of a file the adapter saved beside the state.
func (s *State) File(name string) string { return filepath.Join(s.Dir, "files", filepath.Base(name)) }

// Restore puts node's saved data directory into home (replacing the one
// there) and the state's genesis into home/config.
func (s *State) Restore(node, home string) error {
	data := filepath.Join(home, "data")
	if err := files.RemoveBeneath(home, data); err != nil {
		return err
	}
	if _, err := files.CopyTree(filepath.Join(s.Dir, "nodes", filepath.Base(node), "data"), data); err != nil {
		return fmt.Errorf("restore %s's data from %s: %w", node, s.Dir, err)
	}
	genesis := filepath.Join(home, "config", "genesis.json")
	if err := os.Remove(genesis); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	_, err := files.CopyFile(s.Genesis(), genesis)
	return err
}

// A Home is a node's home directory.
type Home struct{ Node, Dir string }

// Save keeps the state of stopped nodes under dir: each one's data
// directory, the first one's genesis and the adapter's files (name to
// contents), whole or not at all. When another run saved the same state
// meanwhile, that one is kept and returned.
func Save(dir string, m Meta, homes []Home, extra map[string][]byte) (*State, error) {
	if !keyPattern.MatchString(m.Key) || len(homes) == 0 {
		return nil, fmt.Errorf("a state needs a key Key made and a node (key %q, %d nodes)", m.Key, len(homes))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(dir, "."+m.Key+".saving-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) //nolint:errcheck // gone once renamed
	n, err := files.CopyFile(filepath.Join(homes[0].Dir, "config", "genesis.json"), filepath.Join(tmp, "genesis.json"))
	if err != nil {
		return nil, err
	}
	m.Bytes += n
	for _, h := range homes {
		node := filepath.Join(tmp, "nodes", filepath.Base(h.Node))
		if err := os.MkdirAll(node, 0o755); err != nil {
			return nil, err
		}
		n, err := files.CopyTree(filepath.Join(h.Dir, "data"), filepath.Join(node, "data"))
		if err != nil {
			return nil, fmt.Errorf("save %s's data: %w", h.Node, err)
		}
		m.Bytes += n
	}
	if err := os.Mkdir(filepath.Join(tmp, "files"), 0o755); err != nil {
		return nil, err
	}
	for name, b := range extra {
		if err := os.WriteFile(filepath.Join(tmp, "files", filepath.Base(name)), b, 0o644); err != nil {
			return nil, err
		}
		m.Bytes += int64(len(b))
	}
	meta, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "meta.json"), meta, 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, m.Key)); err != nil {
		if st, oerr := Open(dir, m.Key); st != nil && oerr == nil {
			return st, nil
		}
		return nil, err
	}
	return &State{Dir: filepath.Join(dir, m.Key), Meta: m}, nil
}

// MaxBytes is how much disk the states may take together before Prune
// removes the least recently used: $CHAINPERF_STATE_CACHE_MAX_GB
// gigabytes, else 20 (a million accounts on one node is about 1 GB).
func MaxBytes() (int64, error) {
	v := os.Getenv("CHAINPERF_STATE_CACHE_MAX_GB")
	if v == "" {
		return 20 << 30, nil
	}
	gb, err := strconv.ParseFloat(v, 64)
	if err != nil || !(gb >= 0) || gb > 1<<20 {
		return 0, fmt.Errorf("CHAINPERF_STATE_CACHE_MAX_GB=%q: give a number of gigabytes", v)
	}
	return int64(gb * (1 << 30)), nil
}

// Prune removes the states in dir that were used least recently (saved or
// restored), other than keep, until those left take at most max bytes by
// their own count; it returns the keys removed. Only directories named by
// a key and holding a meta.json of that key are counted or removed.
func Prune(dir, keep string, max int64) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type saved struct {
		key   string
		bytes int64
		used  time.Time
	}
	var all []saved
	var total int64
	for _, e := range entries {
		if !e.IsDir() || !keyPattern.MatchString(e.Name()) {
			continue
		}
		st, err := open(dir, e.Name())
		if err != nil || st == nil {
			continue // not a state of ours: left alone
		}
		info, err := os.Stat(filepath.Join(st.Dir, "meta.json"))
		if err != nil {
			continue
		}
		all = append(all, saved{e.Name(), st.Meta.Bytes, info.ModTime()})
		total += st.Meta.Bytes
	}
	slices.SortFunc(all, func(a, b saved) int { return cmp.Compare(a.used.UnixNano(), b.used.UnixNano()) })
	var removed []string
	for _, s := range all {
		if total <= max {
			break
		}
		if s.key == keep {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, s.key)); err != nil {
			return removed, err
		}
		total -= s.bytes
		removed = append(removed, s.key)
	}
	return removed, nil
}
