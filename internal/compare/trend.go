package compare

// A Point is one run of a trend: its figure (the mean of its samples)
// and the verdict of the run against the runs before it.
type Point struct {
	Run     string  `json:"run"`
	Value   float64 `json:"value"`
	Verdict string  `json:"verdict"` // Missing for the first run, or when it has no such figure
	Change  float64 `json:"change"`  // percent (points for shares) against the runs before
}

// Trend judges one figure of each run (oldest first) against the up to
// window runs before it that have the figure, with the same test as a
// comparison: regressed marks a run the gate would have failed.
func Trend(vs []Values, name string, window int, threshold float64) []Point {
	f := DescribeIn(vs, name)
	var out []Point
	var before []Values
	for _, v := range vs {
		xs := v.Figures[name]
		if len(xs) == 0 {
			continue
		}
		p := Point{Run: v.Run, Value: center(f, values(xs)), Verdict: Missing}
		if len(before) > 0 {
			row := Judge(f, collect(before, name), xs, threshold)
			p.Verdict, p.Change = row.Verdict, row.Change
		}
		out = append(out, p)
		before = append(before, v)
		if len(before) > window {
			before = before[1:]
		}
	}
	return out
}

// Headline names the figures every comparison leads with.
func Headline() []string {
	out := make([]string, len(headline))
	for i, f := range headline {
		out[i] = f.Name
	}
	return out
}
