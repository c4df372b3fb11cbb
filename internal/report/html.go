package report

import (
	"html/template"
	"io"

	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/results"
)

// HTML writes report.html: one self-contained file (inline SVG charts and
// styles, nothing fetched) with the summary tables and the charts of every
// phase. series are the run's node samples (may be nil).
func HTML(w io.Writer, r *results.Run, series []observe.Sample) error {
	return htmlPage(w, r, series, nil)
}

// htmlPage is HTML linking the node logs the report folder holds (logs,
// by node).
func htmlPage(w io.Writer, r *results.Run, series []observe.Sample, logs []string) error {
	type phase struct {
		Title  string
		Rows   [][2]string
		Fates  [][2]string
		Charts []Chart
	}
	var phases []phase
	for i, p := range r.Phases {
		ph := phase{Title: phaseTitle(i, p), Rows: figureRows(p), Fates: fateRows(p.Ledger)}
		ph.Charts = PhaseCharts(p, r, series)
		phases = append(phases, ph)
	}
	return printable.Rendered(w, func(w io.Writer) error {
		return page.Execute(w, map[string]any{
			"SweepCharts": SweepCharts(r.Sweep), "Tables": experimentTables(r), "FindingCharts": FindingCharts(r),
			"Run": r, "Verdict": Verdict(r), "Phases": phases, "Duration": lastedText(r),
			"HeadlineHeader": HeadlineHeader, "Headline": headlineRows(r), "Logs": logs, "LogsDir": LogsDir,
		})
	})
}

// svg marks a chart's SVG, made here by gonum/plot, as safe to inline.
func svg(s string) template.HTML { return template.HTML(s) } //nolint:gosec // our own output

var page = template.Must(template.New("report").Funcs(template.FuncMap{"svg": svg, "when": results.Stamp, "whenMilli": results.StampMilli, "mulf": func(f float64) float64 { return 100 * f }}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>chainperf run {{.Run.ID}}: {{.Verdict}}</title>
<style>
body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
.PASS { color: #0a0; } .FAIL, .FAILED, .INTERRUPTED { color: #c00; }
figure { margin: 1em 0; } figcaption { font-weight: bold; }
figure svg { width: 100%; height: auto; }
.band { background: rgba(255,140,0,0.2); padding: 0 4px; }
code { background: #f4f4f4; }
</style></head><body data-ready>
<h1>chainperf run {{.Run.ID}}: <span class="{{.Verdict}}">{{.Verdict}}</span></h1>
<p>Scenario <b>{{.Run.Scenario}}</b>, {{when .Run.Start}}, {{.Duration}}.{{if .Run.Error}} Error: <code>{{.Run.Error}}</code>{{end}}</p>
{{if .Headline}}<table id="headline"><tr>{{range .HeadlineHeader}}<th>{{.}}</th>{{end}}</tr>
{{range .Headline}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>
<p class="note">Rates and latency over each phase's measured window; every tx's fate. The phases' detail, charts and findings follow the criteria.</p>{{end}}
{{if .Run.Checks}}<h2 id="criteria">Criteria</h2><table><tr><th>criterion</th><th>limit</th><th>value</th><th>result</th></tr>
{{range .Run.Checks}}<tr><td>{{.Name}}</td><td>{{.Op}} {{.Limit}}</td><td>{{printf "%.4g" .Value}}</td><td class="{{if .Pass}}PASS{{else}}FAIL{{end}}">{{if .Pass}}pass{{else}}FAIL{{end}}</td></tr>
{{end}}</table>{{end}}
{{if .Run.Crashed}}<p class="FAIL">Crashed nodes: {{range .Run.Crashed}}{{.}} {{end}}</p>{{end}}
{{range .Tables}}<h2>{{.Title}}</h2>{{if .Note}}<p>{{.Note}}</p>{{end}}<table>{{range $i, $row := .Rows}}<tr>{{range $row}}{{if eq $i 0}}<th>{{.}}</th>{{else}}<td>{{.}}</td>{{end}}{{end}}</tr>{{end}}</table>
{{end}}
{{if .Run.Events}}<h2>Events</h2><p>Perturbations are shaded <span class="band">bands</span> on the charts.</p><table><tr><th>at</th><th>event</th></tr>
{{range .Run.Events}}<tr><td>{{whenMilli .At}}</td><td>{{.Detail}}</td></tr>{{end}}</table>{{end}}
{{if .Logs}}<h2 id="node-logs">Node logs</h2><p>Each node's output as the run kept it (its start and end, up to 8 MiB a node; secrets masked), compressed, beside this file: {{range $i, $n := .Logs}}{{if $i}}, {{end}}<a href="{{$.LogsDir}}/{{$n}}.log.gz">{{$n}}</a>{{end}}. <code>chainperf runs logs {{.Run.ID}} --node NODE --level warn</code> prints them filtered.</p>{{end}}
{{with .Run.Sweep}}<h2>Sweep</h2><p>Saturation point: <b>{{printf "%.0f" .Saturation}} tx/s</b>. {{.Evidence}}.</p>
<table><tr><th>connections</th><th>tx/s each</th><th>offered tx/s</th><th>expected</th><th>committed</th><th>share</th><th>p99 ms</th><th>rejected</th></tr>
{{range .Cells}}<tr{{if .Saturated}} class="FAIL"{{end}}><td>{{.Connections}}</td><td>{{.Rate}}</td><td>{{printf "%.0f" .Offered}}</td><td>{{.Expected}}</td><td>{{.Committed}}</td><td>{{printf "%.1f %%" (mulf .Share)}}</td><td>{{printf "%.0f" .P99}}</td><td>{{.Rejected}}</td></tr>
{{end}}</table>{{end}}
{{range .SweepCharts}}<figure><figcaption>{{.Title}}</figcaption>{{svg .SVG}}</figure>
{{end}}
{{range .FindingCharts}}<figure><figcaption>{{.Title}}</figcaption>{{svg .SVG}}</figure>
{{end}}
{{range .Phases}}<h2>{{.Title}}</h2>
<table>{{range .Rows}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>{{end}}</table>
<table><tr><th>fate</th><th>txs</th></tr>{{range .Fates}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>{{end}}</table>
{{range .Charts}}<figure><figcaption>{{.Title}}</figcaption>{{svg .SVG}}</figure>
{{end}}{{end}}
{{if .Run.Profiles}}<h2>Profiles</h2>{{range .Run.Profiles}}
<h3>{{.Kind}} of {{.Node}} at {{when .At}}, by {{.Value}}</h3><p><code>{{.File}}</code></p>
<table><tr><th>function</th><th>flat</th><th>share</th></tr>{{range .Top}}<tr><td>{{.Func}}</td><td>{{.Flat}}</td><td>{{printf "%.1f %%" (mulf .Share)}}</td></tr>{{end}}</table>{{end}}{{end}}
<h2>Environment</h2>
<ul><li>host: {{.Run.Host.CPU}}, {{.Run.Host.Cores}} cores, {{.Run.Host.MemoryMB}} MiB, kernel {{.Run.Host.Kernel}}</li>
<li>chainperf {{.Run.Versions.Chainperf}} {{.Run.Versions.Commit}} ({{.Run.Versions.Go}})</li>
<li>node: {{.Run.Versions.Node}}</li>
<li>testnet: {{range .Run.Nodes}}{{.Name}} ({{.Role}}) {{end}}</li>
{{range .Run.NodeVersions}}<li>nodes by version: {{.}}</li>{{end}}
{{if .Run.Scale}}<li>scale profile: {{range .Run.Scale}}<code>{{.}}</code> {{end}}</li>{{end}}{{if .Run.Config}}<li>CometBFT config overrides: {{range $k, $v := .Run.Config}}<code>{{$k}} = {{$v}}</code> {{end}}</li>{{if index .Run.Config "rpc.unsafe"}}<li class="FAIL">rpc.unsafe is on: the nodes' RPC took unsafe commands during this run</li>{{end}}{{end}}
{{with .Run.WAN}}<li>emulated WAN: {{.Table}} delays, {{.Backend}} backend, jitter {{printf "%.0f" (mulf .Jitter)}} %, loss {{.Loss}} %, zones {{range $n, $z := .Zones}}{{$n}}={{$z}} {{end}}</li>{{end}}
{{range $k, $v := .Run.Labels}}<li>label <code>{{$k}}={{$v}}</code></li>{{end}}</ul>
<h2>Scenario</h2><pre>{{.Run.Text}}</pre>
</body></html>
`))

// lastedText is how long the run took, or "no end recorded".
func lastedText(r *results.Run) string {
	s, _ := r.Lasted()
	return s
}
