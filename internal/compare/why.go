package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/chainperf/chainperf/internal/why"
)

// moved is the least change (percent) of a node internal that Why names:
// internals are not judged, and a short window's counters move by tens of
// percent between two runs of the same thing.
const moved = 25.0

// movedPoints is the least change of a share (a GC's share of CPU, in
// percentage points) that Why names, as minGrowth for functions.
const movedPoints = 2.0

// tiny is a value too small to name as moved whatever its change (0.0003
// MB/s read from disk): the internals' units are chosen so that what
// matters is above it.
const tiny = 0.01

// Why says where a comparison's change came from, in the order a reader
// looks: each whole figure that changed by at least threshold with the
// parts that moved it ("block time +180 ms: waiting for 2/3 precommits
// +150 ms"), the node internals that moved most, and the functions whose
// share of each profile kind grew most by node role.
func Why(rows []Row, figures []Figure, base, cand []Values, threshold float64) []string {
	meta := map[string]Figure{}
	wholes := map[string]bool{}
	for _, f := range figures {
		meta[f.Name] = f
		if f.PartOf != "" {
			wholes[f.PartOf] = true
		}
	}
	byName := map[string]Row{}
	for _, r := range rows {
		byName[r.Figure] = r
	}
	var out []string
	for _, r := range rows {
		if !wholes[r.Figure] || r.Verdict == Missing || math.Abs(r.Change) < threshold {
			continue
		}
		line := partsLine(r, rows, meta)
		if r.Coarse != "" {
			if _, ok := byName[meta[r.Figure].Precise]; ok {
				continue // the figure that measures the same finely says it
			}
			line += " (coarse: " + r.Coarse + ")"
		}
		out = append(out, line)
	}
	var internals []Row
	for _, r := range rows {
		f := meta[r.Figure]
		if !strings.HasPrefix(f.Source, "observer/") || f.PartOf != "" || wholes[r.Figure] {
			continue
		}
		switch {
		case r.Verdict == Missing && len(r.Cand) > 0 && len(r.Base) == 0:
			r.Change = math.Inf(1) // new on the candidate's side
		case r.Verdict == Missing:
			continue
		}
		least := moved
		if r.ChangeIn == "pp" {
			least = movedPoints
		}
		if math.Abs(r.Change) >= least && max(math.Abs(r.BaseMean), math.Abs(r.CandMean)) >= tiny {
			internals = append(internals, r)
		}
	}
	sort.SliceStable(internals, func(i, j int) bool { return math.Abs(internals[i].Change) > math.Abs(internals[j].Change) })
	if len(internals) > 4 {
		internals = internals[:4]
	}
	if len(internals) > 0 {
		var parts []string
		for _, r := range internals {
			parts = append(parts, movedText(r))
		}
		out = append(out, "internals that moved most (not judged): "+strings.Join(parts, "; "))
	}
	return append(out, profileLines(base, cand)...)
}

// partsLine is a whole's change and the parts that made most of it.
func partsLine(whole Row, rows []Row, meta map[string]Figure) string {
	d := whole.CandMean - whole.BaseMean
	type part struct {
		name string
		d    float64
	}
	var parts []part
	for _, r := range rows {
		if meta[r.Figure].PartOf == whole.Figure && r.Verdict != Missing {
			parts = append(parts, part{strings.TrimPrefix(r.Figure, whole.Figure+": "), r.CandMean - r.BaseMean})
		}
	}
	sort.Slice(parts, func(i, j int) bool { return math.Abs(parts[i].d) > math.Abs(parts[j].d) })
	unit := " " + whole.Unit
	if whole.Unit == "" {
		unit = ""
	}
	var named []string
	for i, p := range parts {
		if i == 2 || math.Abs(p.d) < 0.2*math.Abs(d) {
			break
		}
		named = append(named, fmt.Sprintf("%s %+.4g%s", p.name, p.d, unit))
	}
	line := fmt.Sprintf("%s %+.4g%s (%+.1f %%)", whole.Figure, d, unit, whole.Change)
	if len(named) > 0 {
		line += ": " + strings.Join(named, ", ")
	}
	return line
}

func movedText(r Row) string {
	unit := ""
	if r.Unit != "" && r.Unit != "share" {
		unit = " " + r.Unit
	}
	if len(r.Base) == 0 {
		return fmt.Sprintf("%s %s%s (new)", r.Figure, Num(r.CandMean), unit)
	}
	if r.ChangeIn == "pp" { // a share: its change in points, its values in percent
		return fmt.Sprintf("%s %+.1f pp (%.1f -> %.1f %%)", r.Figure, r.Change, 100*r.BaseMean, 100*r.CandMean)
	}
	change := fmt.Sprintf("%+.0f %%", r.Change)
	if math.IsInf(r.Change, 0) {
		change = "from 0"
	}
	return fmt.Sprintf("%s %s (%s -> %s%s)", r.Figure, change, Num(r.BaseMean), Num(r.CandMean), unit)
}

// minGrowth is the least growth of a function's share (of 1) that
// profileLines names: two profiles of the same thing differ by a point
// or two (measured: A/A runs of the default job).
const minGrowth = 0.02

// profileLines names, for each profile kind and node role both sides
// profiled, the functions whose share grew by at least minGrowth, and
// those whose share fell by as much.
func profileLines(base, cand []Values) []string {
	groups := func(vs []Values) map[[2]string][]string {
		out := map[[2]string][]string{}
		for _, v := range vs {
			for _, g := range why.Groups(v.Profiles, v.Roles) {
				k := [2]string{g.Kind, g.Role}
				out[k] = append(out[k], g.Files...)
			}
		}
		return out
	}
	b, c := groups(base), groups(cand)
	var keys [][2]string
	for k := range c {
		if _, ok := b[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	var out []string
	for _, k := range keys {
		bs, err1 := why.Shares(b[k])
		cs, err2 := why.Shares(c[k])
		if err1 != nil || err2 != nil {
			continue // a profile file gone (a report folder removed): nothing to diff
		}
		// Grown: where a slower candidate spends; fallen: what a faster
		// one no longer does (an allocator pooled away).
		for _, way := range []struct {
			verb   string
			deltas []why.Delta
		}{{"grew", why.Diff(bs, cs, 3, minGrowth)}, {"fell", why.Diff(cs, bs, 3, minGrowth)}} {
			var parts []string
			for _, d := range way.deltas {
				base, cand := d.Base, d.Cand
				if way.verb == "fell" {
					base, cand = cand, base
				}
				parts = append(parts, fmt.Sprintf("%s %+.1f pp (%.1f -> %.1f %%)", why.ShortFunc(d.Func), 100*(cand-base), 100*base, 100*cand))
			}
			if len(parts) > 0 {
				out = append(out, fmt.Sprintf("%s profiles of %s nodes, share %s most: %s", k[0], k[1], way.verb, strings.Join(parts, "; ")))
			}
		}
	}
	return out
}
