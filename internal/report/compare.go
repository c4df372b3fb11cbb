package report

import (
	"html/template"
	"io"
	"time"

	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/results"
)

// A Side is one run of a comparison with its node series.
type Side struct {
	Run    *results.Run
	Series []observe.Sample
}

// CompareHTML writes a comparison as one self-contained page: the verdict
// table, then a run of each side next to each other — the QA table and
// grid charts when both have a grid, and the charts of each one's main
// phase (a QA run's steady run) paired by title, baseline on the left.
func CompareHTML(w io.Writer, res *compare.Result, base, cand Side) error {
	var rows [][]string
	for _, r := range res.Rows {
		rows = append(rows, r.Cells())
	}
	var grids, charts []chartPair
	if base.Run.Sweep != nil && cand.Run.Sweep != nil {
		grids = pairCharts(SweepCharts(base.Run.Sweep), SweepCharts(cand.Run.Sweep))
	}
	bp, cp := base.Run.Main(), cand.Run.Main()
	var titles [2]string
	if bp != nil && cp != nil {
		charts = pairCharts(sideBySide(base, bp, cand, cp))
		titles = [2]string{bp.Name, cp.Name}
	}
	table := func(r *results.Run) [][]string {
		if r.Sweep == nil || len(r.Sweep.Cells) == 0 {
			return nil
		}
		return r.Sweep.ProcessedTable()
	}
	return printable.Rendered(w, func(w io.Writer) error {
		return comparePage.Execute(w, map[string]any{
			"Res": res, "Header": compare.Header, "Rows": rows, "Summary": res.Summary(),
			"Base": base.Run, "Cand": cand.Run, "BaseTable": table(base.Run), "CandTable": table(cand.Run),
			"Grids": grids, "Charts": charts, "Phases": titles,
		})
	})
}

// sideBySide are both sides' charts, each pair on one y scale: a side
// drawn to its own data reads 50 tx/s as high as the other's 100.
func sideBySide(base Side, bp *results.Phase, cand Side, cp *results.Phase) ([]Chart, []Chart) {
	shared := yScale{}
	for _, c := range append(mainCharts(base, bp, nil), mainCharts(cand, cp, nil)...) {
		shared[c.Title] = max(shared[c.Title], c.YMax)
	}
	return mainCharts(base, bp, shared), mainCharts(cand, cp, shared)
}

// mainCharts are the charts of a run's phase with the node series of that
// phase only (its load and drain), on scale.
func mainCharts(s Side, p *results.Phase, scale yScale) []Chart {
	end := p.End
	if end.IsZero() {
		end = p.Start.Add(p.Length)
	}
	var series []observe.Sample
	for _, x := range s.Series {
		if !x.At.Before(p.Start.Add(-2*time.Second)) && !x.At.After(end) {
			series = append(series, x)
		}
	}
	return phaseCharts(p, s.Run, series, scale)
}

// A chartPair is one chart of each side, under their common title.
type chartPair struct {
	Title      string
	Base, Cand template.HTML
}

// pairCharts pairs charts by title, in the baseline's order; a chart only
// one side has is paired with nothing.
func pairCharts(base, cand []Chart) []chartPair {
	var out []chartPair
	used := map[string]bool{}
	for _, b := range base {
		p := chartPair{Title: b.Title, Base: svg(b.SVG)}
		for _, c := range cand {
			if c.Title == b.Title && !used[c.Title] {
				p.Cand, used[c.Title] = svg(c.SVG), true
			}
		}
		out = append(out, p)
	}
	for _, c := range cand {
		if !used[c.Title] {
			out = append(out, chartPair{Title: c.Title, Cand: svg(c.SVG)})
		}
	}
	return out
}

var comparePage = template.Must(template.New("compare").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>chainperf compare: {{.Summary}}</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
.regressed { color: #c00; font-weight: bold; } .improved { color: #0a0; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; align-items: start; }
.pair svg { width: 100%; height: auto; }
h3 { margin-bottom: 0.2em; }
</style></head><body>
<h1>chainperf compare</h1>
<p><b>{{.Summary}}</b></p>
<p>Baseline <b>{{.Base.ID}}</b> (node: {{.Base.Versions.Node}}) against candidate <b>{{.Cand.ID}}</b> (node: {{.Cand.Versions.Node}}).</p>
{{range .Res.Changed}}<p>Changed: {{.}}</p>{{end}}
{{if .Res.Why}}<h2>Why</h2><ul>{{range .Res.Why}}<li>{{.}}</li>{{end}}</ul>{{end}}
<h2>Verdicts</h2>
<table><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if eq $i 5}} class="{{$c}}"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</table>
{{range .Res.Notes}}<p>Note: {{.}}</p>{{end}}
{{if or .BaseTable .CandTable}}<h2>Processed txs (the CometBFT QA table)</h2>
<div class="pair"><div><h3>baseline {{.Base.ID}}</h3>{{template "grid" .BaseTable}}</div><div><h3>candidate {{.Cand.ID}}</h3>{{template "grid" .CandTable}}</div></div>{{end}}
{{range .Grids}}<h3>{{.Title}}</h3><div class="pair"><div>{{.Base}}</div><div>{{.Cand}}</div></div>
{{end}}
{{if .Charts}}<h2>Side by side: baseline "{{index .Phases 0}}", candidate "{{index .Phases 1}}"</h2>
{{range .Charts}}<h3>{{.Title}}</h3><div class="pair"><div>{{.Base}}</div><div>{{.Cand}}</div></div>
{{end}}{{end}}
</body></html>
{{define "grid"}}{{if .}}<table>{{range $i, $row := .}}<tr>{{range $row}}{{if eq $i 0}}<th>{{.}}</th>{{else}}<td>{{.}}</td>{{end}}{{end}}</tr>{{end}}</table>{{else}}<p>no grid</p>{{end}}{{end}}
`))
