package why

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/observe"
)

// SourceProfiles is the source of the profiles finding.
const SourceProfiles = "observer/profiles"

// maxProfile bounds a profile file read back (a node's profile is input).
const maxProfile = 64 << 20

// Shares reads profiles of one kind and returns each function's share of
// their summed flat value (the leaf frame's innermost function), ranked
// by alloc_space where the profile has it, else by its last sample type
// (cpu time, contention delay). Profiles of several nodes add up: the
// shares are those of the nodes together.
func Shares(files []string) (map[string]float64, error) {
	flat := map[string]float64{}
	var total float64
	for _, file := range files {
		data, err := readBounded(file)
		if err != nil {
			return nil, err
		}
		prof, err := profile.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: not a pprof profile: %w", file, err)
		}
		idx := len(prof.SampleType) - 1
		for i, st := range prof.SampleType {
			if st.Type == "alloc_space" {
				idx = i
			}
		}
		if idx < 0 {
			continue
		}
		for _, s := range prof.Sample {
			v := float64(s.Value[idx])
			total += v
			if len(s.Location) == 0 {
				continue
			}
			if name := leafName(s.Location[0]); name != "" {
				flat[name] += v
			}
		}
	}
	if total > 0 {
		for f := range flat {
			flat[f] /= total
		}
	}
	return flat, nil
}

// leafName is a sample's own function, or, for code without symbols (a
// C library's), its file as pprof shows it: "[libc.so.6]".
func leafName(loc *profile.Location) string {
	if len(loc.Line) > 0 && loc.Line[0].Function != nil && loc.Line[0].Function.Name != "" {
		return loc.Line[0].Function.Name
	}
	if loc.Mapping != nil && loc.Mapping.File != "" {
		return "[" + filepath.Base(loc.Mapping.File) + "]"
	}
	return ""
}

// GCShare is the share of the CPU profiles' samples spent collecting
// garbage: the background mark workers and the mark assists that
// allocating goroutines pay (any frame of runtime.gcBgMarkWorker or
// runtime.gcAssistAlloc in the sample's stack). The nodes' own metrics
// say only how long the world stopped.
func GCShare(files []string) (float64, error) {
	var gc, total float64
	for _, file := range files {
		data, err := readBounded(file)
		if err != nil {
			return 0, err
		}
		prof, err := profile.Parse(bytes.NewReader(data))
		if err != nil {
			return 0, fmt.Errorf("%s: not a pprof profile: %w", file, err)
		}
		idx := len(prof.SampleType) - 1
		if idx < 0 {
			continue
		}
		for _, s := range prof.Sample {
			v := float64(s.Value[idx])
			total += v
			if inGC(s) {
				gc += v
			}
		}
	}
	if total == 0 {
		return 0, nil
	}
	return gc / total, nil
}

func inGC(s *profile.Sample) bool {
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function != nil && (l.Function.Name == "runtime.gcBgMarkWorker" || l.Function.Name == "runtime.gcAssistAlloc") {
				return true
			}
		}
	}
	return false
}

// readBounded reads a regular file (not through a symlink) of at most
// maxProfile bytes.
func readBounded(file string) ([]byte, error) {
	fi, err := os.Lstat(file)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", file)
	}
	if fi.Size() > maxProfile {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a profile may have", file, fi.Size(), maxProfile)
	}
	return os.ReadFile(file)
}

// A Delta is one function's share in two sets of profiles.
type Delta struct {
	Func       string
	Base, Cand float64 // shares, 0..1
}

// Diff returns the n functions whose share grew most from base to cand
// (by at least min, points of 1), largest first.
func Diff(base, cand map[string]float64, n int, min float64) []Delta {
	var out []Delta
	for f, c := range cand {
		if b := base[f]; c-b >= min {
			out = append(out, Delta{Func: f, Base: b, Cand: c})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		di, dj := out[i].Cand-out[i].Base, out[j].Cand-out[j].Base
		if di != dj {
			return di > dj
		}
		return out[i].Func < out[j].Func
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// A Group is the profiles of one kind from the nodes of one role.
type Group struct {
	Kind, Role string
	Files      []string
}

// Groups sorts window profiles (those that cover some seconds) by kind
// and the role of their node; roles maps node names to roles.
func Groups(profiles []observe.Profile, roles map[string]string) []Group {
	by := map[[2]string]*Group{}
	var keys [][2]string
	for _, p := range profiles {
		if p.Seconds == 0 || p.File == "" {
			continue
		}
		k := [2]string{p.Kind, roles[p.Node]}
		g := by[k]
		if g == nil {
			g = &Group{Kind: k[0], Role: k[1]}
			by[k] = g
			keys = append(keys, k)
		}
		g.Files = append(g.Files, p.File)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	out := make([]Group, len(keys))
	for i, k := range keys {
		out[i] = *by[k]
	}
	return out
}

// Profiles is the finding of a run's window profiles: each kind's top
// functions by node role (the role's nodes together).
func Profiles(profiles []observe.Profile, roles map[string]string) (finding.Finding, bool) {
	f := finding.Finding{Source: SourceProfiles, Title: "Top functions",
		Note: "Flat share of each function (its own frames, not its callees) in the profiles taken from every node over the measured window, the nodes of a role together; the files are in the report folder's profiles/."}
	for _, g := range Groups(profiles, roles) {
		shares, err := Shares(g.Files)
		if err != nil || len(shares) == 0 {
			continue
		}
		top := Diff(nil, shares, 10, 0)
		t := finding.Table{Title: fmt.Sprintf("Top functions: %s, %s nodes (%d)", g.Kind, g.Role, len(g.Files)), Columns: []string{"function", "share"}}
		for _, d := range top {
			t.Rows = append(t.Rows, []string{ShortFunc(d.Func), fmt.Sprintf("%.1f %%", 100*d.Cand)})
		}
		f.Tables = append(f.Tables, t)
		if g.Kind == "cpu" {
			if gc, err := GCShare(g.Files); err == nil {
				f.Figures = append(f.Figures, finding.Figure{Name: "GC CPU share: " + g.Role + " nodes", Unit: "share", Value: gc, Better: finding.Lower, Points: true})
			}
		}
		if len(top) > 0 && g.Role == "validator" {
			f.Summary = append(f.Summary, finding.Line{Label: g.Kind, Text: fmt.Sprintf("validators' top function %s %.1f %%", ShortFunc(top[0].Func), 100*top[0].Cand)})
		}
	}
	return f, len(f.Tables) > 0
}

// ShortFunc drops a function's module path but its last element:
// github.com/cometbft/cometbft/p2p.(*Switch).Broadcast -> p2p.(*Switch).Broadcast;
// a generic function's type arguments (whose paths have slashes of their
// own) are shown as [...].
func ShortFunc(f string) string {
	name, args := f, ""
	if i := strings.IndexByte(f, '['); i > 0 {
		name, args = f[:i], "[...]"
	}
	dir, last := filepath.Split(name)
	if dir == "" || strings.HasPrefix(last, ".") {
		return name + args
	}
	return last + args
}
