package scenario

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
)

// Bounds on numbers a scenario can ask for: past them a run cannot end,
// or the machine cannot hold it.
const (
	// MaxRate: 10 million tx/s is past what one harness can send by two
	// orders of magnitude.
	MaxRate = 1e7
	// MaxDuration: a week; durations past it are typos, and their sums
	// could overflow.
	MaxDuration = Duration(7 * 24 * time.Hour)
	// MaxRequestBytes bounds one request's txs (batch x tx_size).
	MaxRequestBytes = 64 << 20
)

// validateNumbers checks every number of the scenario against what
// validate's per-key checks cannot see by themselves: a NaN or infinite
// float anywhere (NaN fails every comparison, so "rate <= 0" lets it
// through and a criterion of NaN never fails), a negative or week-long
// duration anywhere, and rates and sizes past what one machine can do.
func (s *Scenario) validateNumbers(c *Checker) {
	walkNumbers(reflect.ValueOf(s).Elem(), "", c)
	l := &s.Load
	type rate struct {
		path string
		r    float64
	}
	rates := []rate{{"load.rate", l.Rate}, {"load.from", l.From}, {"load.to", l.To},
		{"load.pid.min_rate", l.PID.MinRate}, {"load.pid.max_rate", l.PID.MaxRate}, {"load.pid.start_rate", l.PID.StartRate}}
	for i, st := range l.Steps {
		rates = append(rates, rate{fmt.Sprintf("load.steps[%d].rate", i), st.Rate})
	}
	for i, r := range s.Experiment.Rates {
		rates = append(rates, rate{fmt.Sprintf("experiment.rates[%d]", i), r})
	}
	for i, r := range s.Experiment.QA.Rates {
		rates = append(rates, rate{fmt.Sprintf("experiment.qa.rates[%d]", i), r})
	}
	for _, r := range rates {
		if r.r > MaxRate {
			c.fail(r.path, "%g tx/s: at most %g (one harness sends far less; split the load over several)", r.r, float64(MaxRate))
		}
	}
	if l.Connections > 10000 {
		c.fail("load.connections", "%d: at most 10000", l.Connections)
	}
	if r := s.Experiment.Repeats; r > 1000 {
		c.fail("experiment.repeats", "%d: at most 1000", r)
	}
	if size := int64(l.Batch) * int64(max(s.Workload.TxSize, 1)); size > MaxRequestBytes {
		c.fail("load.batch", "batch %d x tx_size %d = %d bytes a request: at most %d (64 MiB)", l.Batch, s.Workload.TxSize, size, MaxRequestBytes)
	}
	if total := s.Load.Length(); total > MaxDuration.D() {
		c.fail("load", "the load lasts %s: at most %s", total, MaxDuration.D())
	}
}

var durationType = reflect.TypeOf(Duration(0))

// walkNumbers fails every non-finite float and every negative or too long
// duration under v, naming it by its TOML path.
func walkNumbers(v reflect.Value, path string, c *Checker) {
	switch {
	case v.Type() == durationType:
		d := Duration(v.Int())
		if d < 0 {
			c.fail(path, "%s: cannot be negative", d.D())
		} else if d > MaxDuration {
			c.fail(path, "%s: at most %s", d.D(), MaxDuration.D())
		}
		return
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			c.fail(path, "%g: not a finite number", f)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if !f.IsExported() || name == "" || name == "-" {
				continue
			}
			walkNumbers(v.Field(i), join(path, name), c)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walkNumbers(v.Index(i), fmt.Sprintf("%s[%d]", path, i), c)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			walkNumbers(iter.Value(), join(path, fmt.Sprint(iter.Key())), c)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkNumbers(v.Elem(), path, c)
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
