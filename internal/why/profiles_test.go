package why

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/why/whytest"
)

// The validators' window profiles on each side: the candidate's app
// allocates in a cache; Diff names it first, with its shares on both
// sides, and nothing that shrank.
func TestProfilesDiffNamesTheFunctionThatGrew(t *testing.T) {
	dir := t.TempDir()
	base := []string{
		whytest.WriteAllocs(t, dir, "b0.pb.gz", map[string]int64{"app.DeliverTx": 600, "github.com/cometbft/cometbft/p2p.(*Switch).Broadcast": 400}),
		whytest.WriteAllocs(t, dir, "b1.pb.gz", map[string]int64{"app.DeliverTx": 600, "github.com/cometbft/cometbft/p2p.(*Switch).Broadcast": 400}),
	}
	cand := []string{whytest.WriteAllocs(t, dir, "c0.pb.gz", map[string]int64{"app.DeliverTx": 600, "github.com/cometbft/cometbft/p2p.(*Switch).Broadcast": 400, "app.(*cache).grow": 1000})}
	bs, err := Shares(base)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Shares(cand)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(bs["app.DeliverTx"]-0.6) > 1e-9 || math.Abs(cs["app.(*cache).grow"]-0.5) > 1e-9 {
		t.Fatalf("shares %v / %v", bs, cs)
	}
	d := Diff(bs, cs, 3, 0.02)
	if len(d) != 1 || d[0].Func != "app.(*cache).grow" || d[0].Base != 0 || d[0].Cand != 0.5 {
		t.Fatalf("Diff = %+v; want only app.(*cache).grow 0 -> 0.5", d)
	}
	// The finding of a run: each kind's top functions by role.
	profiles := []observe.Profile{{Node: "validator0", Kind: "allocs", File: cand[0], Seconds: 20}, {Node: "full0", Kind: "allocs", File: base[0], Seconds: 20},
		{Node: "validator0", Kind: "heap", File: base[1]}} // a snapshot: not a window profile
	f, ok := Profiles(profiles, map[string]string{"validator0": "validator", "full0": "full"})
	if !ok || len(f.Tables) != 2 {
		t.Fatalf("Profiles: %v, %d tables; want allocs of full and of validator", ok, len(f.Tables))
	}
	if len(f.Summary) != 1 || !strings.Contains(f.Summary[0].Text, "app.(*cache).grow 50.0 %") {
		t.Errorf("summary %v", f.Summary)
	}
	if got := ShortFunc("github.com/cometbft/cometbft/p2p.(*Switch).Broadcast"); got != "p2p.(*Switch).Broadcast" {
		t.Errorf("ShortFunc = %q", got)
	}
	libc := &profile.Location{Mapping: &profile.Mapping{File: "/usr/lib/x86_64-linux-gnu/libc.so.6"}, Line: []profile.Line{{Function: &profile.Function{}}}}
	if got := leafName(libc); got != "[libc.so.6]" {
		t.Errorf("code without symbols: leafName = %q", got)
	}
	if got := leafName(&profile.Location{}); got != "" {
		t.Errorf("nothing known: leafName = %q", got)
	}
	if got := ShortFunc("github.com/tidwall/btree.NewBTreeGOptions[go.shape.struct { cosmossdk.io/store/cachekv/internal.key []uint8 }]"); got != "btree.NewBTreeGOptions[...]" {
		t.Errorf("a generic function: ShortFunc = %q", got)
	}
}

// A profile file is input: one that is not a profile, a symlink or too
// large is refused with its name.
func TestSharesRefusesWhatIsNotAProfile(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pb.gz")
	os.WriteFile(junk, []byte("not a profile"), 0o644)
	link := filepath.Join(dir, "link.pb.gz")
	os.Symlink(whytest.WriteAllocs(t, dir, "real.pb.gz", map[string]int64{"f": 1}), link)
	for _, file := range []string{junk, link, filepath.Join(dir, "gone.pb.gz")} {
		if _, err := Shares([]string{file}); err == nil || !strings.Contains(err.Error(), filepath.Base(file)) {
			t.Errorf("Shares(%s) = %v; want an error naming it", filepath.Base(file), err)
		}
	}
}

// The GC's share of a CPU profile counts every sample with a mark worker
// or a mark assist anywhere in its stack.
func TestGCShare(t *testing.T) {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	fn := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l, ok := fn[name]; ok {
			return l
		}
		id := uint64(len(fn) + 1)
		f := &profile.Function{ID: id, Name: name}
		l := &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
		p.Function, p.Location = append(p.Function, f), append(p.Location, l)
		fn[name] = l
		return l
	}
	for _, s := range []struct {
		stack []string
		v     int64
	}{{[]string{"runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker"}, 200}, {[]string{"runtime.scanobject", "runtime.gcAssistAlloc", "runtime.mallocgc", "app.F"}, 100},
		{[]string{"app.F", "app.Main"}, 700}} {
		var locs []*profile.Location
		for _, n := range s.stack {
			locs = append(locs, loc(n))
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{1, s.v}})
	}
	path := filepath.Join(t.TempDir(), "cpu.pb.gz")
	fh, _ := os.Create(path)
	if err := p.Write(fh); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	if got, err := GCShare([]string{path}); err != nil || math.Abs(got-0.3) > 1e-9 {
		t.Fatalf("GCShare = %v, %v; want 0.3", got, err)
	}
}
