package testnet

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
	if err := os.MkdirAll(RegistryDir(), 0o755); err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	return writeAtomic(filepath.Join(RegistryDir(), s.ID+".json"), data)
}

// Forget removes the state file and the registry entry.
func (s *State) Forget() {
	_ = os.Remove(filepath.Join(s.Dir, StateFile))
	_ = os.Remove(filepath.Join(RegistryDir(), s.ID+".json"))
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadState reads the state file of the testnet in dir.
func ReadState(dir string) (*State, error) {
	return readState(filepath.Join(dir, StateFile))
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
	return s, nil
}

// RegistryDir holds one state file per testnet on this machine, so that
// ports are never handed out twice and `chainperf clean` finds leftovers.
// CHAINPERF_REGISTRY overrides it (tests use their own).
func RegistryDir() string {
	if d := os.Getenv("CHAINPERF_REGISTRY"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "chainperf", "testnets")
}

// Registered returns the states in the registry, oldest first. Damaged
// entries are skipped and reported in errs.
func Registered() (states []*State, errs []error) {
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
