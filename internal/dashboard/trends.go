package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/results"
)

// trendQuery is the trends page's parameters: which runs (a scenario,
// labels), which figure, how many runs before each one it is judged
// against.
type trendQuery struct {
	Scenario  string
	Labels    map[string]string
	LabelText string
	Figure    string
	Window    int
	Threshold float64
}

// maxTrend bounds the runs one trend reads.
const maxTrend = 1000

func parseTrend(v url.Values) (trendQuery, error) {
	q := trendQuery{Scenario: v.Get("scenario"), Figure: v.Get("figure"), LabelText: v.Get("label"), Window: 5, Threshold: compare.DefaultThreshold}
	for k := range v {
		if !slices.Contains([]string{"scenario", "label", "figure", "window"}, k) {
			return q, bad("unknown parameter %q: trends take scenario, label, figure and window", k)
		}
	}
	if q.Figure == "" {
		q.Figure = "committed tx/s"
	} else if !slices.Contains(compare.Headline(), q.Figure) {
		return q, bad("figure %q: use one of %q", q.Figure, compare.Headline())
	}
	var err error
	if q.Labels, err = parseLabels(q.LabelText); err != nil {
		return q, err
	}
	if w := v.Get("window"); w != "" {
		if q.Window, err = strconv.Atoi(w); err != nil || q.Window < 1 || q.Window > 50 {
			return q, bad("window %q: how many runs before each one it is judged against, 1 to 50", w)
		}
	}
	return q, nil
}

// trend reads the complete runs of all (the index, newest first) the
// query names, oldest first, at most maxTrend of the newest, and judges
// the figure along them.
func (s *Server) trend(ctx context.Context, all []row, q trendQuery) (*trendResult, error) {
	lq := listQuery{Scenario: q.Scenario, Labels: q.Labels, Status: string(results.StatusComplete)}
	var ids []string
	starts := map[string]float64{}
	for _, x := range all { // newest first
		if lq.match(x) && len(ids) < maxTrend {
			ids = append(ids, x.ID)
			starts[x.ID] = unix(x.Start)
		}
	}
	slices.Reverse(ids)
	var vs []compare.Values
	for _, id := range ids {
		r, err := s.st.Run(ctx, id)
		if err != nil {
			return nil, err
		}
		// Headline figures come from the record alone: no node series.
		vs = append(vs, compare.FromRun(r, nil))
	}
	return &trendResult{Points: compare.Trend(vs, q.Figure, q.Window, q.Threshold),
		Shifts: compare.Shifts(vs, q.Figure, q.Threshold), Starts: starts}, nil
}

// A trendResult is a trend: each run judged against the runs before it,
// the change points where the figure took a new level, and each run's
// start.
type trendResult struct {
	Points []compare.Point
	Shifts []compare.Shift
	Starts map[string]float64
}

// trendOf reads the trend a request asks for, with the index rows it was
// picked from.
func (s *Server) trendOf(r *http.Request) (q trendQuery, all []row, tr *trendResult, err error) {
	if q, err = parseTrend(r.URL.Query()); err != nil {
		return
	}
	if all, err = s.index.rows(r.Context()); err != nil {
		return
	}
	tr, err = s.trend(r.Context(), all, q)
	return
}

func (s *Server) trendsPage(w http.ResponseWriter, r *http.Request) {
	q, all, tr, err := s.trendOf(r)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	// The chart's data goes with the page: the trend is read once.
	chartData, err := json.Marshal(trendChart(q, tr))
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	var regressed []compare.Point
	for _, p := range tr.Points {
		if p.Verdict == compare.Regressed {
			regressed = append(regressed, p)
		}
	}
	s.render(w, "trends.html", map[string]any{
		"Title": "Trends", "Q": q, "Scenarios": scenarioNames(all), "Figures": compare.Headline(),
		"Points": len(tr.Points), "Regressed": regressed, "Shifts": tr.Shifts, "Data": string(chartData),
	})
}

// trendsData is the trend as JSON: one point a run, with its start time
// and verdict.
func (s *Server) trendsData(w http.ResponseWriter, r *http.Request) {
	q, _, tr, err := s.trendOf(r)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, trendChart(q, tr))
}

// trendChart is what the trend's chart draws: one point a run, with its
// start time and verdict, and the change points (shifts: the first run of
// each new level).
func trendChart(q trendQuery, tr *trendResult) any {
	type at struct {
		compare.Point
		Start  float64 `json:"start"`
		Value  num     `json:"value"`
		Change num     `json:"change"`
	}
	out := make([]at, len(tr.Points))
	for i, p := range tr.Points {
		out[i] = at{p, tr.Starts[p.Run], num(p.Value), num(p.Change)}
	}
	type shift struct {
		compare.Shift
		Before num `json:"before"`
		After  num `json:"after"`
		Change num `json:"change"`
		P      num `json:"p"`
	}
	shifts := make([]shift, len(tr.Shifts))
	for i, x := range tr.Shifts {
		shifts[i] = shift{x, num(x.Before), num(x.After), num(x.Change), num(x.P)}
	}
	return map[string]any{"figure": q.Figure, "unit": compare.Describe(q.Figure).Unit, "points": out, "shifts": shifts}
}
