package compare

import (
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/why/whytest"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/results"
)

// whyRun is a run with a timeline (a whole and its parts) and internals.
func whyRun(id string, precommits, blockParts, execution float64) *results.Run {
	r := &results.Run{Record: results.Record{ID: id, Status: results.StatusComplete}}
	parts := map[string]float64{"after commit": 1000, "proposal": 80, "2/3 prevotes": 100, "2/3 precommits": precommits, "execution": execution}
	f := finding.Finding{Source: "observer/timeline", Title: "timeline"}
	var whole float64
	for _, p := range []string{"after commit", "proposal", "2/3 prevotes", "2/3 precommits", "execution"} {
		f.Figures = append(f.Figures, finding.Figure{Name: "height time: " + p, Unit: "ms", Value: parts[p], Better: finding.Lower, PartOf: "height time"})
		whole += parts[p]
	}
	f.Figures = append(f.Figures, finding.Figure{Name: "height time", Unit: "ms", Value: whole, Better: finding.Lower})
	r.SetFinding(f)
	r.SetFinding(finding.Finding{Source: "observer/internals", Title: "internals", Figures: []finding.Figure{
		{Name: "p2p sent: block parts", Unit: "kB/s", Value: blockParts, Better: finding.Lower},
		{Name: "p2p sent: txs", Unit: "kB/s", Value: 2000, Better: finding.Lower},
		{Name: "disk read", Unit: "MB/s", Value: 0.000001 * blockParts, Better: finding.Lower},                     // tiny: never named
		{Name: "GC pause share", Unit: "share", Value: 0.01 + blockParts/1e6, Better: finding.Lower, Points: true}, // +0.17 pp: not named
	}})
	r.SetFinding(finding.Finding{Source: "observer/profiles", Title: "profiles", Figures: []finding.Figure{
		{Name: "GC CPU share: validator nodes", Unit: "share", Value: blockParts / 8e4, Better: finding.Lower, Points: true}, // 2.0 -> 4.1 %
	}})
	return r
}

// Why names the part that moved a whole and the internals that moved
// most, in the first lines of a comparison; two sides of the same thing
// name nothing.
func TestWhyNamesThePartThatMoved(t *testing.T) {
	side := func(prefix string, precommits, blockParts float64) []Values {
		var out []Values
		for i, jitter := range []float64{-2, 0, 2} {
			out = append(out, FromRun(whyRun(prefix+string(rune('0'+i)), precommits+jitter, blockParts+jitter, 20+jitter/2), nil))
		}
		return out
	}
	res := Compare(side("a", 120, 1600), side("b", 300, 3300), DefaultThreshold, nil)
	if len(res.Why) < 2 {
		t.Fatalf("why: %q; want the whole's line and the internals", res.Why)
	}
	if want := "height time +180 ms (+13.6 %): 2/3 precommits +180 ms"; res.Why[0] != want {
		t.Errorf("first why line %q, want %q", res.Why[0], want)
	}
	if !strings.Contains(res.Why[1], "p2p sent: block parts +106 % (1600 -> 3300 kB/s)") || strings.Contains(res.Why[1], "txs") || strings.Contains(res.Why[1], "disk read") ||
		strings.Contains(res.Why[1], "GC pause") || !strings.Contains(res.Why[1], "GC CPU share: validator nodes +2.1 pp (2.0 -> 4.1 %)") {
		t.Errorf("internals line %q: want block parts and the GC's CPU share (in points) alone", res.Why[1])
	}
	var text strings.Builder
	res.Text(&text)
	if !strings.Contains(text.String(), "why:       height time +180 ms") {
		t.Errorf("compare's text lacks the why line:\n%s", text.String())
	}
	same := Compare(side("a", 120, 1600), side("c", 120, 1600), DefaultThreshold, nil)
	if len(same.Why) != 0 {
		t.Errorf("A/A why: %q; want nothing", same.Why)
	}
}

// A whole measured two ways (the internals' block time from metrics over
// the window, coarse; the timeline's height time, fine): the why names
// the fine one's parts, not the coarse one's (whose parts moved by
// chance: a planted +64 ms after commit read "block time +2.0 %: waiting
// for 2/3 precommits +15 ms" first); without the fine one the coarse line
// is said coarse.
func TestWhyPrefersTheFineMeasure(t *testing.T) {
	run := func(id string, afterCommit, precommits float64, fine bool) Values {
		r := whyRun(id, 120, 1600, 20)
		if !fine {
			r = &results.Run{Record: results.Record{ID: id, Status: results.StatusComplete}}
		} else {
			f, _ := r.Finding("observer/timeline")
			for i, x := range f.Figures {
				switch x.Name {
				case "height time: after commit":
					f.Figures[i].Value = afterCommit
				case "height time":
					f.Figures[i].Value += afterCommit - 1000
				}
			}
		}
		in := []finding.Figure{
			{Name: "block time", Unit: "ms", Value: 1000 + 300 + precommits, Better: finding.Lower, Resolution: 0.1, Precise: "height time"},
			{Name: "block time: waiting after commit", Unit: "ms", Value: 1000, Better: finding.Lower, PartOf: "block time", Resolution: 0.1, Precise: "height time: after commit"},
			{Name: "block time: waiting for 2/3 precommits", Unit: "ms", Value: 300 + precommits, Better: finding.Lower, PartOf: "block time", Resolution: 0.1},
		}
		r.SetFinding(finding.Finding{Source: "observer/internals", Title: "internals", Figures: in})
		return FromRun(r, nil)
	}
	side := func(prefix string, afterCommit, precommits float64, fine bool) []Values {
		var out []Values
		for i, j := range []float64{-2, 0, 2} {
			out = append(out, run(prefix+string(rune('0'+i)), afterCommit+j, precommits+j, fine))
		}
		return out
	}
	res := Compare(side("a", 1000, 100, true), side("b", 1064, 130, true), 2, nil)
	if len(res.Why) == 0 || !strings.HasPrefix(res.Why[0], "height time +64 ms") || strings.Contains(strings.Join(res.Why, "\n"), "block time +") {
		t.Errorf("why %q: want the height time's line, not the coarse block time's", res.Why)
	}
	res = Compare(side("a", 1000, 100, false), side("b", 1064, 130, false), 2, nil)
	if len(res.Why) == 0 || !strings.HasPrefix(res.Why[0], "block time +30 ms") || !strings.Contains(res.Why[0], "(coarse: ") {
		t.Errorf("why %q: want the block time's line said coarse", res.Why)
	}
}

// The profiles' lines name what grew (where a slower candidate spends) and
// what fell (an allocator a change pooled away), by short name; a point
// of drift is neither.
func TestProfileLinesGrewAndFell(t *testing.T) {
	dir := t.TempDir()
	side := func(name string, flat map[string]int64) []Values {
		return []Values{{Profiles: []observe.Profile{{Node: "validator0", Kind: "allocs", File: whytest.WriteAllocs(t, dir, name, flat), Seconds: 20}},
			Roles: map[string]string{"validator0": "validator"}}}
	}
	base := side("b.pb.gz", map[string]int64{"cosmossdk.io/store/cachekv.NewStore": 60, "app.Deliver": 900, "app.drift": 40})
	cand := side("c.pb.gz", map[string]int64{"app.Deliver": 945, "app.drift": 55})
	lines := strings.Join(profileLines(base, cand), "\n")
	if !strings.Contains(lines, "allocs profiles of validator nodes, share fell most: cachekv.NewStore -6.0 pp (6.0 -> 0.0 %)") {
		t.Errorf("lines %q: want the pooled allocator named as fallen", lines)
	}
	if !strings.Contains(lines, "share grew most: app.Deliver +4.5 pp") || strings.Contains(lines, "app.drift") {
		t.Errorf("lines %q: want app.Deliver grown and no line for a point and a half of drift", lines)
	}
	if got := profileLines(base, base); len(got) != 0 {
		t.Errorf("the same profiles: %q", got)
	}
}
