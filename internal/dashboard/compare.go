package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
)

// compareQuery is the compare page's parameters: the two sides in
// `chainperf compare`'s words, the threshold and --force.
type compareQuery struct {
	Base, Cand string
	Threshold  float64
	Force      bool
}

func parseCompare(v url.Values) (compareQuery, error) {
	q := compareQuery{Base: strings.TrimSpace(v.Get("base")), Cand: strings.TrimSpace(v.Get("cand")), Threshold: compare.DefaultThreshold}
	for k := range v {
		if !slices.Contains([]string{"base", "cand", "threshold", "force"}, k) {
			return q, bad("unknown parameter %q: compare takes base, cand, threshold and force", k)
		}
	}
	if t := v.Get("threshold"); t != "" {
		x, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 || x > 1000 {
			return q, bad("threshold %q: a percentage above 0, e.g. 5", t)
		}
		q.Threshold = x
	}
	switch v.Get("force") {
	case "", "0", "false":
	case "1", "true", "on":
		q.Force = true
	default:
		return q, bad("force %q: use 1 or 0", v.Get("force"))
	}
	for _, side := range []string{q.Base, q.Cand} {
		if len(side) > 4096 {
			return q, bad("a side of at most 4096 characters")
		}
	}
	return q, nil
}

// comparison runs the comparison the query names, as `chainperf compare`
// does; a side that does not resolve or sides that ran different things
// are the user's to fix (400).
func (s *Server) comparison(ctx context.Context, q compareQuery) (*compare.Result, error) {
	sides, err := compare.Sides(ctx, s.st, q.Base, q.Cand, 200, false)
	if err != nil {
		// A side that names no run or is written wrong is the user's to
		// fix; the message says which and how.
		return nil, bad("%v", err)
	}
	if diff := compare.Differences(sides[0], sides[1]); len(diff) > 0 && !q.Force {
		return nil, bad("the sides ran different things, so their figures do not compare (tick force to compare anyway): %s", strings.Join(diff, "; "))
	}
	return compare.Compare(sides[0], sides[1], q.Threshold, nil), nil
}

func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	q, err := parseCompare(r.URL.Query())
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	data := map[string]any{"Title": "Compare", "Q": q, "Header": compare.Header}
	if q.Base != "" || q.Cand != "" {
		if q.Base == "" || q.Cand == "" {
			data["Problem"] = "name both a baseline and a candidate"
		} else if res, err := s.comparison(r.Context(), q); err != nil {
			var br badRequest
			if !errors.As(err, &br) {
				s.failErr(w, r, err)
				return
			}
			data["Problem"] = br.msg
		} else {
			type shown struct {
				Cells   []string
				Verdict string
				Gated   bool
			}
			var rows []shown
			for _, row := range res.Rows {
				rows = append(rows, shown{row.Cells(), row.Verdict, row.Gated})
			}
			// The charts' data goes with the page: the runs are read once.
			var js strings.Builder
			if err := res.JSON(&js); err != nil {
				s.failErr(w, r, err)
				return
			}
			over, err := s.overlay(r.Context(), res)
			if err != nil {
				s.failErr(w, r, err)
				return
			}
			data["Result"], data["Rows"], data["Summary"], data["Data"], data["Overlay"] = res, rows, res.Summary(), js.String(), over
		}
	}
	recent, err := s.index.rows(r.Context())
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	var ids []string
	for _, x := range recent {
		if x.Status == results.StatusComplete && len(ids) < 200 {
			ids = append(ids, x.ID)
		}
	}
	data["Recent"] = ids
	s.render(w, "compare.html", data)
}

// compareData is the comparison as JSON (compare's own form), for the
// page's distribution charts.
func (s *Server) compareData(w http.ResponseWriter, r *http.Request) {
	q, err := parseCompare(r.URL.Query())
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	if q.Base == "" || q.Cand == "" {
		s.failErr(w, r, bad("name both sides: base and cand"))
		return
	}
	res, err := s.comparison(r.Context(), q)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	var buf strings.Builder
	if err := res.JSON(&buf); err != nil {
		s.failErr(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(buf.String()))
}

// overlaid is how many runs of a side the compare page overlays.
const overlaid = 10

// A runSeries is one run's main phase second by second, from its start.
type runSeries struct {
	Run       string `json:"run"`
	Side      string `json:"side"`
	Phase     string `json:"phase"`
	Committed []num  `json:"committed"` // over 5 s of whole blocks
	P99       []num  `json:"p99"`       // of the txs seen committed each second
}

// overlay is the sides' runs' main phases, to draw over one another (the
// first overlaid runs of each side), as JSON.
func (s *Server) overlay(ctx context.Context, res *compare.Result) (string, error) {
	out := []runSeries{}
	for _, side := range []struct {
		name string
		ids  []string
	}{{"baseline", res.Baseline}, {"candidate", res.Candidate}} {
		for _, id := range side.ids[:min(len(side.ids), overlaid)] {
			run, err := s.st.Run(ctx, id)
			if err != nil {
				return "", err
			}
			p := run.Main()
			if p == nil {
				continue
			}
			rs := runSeries{Run: id, Side: side.name, Phase: p.Name}
			for i, c := range observe.WindowRates(p.Blocks, p.Start, len(p.Ledger.PerSecond), rateWindow) {
				rs.Committed = append(rs.Committed, num(c))
				p99 := p.Ledger.PerSecond[i].LatencyP99
				if p99 == 0 {
					p99 = math.NaN() // nothing committed that second
				}
				rs.P99 = append(rs.P99, num(p99))
			}
			out = append(out, rs)
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}
