package finding

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// Check refuses each way a producer can get a finding wrong, and passes
// a right one.
func TestCheck(t *testing.T) {
	good := Finding{Source: "chain/x", Title: "X", Figures: []Figure{{Name: "a", Value: 1, Must: &Limit{Op: "<=", Value: 0}}},
		Tables: []Table{{Columns: []string{"k", "v"}, Rows: [][]string{{"1", "2"}}}},
		Charts: []Chart{{Title: "c", X: []float64{1, 2}, Lines: []ChartLine{{Label: "l", Values: []float64{1, math.NaN()}}}}}}
	if err := good.Check(); err != nil {
		t.Fatalf("a right finding: %v", err)
	}
	for _, tc := range []struct {
		name string
		bad  func(*Finding)
		want string
	}{
		{"no source", func(f *Finding) { f.Source = "" }, "a source and a title"},
		{"no name", func(f *Finding) { f.Figures = append(f.Figures, Figure{Name: " "}) }, "a figure has no name"},
		{"twice", func(f *Finding) { f.Figures = append(f.Figures, Figure{Name: "a"}) }, `figure "a" twice`},
		{"NaN", func(f *Finding) { f.Figures[0].Value = math.NaN() }, `figure "a" is NaN`},
		{"op", func(f *Finding) { f.Figures[0].Must = &Limit{Op: "=="} }, `limit op "=="`},
		{"row", func(f *Finding) { f.Tables[0].Rows = append(f.Tables[0].Rows, []string{"1"}) }, "row 2 has 1 cells for 2 columns"},
		{"chart title", func(f *Finding) { f.Charts = []Chart{{X: []float64{1}}} }, "a chart has no title"},
		{"chart line", func(f *Finding) {
			f.Charts = []Chart{{Title: "c", X: []float64{1, 2}, Lines: []ChartLine{{Label: "l", Values: []float64{1}}}}}
		}, `chart "c" line "l" has 1 values for 2 points`},
	} {
		f := good
		f.Figures = append([]Figure(nil), good.Figures...)
		f.Tables = []Table{{Columns: good.Tables[0].Columns, Rows: append([][]string(nil), good.Tables[0].Rows...)}}
		tc.bad(&f)
		if err := f.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}

// Show: untitled tables under the finding's title, then its figures (none
// when its tables show them), then its titled tables; a finding of
// figures alone shows them under its own title.
func TestShow(t *testing.T) {
	f := Finding{Source: "s", Title: "Chain", Note: "note",
		Figures: []Figure{{Name: "share", Value: 0.25, Points: true, Gate: true, Better: Higher}, {Name: "lost", Value: 2, Must: &Limit{Op: "<=", Value: 0}}},
		Tables:  []Table{{Title: "By kind", Columns: []string{"k"}}, {Columns: []string{"what"}}}}
	var titles []string
	for _, t := range f.Show() {
		titles = append(titles, t.Title)
	}
	if got := strings.Join(titles, "|"); got != "Chain|Chain: figures|By kind" {
		t.Errorf("titles %q", got)
	}
	ft := f.FigureTable()
	if got := strings.Join(ft.Rows[0], ","); got != "share,25.00 %,higher,gates compare" {
		t.Errorf("share row %q", got)
	}
	if got := strings.Join(ft.Rows[1], ","); got != "lost,2.00,-,criterion <= 0" {
		t.Errorf("lost row %q", got)
	}
	f.TablesShowFigures = true
	if n := len(f.Show()); n != 2 {
		t.Errorf("%d tables with the figures in the tables; want 2", n)
	}
	only := Finding{Source: "s", Title: "Only", Note: "n", Figures: []Figure{{Name: "x", Value: 3, Unit: "ms"}}}
	if s := only.Show(); len(s) != 1 || s[0].Title != "Only" || s[0].Note != "n" || s[0].Rows[0][1] != "3.00 ms" {
		t.Errorf("figures alone: %+v", s)
	}
}

// A chart's gaps (NaN) go to JSON as null and come back as NaN.
func TestChartGapsRoundTrip(t *testing.T) {
	in := Chart{Title: "c", X: []float64{1, 2, 3}, Lines: []ChartLine{{Label: "l", Values: []float64{1.5, math.NaN(), 3}}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"values":[1.5,null,3]`) {
		t.Fatalf("JSON %s: want the gap as null", b)
	}
	var out Chart
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	v := out.Lines[0].Values
	if len(v) != 3 || v[0] != 1.5 || !math.IsNaN(v[1]) || v[2] != 3 {
		t.Fatalf("read back %v", v)
	}
}
