package report

import "github.com/chainperf/chainperf/internal/results"

// experimentTables are the titled tables of a run's findings: the
// experiment kinds' and the chain's, in the order AllFindings gives.
func experimentTables(r *results.Run) []table {
	var out []table
	for _, f := range r.AllFindings() {
		for _, t := range f.Show() {
			rows := append([][]string{t.Columns}, t.Rows...)
			if len(t.Columns) == 0 {
				rows = nil
			}
			out = append(out, table{Title: t.Title, Note: t.Note, Rows: rows})
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
