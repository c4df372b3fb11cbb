// Package cometcfg sets CometBFT config.toml values by the names a user
// writes ("consensus.timeout_commit"), checked against CometBFT's own Config
// struct: its mapstructure tags are the key names, its field types the value
// types. One mechanism serves both the scenario check and the node setup.
package cometcfg

import (
	"fmt"
	"net"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/cometbft/cometbft/config"

	"github.com/chainperf/chainperf/internal/suggest"
)

// owned lists keys that chainperf sets itself for every node; overriding
// them would disconnect the node from the harness.
var owned = map[string]bool{
	"home": true, "moniker": true, "proxy_app": true, "abci": true,
	"genesis_file": true, "priv_validator_key_file": true, "priv_validator_state_file": true,
	"node_key_file": true, "priv_validator_laddr": true,
	"rpc.laddr": true, "rpc.pprof_laddr": true, "p2p.laddr": true,
	"p2p.persistent_peers": true, "p2p.seeds": true, "p2p.seed_mode": true, "p2p.external_address": true,
	"instrumentation.prometheus": true, "instrumentation.prometheus_listen_addr": true,
	"instrumentation.namespace": true,
}

// Keys returns every settable key, sorted.
func Keys() []string {
	var keys []string
	walk(reflect.ValueOf(config.DefaultConfig()).Elem(), "", func(k string, _ reflect.Value) {
		if !owned[k] {
			keys = append(keys, k)
		}
	})
	sort.Strings(keys)
	return keys
}

// Set assigns value to key in cfg. Durations are strings ("500ms"); numbers
// may come as int64 or float64 (TOML decoders differ). The error says what
// is wrong and, for an unknown key, the closest known one.
func Set(cfg *config.Config, key string, value any) error {
	if owned[key] {
		return fmt.Errorf("%q is set by chainperf for every node and cannot be overridden", key)
	}
	var field reflect.Value
	walk(reflect.ValueOf(cfg).Elem(), "", func(k string, v reflect.Value) {
		if k == key {
			field = v
		}
	})
	if !field.IsValid() {
		msg := fmt.Sprintf("unknown CometBFT config key %q", key)
		if s := suggest.Closest(key, Keys()); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return fmt.Errorf("%s", msg)
	}
	if err := assign(field, value); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if field.Kind() == reflect.String {
		if err := inside(key, field.String()); err != nil {
			return err
		}
	}
	return nil
}

// inside keeps a node's files and listeners inside the harness: a path
// (a key ending in _file, _dir or _path) must stay under the node's home,
// and a listener (a key ending in laddr or _addr) must bind a loopback
// address, since the harness cannot clean up or account for what lives
// elsewhere.
func inside(key, v string) error {
	switch {
	case v == "":
		return nil
	case strings.HasSuffix(key, "_file") || strings.HasSuffix(key, "_dir") || strings.HasSuffix(key, "_path"):
		if filepath.IsAbs(v) || !filepath.IsLocal(v) {
			return fmt.Errorf("%s = %q: a path outside the node's home; give one relative to it, with no '..'", key, v)
		}
	case strings.HasSuffix(key, "laddr") || strings.HasSuffix(key, "_addr"):
		_, hostport, ok := strings.Cut(v, "://")
		if !ok {
			hostport = v
		}
		host, _, err := net.SplitHostPort(hostport)
		if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
			return fmt.Errorf("%s = %q: a listener must bind a loopback address (127.0.0.1:PORT); chainperf does not open nodes to the network", key, v)
		}
	}
	return nil
}

// walk calls fn for every leaf field of a config struct with its dotted key.
func walk(v reflect.Value, prefix string, fn func(string, reflect.Value)) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("mapstructure")
		if tag == "" || tag == "-" || !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		if tag == ",squash" {
			walk(fv, prefix, fn)
			continue
		}
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() || fv.Elem().Kind() != reflect.Struct {
				continue
			}
			walk(fv.Elem(), prefix+tag+".", fn)
			continue
		}
		if fv.Kind() == reflect.Struct && fv.Type() != reflect.TypeOf(time.Time{}) {
			walk(fv, prefix+tag+".", fn)
			continue
		}
		fn(prefix+tag, fv)
	}
}

var durationType = reflect.TypeOf(time.Duration(0))

func assign(f reflect.Value, value any) error {
	want := f.Type()
	if want == durationType {
		s, ok := value.(string)
		if !ok {
			return fmt.Errorf("want a duration string like \"500ms\", got %s", describe(value))
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration (write e.g. \"500ms\")", s)
		}
		f.SetInt(int64(d))
		return nil
	}
	switch want.Kind() {
	case reflect.String:
		s, ok := value.(string)
		if !ok {
			return fmt.Errorf("want a string, got %s", describe(value))
		}
		f.SetString(s)
	case reflect.Bool:
		b, ok := value.(bool)
		if !ok {
			return fmt.Errorf("want true or false, got %s", describe(value))
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := integer(value)
		if !ok {
			return fmt.Errorf("want an integer, got %s", describe(value))
		}
		if f.OverflowInt(n) {
			return fmt.Errorf("%d is out of range", n)
		}
		f.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := integer(value)
		if !ok || n < 0 {
			return fmt.Errorf("want a non-negative integer, got %s", describe(value))
		}
		if f.OverflowUint(uint64(n)) {
			return fmt.Errorf("%d is out of range", n)
		}
		f.SetUint(uint64(n))
	case reflect.Float32, reflect.Float64:
		switch x := value.(type) {
		case float64:
			f.SetFloat(x)
		case int64:
			f.SetFloat(float64(x))
		default:
			return fmt.Errorf("want a number, got %s", describe(value))
		}
	case reflect.Slice:
		if want.Elem().Kind() != reflect.String {
			return fmt.Errorf("this key cannot be overridden from a scenario")
		}
		list, ok := value.([]any)
		if !ok {
			return fmt.Errorf("want a list of strings, got %s", describe(value))
		}
		out := reflect.MakeSlice(want, len(list), len(list))
		for i, x := range list {
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("item %d: want a string, got %s", i+1, describe(x))
			}
			out.Index(i).SetString(s)
		}
		f.Set(out)
	default:
		return fmt.Errorf("this key cannot be overridden from a scenario")
	}
	return nil
}

func integer(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x == float64(int64(x)) {
			return int64(x), true
		}
	}
	return 0, false
}

func describe(v any) string {
	switch v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case nil:
		return "nothing"
	default:
		return fmt.Sprintf("%v (%T)", v, v)
	}
}
