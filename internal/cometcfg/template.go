package cometcfg

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/chainperf/chainperf/internal/suggest"
)

// A Template is the config.toml another CometBFT version writes by
// default (its own init): the keys and value types of that version,
// since they differ between releases (v1.x added [storage] and [grpc],
// and a version key). Nodes of that version get the template with the
// harness settings and the scenario's overrides set, each checked
// against it the way Set checks the embedded version's struct.
type Template struct {
	root map[string]any
	name string // what the errors call it, e.g. "cometbft 1.0.1"
}

// ReadTemplate reads a version's default config.toml; name says which
// version it is in errors.
func ReadTemplate(path, name string) (*Template, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	root := map[string]any{}
	if err := toml.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Template{root: root, name: name}, nil
}

// Keys returns every settable key of the template, sorted.
func (t *Template) Keys() []string {
	var keys []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
			} else if !owned[prefix+k] {
				keys = append(keys, prefix+k)
			}
		}
	}
	walk("", t.root)
	slices.Sort(keys)
	return keys
}

// Set assigns a scenario override, checked like Set: a key of this
// version that chainperf does not own, a value of the template value's
// type (durations as strings), files and listeners kept inside.
func (t *Template) Set(key string, value any) error {
	if owned[key] {
		return fmt.Errorf("%q is set by chainperf for every node and cannot be overridden", key)
	}
	if s, ok := value.(string); ok {
		if err := inside(key, s); err != nil {
			return err
		}
	}
	return t.set(key, value)
}

// SetHarness assigns a setting chainperf owns (addresses, peers,
// Prometheus; on emulated hosts not loopback ones); a version without the
// key is an error that names it.
func (t *Template) SetHarness(key string, value any) error {
	return t.set(key, value)
}

// set assigns value to key, converted to the type of the template's value.
func (t *Template) set(key string, value any) error {
	parts := strings.Split(key, ".")
	m := t.root
	for _, p := range parts[:len(parts)-1] {
		sub, ok := m[p].(map[string]any)
		if !ok {
			return t.unknown(key)
		}
		m = sub
	}
	last := parts[len(parts)-1]
	old, ok := m[last]
	if !ok {
		return t.unknown(key)
	}
	if _, table := old.(map[string]any); table {
		return t.unknown(key)
	}
	v, err := Like(old, value)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	m[last] = v
	return nil
}

func (t *Template) unknown(key string) error {
	msg := fmt.Sprintf("%s has no config key %q", t.name, key)
	if s := suggest.Closest(key, t.Keys()); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return fmt.Errorf("%s", msg)
}

// Like converts a scenario's value to the type of a TOML file's old value
// (durations kept as durations), or says which type it wants.
func Like(old, value any) (any, error) {
	switch o := old.(type) {
	case string:
		s, ok := value.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %s", describe(value))
		}
		// A default that reads as a duration takes only durations.
		if _, err := time.ParseDuration(o); err == nil && o != "" {
			if _, err := time.ParseDuration(s); err != nil {
				return nil, fmt.Errorf("%q is not a duration (write e.g. \"500ms\")", s)
			}
		}
		return s, nil
	case bool:
		b, ok := value.(bool)
		if !ok {
			return nil, fmt.Errorf("want true or false, got %s", describe(value))
		}
		return b, nil
	case int64:
		n, ok := integer(value)
		if !ok {
			return nil, fmt.Errorf("want an integer, got %s", describe(value))
		}
		return n, nil
	case float64:
		switch x := value.(type) {
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("want a finite number, got %v", x)
			}
			return x, nil
		case int64:
			return float64(x), nil
		}
		return nil, fmt.Errorf("want a number, got %s", describe(value))
	case []any:
		list, ok := value.([]any)
		if !ok {
			return nil, fmt.Errorf("want a list of strings, got %s", describe(value))
		}
		for i, x := range list {
			if _, ok := x.(string); !ok {
				return nil, fmt.Errorf("item %d: want a string, got %s", i+1, describe(x))
			}
		}
		return list, nil
	}
	return nil, fmt.Errorf("this key cannot be overridden from a scenario")
}

// Bytes is the config.toml to write.
func (t *Template) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	if err := enc.Encode(t.root); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
