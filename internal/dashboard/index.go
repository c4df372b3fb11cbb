package dashboard

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
)

// A row is one run of the runs list: its listing and its headline
// figures (those of its main phase).
type row struct {
	store.Entry
	Committed float64 // committed tx/s
	P99       float64 // latency p99, ms
	Figures   bool    // whether the record had a main phase
	LabelText string  // the labels as the list shows and sorts them
}

// Length is how long the run took (0 while it goes).
func (r row) Length() time.Duration {
	if r.End.IsZero() || r.End.Before(r.Start) {
		return 0
	}
	return r.End.Sub(r.Start).Round(time.Second)
}

// Verdict is PASS or FAIL for a complete run, else its status.
func (r row) Verdict() string {
	if r.Passed == nil {
		return string(r.Status)
	}
	if *r.Passed {
		return "PASS"
	}
	return "FAIL"
}

// figures are a finished run's headline figures, read from its record
// once: a run that has ended does not change.
type figures struct {
	status         results.Status
	end            time.Time
	committed, p99 float64
	ok             bool
}

// An index keeps the figures of every ended run, so that the list, its
// sort and its filters do not parse 10,000 records a request.
type index struct {
	st *store.Store
	mu sync.Mutex
	// figs by run ID; refilled for a run whose status or end changed.
	figs map[string]figures
}

func newIndex(st *store.Store) *index { return &index{st: st, figs: map[string]figures{}} }

// rows returns every run with its figures, newest first.
func (ix *index) rows(ctx context.Context) ([]row, error) {
	entries, err := ix.st.Index(ctx)
	if err != nil {
		return nil, err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	stale := map[string]*store.Entry{}
	for i, e := range entries {
		if e.Status == results.StatusRunning {
			continue
		}
		if f, ok := ix.figs[e.ID]; !ok || f.status != e.Status || !f.end.Equal(e.End) {
			stale[e.ID] = &entries[i]
		}
	}
	read := func(id string, rec []byte) error {
		e := stale[id]
		if e == nil {
			return nil
		}
		f := figuresOf(rec)
		f.status, f.end = e.Status, e.End
		ix.figs[id] = f
		return nil
	}
	// Many to read (the first request): one pass over every record; a
	// few (runs that ended since): one query each.
	if len(stale) > 20 {
		if err := ix.st.Records(ctx, read); err != nil {
			return nil, err
		}
	} else {
		for id := range stale {
			rec, err := ix.st.Record(ctx, id)
			if errors.Is(err, store.ErrNotFound) {
				continue // deleted since the index was read
			}
			if err != nil {
				return nil, err
			}
			read(id, rec)
		}
	}
	out := make([]row, len(entries))
	for i, e := range entries {
		f := ix.figs[e.ID]
		out[i] = row{Entry: e, Committed: f.committed, P99: f.p99, Figures: f.ok, LabelText: results.FormatLabels(e.Labels)}
	}
	return out, nil
}

// figuresOf reads the headline figures from a stored record: the main
// phase's committed tx/s and p99, as the run's own summary chooses it.
// An unreadable record has none (the run's page says why).
func figuresOf(rec []byte) figures {
	var r struct {
		Phases []struct {
			Name    string          `json:"name"`
			Kind    string          `json:"kind"`
			Figures results.Figures `json:"figures"`
		} `json:"phases"`
	}
	if json.Unmarshal(rec, &r) != nil {
		return figures{}
	}
	var o results.Outcome
	for _, p := range r.Phases {
		o.Phases = append(o.Phases, &results.Phase{Name: p.Name, Kind: p.Kind, Figures: p.Figures})
	}
	main := o.Main()
	if main == nil {
		return figures{}
	}
	return figures{committed: main.Figures.CommittedTPS, p99: main.Figures.LatencyP99, ok: true}
}

// listQuery is the runs list's parameters, validated.
type listQuery struct {
	Scenario, Status string
	Labels           map[string]string
	LabelText        string
	From, To         string // dates as given
	from, to         time.Time
	Sort             string
	Desc             bool
	Page             int
}

const pageSize = 50

// sortKeys are the columns the list sorts by.
var sortKeys = map[string]func(a, b row) int{
	"id":        func(a, b row) int { return strings.Compare(a.ID, b.ID) },
	"status":    func(a, b row) int { return strings.Compare(string(a.Status), string(b.Status)) },
	"scenario":  func(a, b row) int { return strings.Compare(a.Scenario, b.Scenario) },
	"labels":    func(a, b row) int { return strings.Compare(a.LabelText, b.LabelText) },
	"start":     func(a, b row) int { return a.Start.Compare(b.Start) },
	"length":    func(a, b row) int { return cmp.Compare(a.Length(), b.Length()) },
	"committed": func(a, b row) int { return cmp.Compare(a.Committed, b.Committed) },
	"p99":       func(a, b row) int { return cmp.Compare(a.P99, b.P99) },
	"verdict":   func(a, b row) int { return strings.Compare(a.Verdict(), b.Verdict()) },
}

func parseList(v url.Values) (listQuery, error) {
	q := listQuery{Scenario: v.Get("scenario"), Status: v.Get("status"), Sort: v.Get("sort"), Page: 1, Desc: true}
	for k := range v {
		switch k {
		case "scenario", "status", "label", "from", "to", "sort", "dir", "page":
		default:
			return q, bad("unknown parameter %q: the runs list takes scenario, status, label, from, to, sort, dir and page", k)
		}
	}
	if q.Status != "" && !slices.Contains(results.Statuses, results.Status(q.Status)) {
		return q, bad("status %q: use one of %v", q.Status, results.Statuses)
	}
	var err error
	if q.Labels, err = parseLabels(v.Get("label")); err != nil {
		return q, err
	}
	q.LabelText = v.Get("label")
	for _, d := range []struct {
		name string
		text *string
		t    *time.Time
	}{{"from", &q.From, &q.from}, {"to", &q.To, &q.to}} {
		*d.text = v.Get(d.name)
		if *d.text == "" {
			continue
		}
		if *d.t, err = time.ParseInLocation("2006-01-02", *d.text, time.Local); err != nil {
			return q, bad("%s %q: write a date, e.g. 2026-11-23", d.name, *d.text)
		}
	}
	if !q.to.IsZero() {
		q.to = q.to.AddDate(0, 0, 1) // to a date includes that day
	}
	if q.Sort == "" {
		q.Sort = "start"
	} else if sortKeys[q.Sort] == nil {
		keys := make([]string, 0, len(sortKeys))
		for k := range sortKeys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return q, bad("sort %q: sort by one of %s", q.Sort, strings.Join(keys, ", "))
	}
	switch v.Get("dir") {
	case "", "desc":
	case "asc":
		q.Desc = false
	default:
		return q, bad("dir %q: use asc or desc", v.Get("dir"))
	}
	if p := v.Get("page"); p != "" {
		if q.Page, err = strconv.Atoi(p); err != nil || q.Page < 1 || q.Page > 1_000_000 {
			return q, bad("page %q: a whole number from 1", p)
		}
	}
	return q, nil
}

// parseLabels reads "k=v k2=v2" (spaces or commas between).
func parseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		k, val, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return nil, bad("label %q: write KEY=VALUE (several separated by spaces)", f)
		}
		out[k] = val
	}
	return out, nil
}

func (q listQuery) match(r row) bool {
	if q.Scenario != "" && r.Scenario != q.Scenario || q.Status != "" && string(r.Status) != q.Status {
		return false
	}
	if !q.from.IsZero() && r.Start.Before(q.from) || !q.to.IsZero() && !r.Start.Before(q.to) {
		return false
	}
	for k, v := range q.Labels {
		if got, ok := r.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// with returns the list's URL with one parameter changed (page reset
// unless it is the page).
func (q listQuery) with(key, value string) string {
	v := url.Values{}
	set := func(k, x string) {
		if x != "" {
			v.Set(k, x)
		}
	}
	set("scenario", q.Scenario)
	set("status", q.Status)
	set("label", q.LabelText)
	set("from", q.From)
	set("to", q.To)
	set("sort", q.Sort)
	if !q.Desc {
		v.Set("dir", "asc")
	}
	if key == "page" {
		set("page", value)
	} else if key == "sort" {
		// The same column again flips the order.
		dir := "desc"
		if value == q.Sort && q.Desc {
			dir = "asc"
		}
		v.Set("sort", value)
		v.Set("dir", dir)
	} else {
		set(key, value)
	}
	return "/?" + v.Encode()
}

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	q, err := parseList(r.URL.Query())
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	all, err := s.index.rows(r.Context())
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	var shown []row
	for _, x := range all {
		if q.match(x) {
			shown = append(shown, x)
		}
	}
	by := sortKeys[q.Sort]
	slices.SortStableFunc(shown, func(a, b row) int {
		if q.Desc {
			return by(b, a)
		}
		return by(a, b)
	})
	pages := max(1, (len(shown)+pageSize-1)/pageSize)
	from := min((q.Page-1)*pageSize, len(shown))
	page := shown[from:min(from+pageSize, len(shown))]
	columns := []struct{ Key, Title string }{
		{"id", "run"}, {"status", "status"}, {"scenario", "scenario"}, {"labels", "labels"}, {"start", "started"},
		{"length", "length"}, {"committed", "committed tx/s"}, {"p99", "p99 ms"}, {"verdict", "verdict"},
	}
	type link struct{ Key, Title, URL, Mark string }
	var heads []link
	for _, c := range columns {
		mark := ""
		if c.Key == q.Sort {
			mark = map[bool]string{true: " ▼", false: " ▲"}[q.Desc]
		}
		heads = append(heads, link{c.Key, c.Title, q.with("sort", c.Key), mark})
	}
	data := map[string]any{
		"Title": "Runs", "Q": q, "Rows": page, "Total": len(all), "Matched": len(shown),
		"Page": q.Page, "Pages": pages, "Heads": heads, "Statuses": results.Statuses,
		"Scenarios": scenarioNames(all),
	}
	if q.Page > 1 {
		data["Prev"] = q.with("page", strconv.Itoa(q.Page-1))
	}
	if q.Page < pages {
		data["Next"] = q.with("page", strconv.Itoa(q.Page+1))
	}
	s.render(w, "runs.html", data)
}

// scenarioNames lists the scenarios of the runs, sorted, for the filters.
func scenarioNames(all []row) []string {
	seen := map[string]bool{}
	var names []string
	for _, x := range all {
		if !seen[x.Scenario] {
			seen[x.Scenario] = true
			names = append(names, x.Scenario)
		}
	}
	sort.Strings(names)
	return names
}
