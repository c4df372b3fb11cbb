package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/chainperf/chainperf/internal/finding"
)

// SetFinding records a producer's finding, in place of the one it made
// before (a chain adapter fills its finding in as the run goes).
func (r *Run) SetFinding(f finding.Finding) {
	for i := range r.Found {
		if r.Found[i].Source == f.Source {
			r.Found[i] = f
			return
		}
	}
	r.Found = append(r.Found, f)
}

// Finding returns the run's finding from source, if it has one.
func (r *Run) Finding(source string) (*finding.Finding, bool) {
	for i := range r.Found {
		if r.Found[i].Source == source {
			return &r.Found[i], true
		}
	}
	return nil, false
}

// A LegacyReader turns what a run stored under a key of its own before
// findings were data ("cosmos", "evm") into findings.
type LegacyReader func(raw json.RawMessage) (finding.Finding, error)

var legacy = struct {
	sync.Mutex
	readers map[string]LegacyReader
	keys    map[string]string // source -> key
}{readers: map[string]LegacyReader{}, keys: map[string]string{}}

// RegisterLegacy tells how to read a run record's top-level key that an
// earlier chainperf wrote, and that the finding of source is that record
// (its producer registers it, in an init): the key is read back as the
// finding, and written with the finding's detail as before, so that
// summary.json keeps the key its readers know.
func RegisterLegacy(key, source string, read LegacyReader) {
	legacy.Lock()
	defer legacy.Unlock()
	legacy.readers[key] = read
	legacy.keys[source] = key
}

// MarshalJSON writes the run record, and each finding whose source has a
// legacy key also under that key, after the others (its detail, as
// earlier builds wrote the record there).
func (r Run) MarshalJSON() ([]byte, error) {
	type plain Run // without this method
	b, err := json.Marshal(plain(r))
	if err != nil {
		return nil, err
	}
	legacy.Lock()
	defer legacy.Unlock()
	for _, f := range r.Found {
		key, ok := legacy.keys[f.Source]
		if !ok || len(f.Detail) == 0 || len(b) < 2 || b[len(b)-1] != '}' {
			continue
		}
		k, _ := json.Marshal(key)
		b = append(append(append(append(b[:len(b)-1], ','), k...), ':'), f.Detail...)
		b = append(b, '}')
	}
	return b, nil
}

// legacyKeys are the top-level keys earlier builds wrote for a chain's
// record; a stored run with one of them gets it as a finding.
var legacyKeys = []string{"cosmos", "evm"}

// UnmarshalJSON reads a run record; one an earlier chainperf stored with
// a chain's record under a key of its own gets that record as a finding
// (through its producer's LegacyReader; kept as it was, with a note, when
// this build has none), so stored runs render and compare as before.
func (r *Run) UnmarshalJSON(b []byte) error {
	type plain Run // without this method
	if err := json.Unmarshal(b, (*plain)(r)); err != nil {
		return err
	}
	if !mayHoldLegacy(b) { // most records: no second pass over them
		return nil
	}
	var old map[string]json.RawMessage
	if err := json.Unmarshal(b, &old); err != nil {
		return err
	}
	keys := make([]string, 0, len(old))
	for k := range old {
		if slices.Contains(legacyKeys, k) || registered(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw := old[k]
		if string(raw) == "null" {
			continue
		}
		legacy.Lock()
		read := legacy.readers[k]
		legacy.Unlock()
		f := finding.Finding{Source: "legacy/" + k, Title: k,
			Note: "Stored by an earlier chainperf; this build has no reader for it.", Detail: raw}
		if read != nil {
			var err error
			if f, err = read(raw); err != nil {
				return fmt.Errorf("run %s: its %q record: %w", r.ID, k, err)
			}
		}
		if _, ok := r.Finding(f.Source); !ok {
			r.Found = append(r.Found, f)
		}
	}
	return nil
}

// mayHoldLegacy says whether the record names any legacy key at all (a
// key inside a string or a deeper object also counts: the second pass
// then looks at the top level only).
func mayHoldLegacy(b []byte) bool {
	legacy.Lock()
	keys := slices.Collect(maps.Keys(legacy.readers))
	legacy.Unlock()
	for _, k := range append(keys, legacyKeys...) {
		if bytes.Contains(b, []byte(`"`+k+`"`)) {
			return true
		}
	}
	return false
}

func registered(key string) bool {
	legacy.Lock()
	defer legacy.Unlock()
	_, ok := legacy.readers[key]
	return ok
}
