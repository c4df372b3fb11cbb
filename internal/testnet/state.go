package testnet

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

// StateFile is the name of the state file in a testnet dir.
const StateFile = "testnet.json"

// State is what is known about a testnet that runs (or ran): written to its
// dir and to the registry so that `status`, `down` and `clean` can find its
// processes after the harness that started them is gone.
type State struct {
	*Testnet
	// Harness is the PID of the chainperf process that owns the nodes, with
	// its start time; zero for a detached testnet (no owner).
	HarnessPID   int       `json:"harness_pid,omitempty"`
	HarnessStart uint64    `json:"harness_start,omitempty"`
	Detached     bool      `json:"detached"`
	TempDir      bool      `json:"temp_dir"` // Dir was made by chainperf: remove it at teardown
	Created      time.Time `json:"created"`
}

// Save writes the state to its dir and to the registry, atomically each.
func (s *State) Save() error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(s.Dir, StateFile), data); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	if err := MakeRegistry(); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(RegistryDir(), s.ID+".json"), data)
}

// MakeRegistry makes the registry dir (0700) if it is not there, and
// checks that it is this user's and writable by no one else: its state
// files say which processes to end and which dirs to remove.
func MakeRegistry() error {
	dir := RegistryDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	return checkRegistry(dir)
}

func checkRegistry(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("registry %s is not a directory", dir)
	case !ok || int(st.Uid) != os.Geteuid():
		return fmt.Errorf("registry %s belongs to another user: chainperf trusts only its own (remove it, or set CHAINPERF_REGISTRY)", dir)
	case fi.Mode().Perm()&0o022 != 0:
		// Writable by others, it could hold their state files; readable
		// is harmless (it only tells which testnets run).
		return fmt.Errorf("registry %s is writable by other users (mode %v): chmod 700 it", dir, fi.Mode().Perm())
	}
	return nil
}

// idPattern is every testnet ID NewID makes.
var idPattern = regexp.MustCompile(`^tn-[0-9a-f]{6}$`)

// check refuses a state read back that chainperf could not have written,
// before anything acts on it: an ID of another form, a namespace tag that
// is not the ID's, a node home outside the testnet dir.
func (s *State) check(path string) error {
	if !idPattern.MatchString(s.ID) {
		return fmt.Errorf("state file %s: testnet ID %q is not one chainperf makes", path, s.ID)
	}
	if s.Network != nil && s.Network.Tag != NetworkTag(s.ID) {
		return fmt.Errorf("state file %s: network tag %q is not testnet %s's", path, s.Network.Tag, s.ID)
	}
	if c := s.Cluster; c != nil && c.OwnNamespace && c.Namespace != ClusterNamespace(s.ID) {
		// Deleting it would delete everything in it: only the testnet's own.
		return fmt.Errorf("state file %s: namespace %q is not testnet %s's", path, c.Namespace, s.ID)
	}
	if !filepath.IsAbs(s.Dir) {
		return fmt.Errorf("state file %s: dir %q is not absolute", path, s.Dir)
	}
	for _, n := range s.Nodes {
		if rel, err := filepath.Rel(s.Dir, n.Home); err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("state file %s: node %s's home %q is outside the testnet dir %s", path, n.Name, n.Home, s.Dir)
		}
	}
	return nil
}

// OwnsDir reports whether s's dir is one chainperf may remove whole: one
// it made (a chainperf-testnet- dir in the temp dir) that holds a state
// file of the same testnet.
func (s *State) OwnsDir() bool {
	if !s.TempDir || filepath.Dir(s.Dir) != filepath.Clean(os.TempDir()) || !strings.HasPrefix(filepath.Base(s.Dir), TempDirPrefix) {
		return false
	}
	inDir, err := readState(filepath.Join(s.Dir, StateFile))
	return err == nil && inDir.ID == s.ID
}

// TempDirPrefix starts the name of every testnet dir chainperf makes.
const TempDirPrefix = "chainperf-testnet-"

// Forget removes the registry entry, and the dir's state file while it is
// this testnet's.
func (s *State) Forget() {
	if inDir, err := readState(filepath.Join(s.Dir, StateFile)); err == nil && inDir.ID == s.ID {
		_ = os.Remove(filepath.Join(s.Dir, StateFile))
	}
	_ = os.Remove(filepath.Join(RegistryDir(), s.ID+".json"))
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadState reads the state file of the testnet in dir. The state must
// be of dir itself: a file that names another dir is refused, so that
// acting on it cannot reach outside dir.
func ReadState(dir string) (*State, error) {
	path := filepath.Join(dir, StateFile)
	s, err := readState(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if filepath.Clean(s.Dir) != abs {
		return nil, fmt.Errorf("state file %s names another dir (%s): not acting on it", path, s.Dir)
	}
	return s, nil
}

func readState(path string) (*State, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no testnet state at %s: %w", path, err)
		}
		return nil, err
	}
	s := &State{}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("state file %s is damaged: %w", path, err)
	}
	if s.Testnet == nil {
		return nil, fmt.Errorf("state file %s holds no testnet", path)
	}
	if err := s.check(path); err != nil {
		return nil, err
	}
	return s, nil
}

// RegistryDir holds one state file per testnet on this machine, so that
// ports are never handed out twice and `chainperf clean` finds leftovers.
// CHAINPERF_REGISTRY overrides it (tests use their own).
func RegistryDir() string {
	if d := os.Getenv("CHAINPERF_REGISTRY"); d != "" {
		return d
	}
	// Per user: another user's state files are never read.
	return filepath.Join(os.TempDir(), fmt.Sprintf("chainperf-%d", os.Geteuid()), "testnets")
}

// RegistryKey names this machine's registry (a hash of the host name and
// the registry dir), for the label on what chainperf makes in a cluster:
// `clean --all` removes only what this registry's testnets made there.
func RegistryKey() string {
	host, _ := os.Hostname()
	sum := sha256.Sum256([]byte(host + "\x00" + RegistryDir()))
	return hex.EncodeToString(sum[:6])
}

// Registered returns the states in the registry, oldest first. Damaged
// entries are skipped and reported in errs.
func Registered() (states []*State, errs []error) {
	if err := checkRegistry(RegistryDir()); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, []error{err}
	}
	paths, _ := filepath.Glob(filepath.Join(RegistryDir(), "*.json"))
	for _, p := range paths {
		s, err := readState(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		states = append(states, s)
	}
	sort.Slice(states, func(i, j int) bool { return states[i].Created.Before(states[j].Created) })
	return states, errs
}

// Unregister removes the registry entry with id (for damaged or dead ones).
func Unregister(id string) { _ = os.Remove(filepath.Join(RegistryDir(), id+".json")) }
