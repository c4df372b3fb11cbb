// Package whytest writes pprof profiles for the tests of the packages that
// read them (why's profile shares, compare's profile lines).
package whytest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
)

// WriteAllocs writes an allocation profile whose leaf functions have the
// given alloc_space values to dir/name and returns its path.
func WriteAllocs(t testing.TB, dir, name string, flat map[string]int64) string {
	t.Helper()
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}}}
	var id uint64
	for fn, v := range flat {
		id++
		f := &profile.Function{ID: id, Name: fn}
		l := &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
		p.Function = append(p.Function, f)
		p.Location = append(p.Location, l)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{l}, Value: []int64{1, v}})
	}
	path := filepath.Join(dir, name)
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if err := p.Write(fh); err != nil {
		t.Fatal(err)
	}
	return path
}
