// Package finding is the one shape in which a run's producers (chain
// adapters, experiment kinds, observers) hand what they found to every
// reader (report.md and report.html, the dashboard, compare, the run
// summary, the criteria). A reader renders any finding without knowing
// who made it; the producer keeps its own record in Detail for its own
// readers. Adding a figure touches its producer only.
package finding

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Better says which way a figure is better; the values are also the JSON
// values.
type Better string

const (
	Higher  Better = "higher" // throughput
	Lower   Better = "lower"  // latency, gas
	Neither Better = ""       // a count that is neither (informative)
)

// A Figure is one number a producer measured.
type Figure struct {
	Name  string  `json:"name"` // unique in a run: "msg/s send", "max sustainable tx/s"
	Unit  string  `json:"unit,omitempty"`
	Value float64 `json:"value"`
	// SE is the value's standard error where the producer knows it (batch
	// means, a confidence interval), in the figure's unit; DF its degrees
	// of freedom. Zero: not known.
	SE     float64 `json:"se,omitempty"`
	DF     int     `json:"df,omitempty"`
	Better Better  `json:"better,omitempty"`
	// Gate: a regression of the figure fails a comparison; otherwise it
	// only informs.
	Gate bool `json:"gate,omitempty"`
	// Points: the figure is a share (0..1); its changes are in
	// percentage points.
	Points bool `json:"points,omitempty"`
	// Must is a limit the producer holds the figure to in every run (funds
	// not conserved <= 0): the run's criteria check it. Nil: none.
	Must *Limit `json:"must,omitempty"`
	// PartOf names the figure of the same finding this one is a part of
	// (the parts add up to it): compare says which part moved the whole.
	PartOf string `json:"part_of,omitempty"`
	// Resolution is the smallest relative change one run's value can show
	// where the producer's measure is coarser than its noise (0.07: a mean
	// over 15 heights from metrics scraped at the window's edges, ±7 %);
	// 0: as fine as its samples. Precise names the run's figure that
	// measures the same quantity finely, if it has one.
	Resolution float64 `json:"resolution,omitempty"`
	Precise    string  `json:"precise,omitempty"`
}

// A Limit is a bound on a figure: Op is ">=" or "<=".
type Limit struct {
	Op    string  `json:"op"`
	Value float64 `json:"value"`
}

// Holds says whether x is within the limit.
func (l Limit) Holds(x float64) bool {
	if l.Op == ">=" {
		return x >= l.Value
	}
	return x <= l.Value
}

// A Table is a titled grid: Columns name the cells of each row. An empty
// Title: the table belongs under its finding's own title.
type Table struct {
	Title   string     `json:"title,omitempty"`
	Note    string     `json:"note,omitempty"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// A Chart is values drawn over an axis that is not the run's clock (a
// block's height, an offered rate): each line has a value at each point
// of X, NaN where it has none (a gap). Readers draw every chart the same
// way: X across, the lines' values up, one colour a line.
type Chart struct {
	Title string      `json:"title"`
	Note  string      `json:"note,omitempty"`
	XName string      `json:"x_name"` // what X counts, "height"
	Unit  string      `json:"unit"`   // of the lines' values
	X     []float64   `json:"x"`
	Lines []ChartLine `json:"lines"`
}

// A ChartLine is one labelled line of a chart.
type ChartLine struct {
	Label  string
	Values []float64 // one a point of X; NaN: none there
}

type chartLineJSON struct {
	Label  string     `json:"label"`
	Values []*float64 `json:"values"`
}

// MarshalJSON writes a gap (NaN) as null: JSON has no NaN.
func (l ChartLine) MarshalJSON() ([]byte, error) {
	out := chartLineJSON{Label: l.Label, Values: make([]*float64, len(l.Values))}
	for i, v := range l.Values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out.Values[i] = &v
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads null as a gap (NaN).
func (l *ChartLine) UnmarshalJSON(b []byte) error {
	var in chartLineJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	l.Label, l.Values = in.Label, make([]float64, len(in.Values))
	for i, v := range in.Values {
		l.Values[i] = math.NaN()
		if v != nil {
			l.Values[i] = *v
		}
	}
	return nil
}

// A Line is one line of the run summary `chainperf run` prints
// ("balances: conserved: ...").
type Line struct {
	Label string `json:"label"`
	Text  string `json:"text"`
}

// A Finding is what one producer found in a run.
type Finding struct {
	// Source names the producer, "chain/cosmos", "kind/find-max",
	// "observer/p2p": a run holds one finding a source.
	Source  string   `json:"source"`
	Title   string   `json:"title"`
	Note    string   `json:"note,omitempty"`
	Figures []Figure `json:"figures,omitempty"`
	Tables  []Table  `json:"tables,omitempty"`
	Charts  []Chart  `json:"charts,omitempty"`
	Summary []Line   `json:"summary,omitempty"`
	// TablesShowFigures: the producer's tables already show every figure,
	// so readers add no figures table of their own.
	TablesShowFigures bool `json:"tables_show_figures,omitempty"`
	// Detail is the producer's own record (JSON), for its own readers and
	// tests; no other reader looks inside.
	Detail json.RawMessage `json:"detail,omitempty"`
}

// Figure returns the finding's figure of that name.
func (f *Finding) Figure(name string) (Figure, bool) {
	for _, x := range f.Figures {
		if x.Name == name {
			return x, true
		}
	}
	return Figure{}, false
}

// Check says what is wrong with a finding a producer made (a bug of the
// producer's, never the user's): no source or title, a figure without a
// name, twice the same name, a value that is not a number, a limit that
// is neither ">=" nor "<=", a row whose width is not its table's.
func (f *Finding) Check() error {
	var errs []string
	if f.Source == "" || f.Title == "" {
		errs = append(errs, "a finding needs a source and a title")
	}
	seen := map[string]bool{}
	for _, x := range f.Figures {
		switch {
		case strings.TrimSpace(x.Name) == "":
			errs = append(errs, "a figure has no name")
		case seen[x.Name]:
			errs = append(errs, fmt.Sprintf("figure %q twice", x.Name))
		case math.IsNaN(x.Value) || math.IsInf(x.Value, 0):
			errs = append(errs, fmt.Sprintf("figure %q is %v", x.Name, x.Value))
		case x.Must != nil && x.Must.Op != ">=" && x.Must.Op != "<=":
			errs = append(errs, fmt.Sprintf("figure %q: limit op %q (want >= or <=)", x.Name, x.Must.Op))
		}
		seen[x.Name] = true
	}
	for _, t := range f.Tables {
		for i, r := range t.Rows {
			if len(r) != len(t.Columns) {
				errs = append(errs, fmt.Sprintf("table %q row %d has %d cells for %d columns", t.Title, i+1, len(r), len(t.Columns)))
			}
		}
	}
	for _, c := range f.Charts {
		if strings.TrimSpace(c.Title) == "" {
			errs = append(errs, "a chart has no title")
		}
		for _, l := range c.Lines {
			if len(l.Values) != len(c.X) {
				errs = append(errs, fmt.Sprintf("chart %q line %q has %d values for %d points", c.Title, l.Label, len(l.Values), len(c.X)))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("finding %s: %s", f.Source, strings.Join(errs, "; "))
	}
	return nil
}

// Text shows a figure's value with the digits it deserves and its unit
// (shares as percent).
func (x Figure) Text() string {
	if x.Points || x.Unit == "share" {
		return fmt.Sprintf("%.2f %%", 100*x.Value)
	}
	s := Num(x.Value)
	if x.Unit != "" {
		s += " " + x.Unit
	}
	return s
}

// Num shows a number with the digits it deserves: none from 100, two
// from 1, four below; "-" for NaN or infinity.
func Num(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "-"
	case x == 0:
		return "0"
	case math.Abs(x) >= 100:
		return fmt.Sprintf("%.0f", x)
	case math.Abs(x) >= 1:
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.4f", x)
}

// FigureTable is a finding's figures as a table (figure, value, which
// way is better, what it is for), the form every reader shows them in;
// nil when it has none.
func (f Finding) FigureTable() *Table {
	if len(f.Figures) == 0 {
		return nil
	}
	t := &Table{Title: "Figures", Columns: []string{"figure", "value", "better", "use"}}
	for _, x := range f.Figures {
		better := string(x.Better)
		if better == "" {
			better = "-"
		}
		use := "informs"
		switch {
		case x.Must != nil:
			use = fmt.Sprintf("criterion %s %g", x.Must.Op, x.Must.Value)
		case x.Gate:
			use = "gates compare"
		}
		t.Rows = append(t.Rows, []string{x.Name, x.Text(), better, use})
	}
	return t
}

// Show is the finding's tables in the order every reader shows them, each
// titled: its untitled tables under the finding's title and note, then its
// figures (unless its tables show them), then its titled tables.
func (f Finding) Show() []Table {
	var out, titled []Table
	for _, t := range f.Tables {
		if t.Title != "" {
			titled = append(titled, t)
			continue
		}
		t.Title, t.Note = f.Title, f.Note
		out = append(out, t)
	}
	if ft := f.FigureTable(); ft != nil && !f.TablesShowFigures {
		ft.Title, ft.Note = f.Title+": figures", ""
		if len(out) == 0 {
			ft.Title, ft.Note = f.Title, f.Note
		}
		out = append(out, *ft)
	}
	if len(out) == 0 && len(titled) == 0 {
		out = append(out, Table{Title: f.Title, Note: f.Note})
	}
	return append(out, titled...)
}
