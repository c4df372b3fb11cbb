package report

import "github.com/chainperf/chainperf/internal/results"

// experimentTables are the titled tables of a run's findings: the
// experiment kinds' and the chain's, in the order AllFindings gives. Their
// text may come from a node (a chain's mismatch examples): control
// characters are escaped (Printable).
func experimentTables(r *results.Run) []table {
	var out []table
	for _, f := range r.AllFindings() {
		for _, t := range f.Show() {
			var rows [][]string
			if len(t.Columns) > 0 {
				for _, row := range append([][]string{t.Columns}, t.Rows...) {
					cells := make([]string, len(row))
					for i, c := range row {
						cells[i] = Printable(c)
					}
					rows = append(rows, cells)
				}
			}
			out = append(out, table{Title: Printable(t.Title), Note: Printable(t.Note), Rows: rows})
		}
	}
	return out
}

// A table has a header row first.
type table struct {
	Title string
	Note  string
	Rows  [][]string
}
