package node

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// ProfilingFile, in a node's config directory, sets the Go runtime's
// sampling rates of the mutex and block profiles, which are off by
// default: without it a captured mutex or block profile is empty.
const ProfilingFile = "chainperf-profiling.json"

// Profiling is what ProfilingFile holds.
type Profiling struct {
	// MutexFraction: on average 1/MutexFraction of contention events are
	// reported (runtime.SetMutexProfileFraction); 0 leaves it off.
	MutexFraction int `json:"mutex_profile_fraction,omitempty"`
	// BlockRate: one blocking event sampled per BlockRate ns spent
	// blocked (runtime.SetBlockProfileRate); 0 leaves it off.
	BlockRate int `json:"block_profile_rate,omitempty"`
}

// WriteProfiling writes p into home's config directory (nothing when p
// asks for nothing).
func WriteProfiling(home string, p Profiling) error {
	if p == (Profiling{}) {
		return nil
	}
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, "config", ProfilingFile), data, 0o644)
}

// applyProfiling sets the runtime's rates from home's ProfilingFile, if
// there is one.
func applyProfiling(home string) (Profiling, error) {
	var p Profiling
	path := filepath.Join(home, "config", ProfilingFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(data, &p); err != nil || p.MutexFraction < 0 || p.BlockRate < 0 {
		return p, fmt.Errorf("%s: not a profiling file chainperf wrote (%v): remove it", path, err)
	}
	if p.MutexFraction > 0 {
		runtime.SetMutexProfileFraction(p.MutexFraction)
	}
	if p.BlockRate > 0 {
		runtime.SetBlockProfileRate(p.BlockRate)
	}
	return p, nil
}
