package dashboard

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/report"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/store"
)

// runOf reads the run named in the path, refusing an ID chainperf does not
// make before it reaches a query.
func (s *Server) runOf(r *http.Request) (*results.Run, error) {
	id := r.PathValue("id")
	if err := results.CheckRunID(id); err != nil {
		return nil, bad("%v", err)
	}
	return s.st.Run(r.Context(), id)
}

// runAndEvents reads the run a page or its data is about, with its
// events; neither takes parameters.
func (s *Server) runAndEvents(r *http.Request) (*results.Run, []store.Event, error) {
	if len(r.URL.Query()) > 0 {
		return nil, nil, bad("a run's page and data take no parameters")
	}
	run, err := s.runOf(r)
	if err != nil {
		return nil, nil, err
	}
	events, err := s.st.Events(r.Context(), run.ID)
	return run, events, err
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	run, events, err := s.runAndEvents(r)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	profiles, err := s.st.Profiles(r.Context(), run.ID)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	var shown []store.Event
	for _, e := range events {
		if e.Kind != "scrape_ok" {
			shown = append(shown, e)
		}
	}
	var main *results.Phase
	if run.Status != results.StatusRunning {
		main = run.Main()
	}
	// A QA run's grid in the QA report's format (rows c, columns r).
	var qa [][]string
	if run.Sweep != nil && len(run.Sweep.Cells) > 0 && slices.ContainsFunc(run.Phases, func(p *results.Phase) bool { return p.KindOf() == scenario.KindQA }) {
		qa = run.Sweep.ProcessedTable()
	}
	s.render(w, "run.html", map[string]any{
		"Title":    "Run " + run.ID,
		"QA":       qa,
		"Run":      run,
		"Labels":   results.FormatLabels(run.Labels),
		"Live":     run.Status == results.StatusRunning,
		"Poll":     s.Poll.Milliseconds(),
		"Main":     main,
		"Fates":    fatesOf(main),
		"Events":   shown,
		"Profiles": profiles,
		"Files":    reportFiles(run),
	})
}

// A fate is one line of the fates table.
type fate struct {
	Name  string
	Count int64
}

func fatesOf(p *results.Phase) []fate {
	if p == nil {
		return nil
	}
	var out []fate
	for f, n := range p.Ledger.Fates {
		out = append(out, fate{string(f), n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// reportFileName is what a report file may be called: no path, no dot
// first.
var reportFileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// reportRoot opens the run's report folder, if it is one: the record names
// it (a database is not trusted), so it must be a folder named for the run
// holding the run's summary.json (the headline; in folders written before
// record.json, the whole record).
func reportRoot(run *results.Run) (*os.Root, bool) {
	if run.ReportDir == "" || filepath.Base(run.ReportDir) != run.ID {
		return nil, false
	}
	root, err := os.OpenRoot(run.ReportDir)
	if err != nil {
		return nil, false
	}
	if f, err := root.Open("summary.json"); err == nil {
		id := summaryID(f)
		f.Close()
		if id == run.ID {
			return root, true
		}
	}
	root.Close()
	return nil, false
}

// reportNames are the report files a run's page links and serves.
var reportNames = []string{"report.html", "report.md", "summary.json", report.RecordFile}

// summaryID reads the run ID of a summary.json or record.json: its "id"
// comes first, so only the start of a file of megabytes is read.
func summaryID(r io.Reader) string {
	dec := json.NewDecoder(io.LimitReader(r, 64<<20))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		if key == "id" {
			var id string
			if dec.Decode(&id) != nil {
				return ""
			}
			return id
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

// reportFiles lists the run's stored report files that exist, as links.
func reportFiles(run *results.Run) []string {
	root, ok := reportRoot(run)
	if !ok {
		return nil
	}
	defer root.Close()
	var out []string
	for _, name := range reportNames {
		if fi, err := root.Lstat(name); err == nil && fi.Mode().IsRegular() {
			out = append(out, name)
		}
	}
	return out
}

// runFile serves one of the run's report files (report.html, report.md,
// summary.json, record.json) or a captured profile, from the run's report folder only.
func (s *Server) runFile(w http.ResponseWriter, r *http.Request) {
	run, err := s.runOf(r)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	name := r.PathValue("name")
	rel := ""
	switch {
	case slices.Contains(reportNames, name):
		rel = name
	case reportFileName.MatchString(name) && path.Ext(name) == ".gz":
		// A profile the run captured (they live in profiles/).
		profiles, err := s.st.Profiles(r.Context(), run.ID)
		if err != nil {
			s.failErr(w, r, err)
			return
		}
		for _, p := range profiles {
			if filepath.Base(p.File) == name {
				rel = "profiles/" + name
			}
		}
	}
	if rel == "" {
		s.fail(w, r, http.StatusNotFound, "run "+run.ID+" has no file "+name)
		return
	}
	s.serveReportFile(w, r, run, rel, name)
}

// runLogFile serves a node's log the run's report folder keeps
// (logs/NODE.log.gz, which report.html links), as a download.
func (s *Server) runLogFile(w http.ResponseWriter, r *http.Request) {
	run, err := s.runOf(r)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	name := r.PathValue("name")
	if !reportFileName.MatchString(name) || !strings.HasSuffix(name, ".log.gz") {
		s.fail(w, r, http.StatusNotFound, "run "+run.ID+" has no log "+name)
		return
	}
	s.serveReportFile(w, r, run, report.LogsDir+"/"+name, name)
}

// serveReportFile serves rel from the run's report folder (name: what it
// is called in the answer).
func (s *Server) serveReportFile(w http.ResponseWriter, r *http.Request, run *results.Run, rel, name string) {
	root, ok := reportRoot(run)
	if !ok {
		s.fail(w, r, http.StatusNotFound, "run "+run.ID+"'s report folder is not here")
		return
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		s.fail(w, r, http.StatusNotFound, "run "+run.ID+" has no file "+name)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		s.fail(w, r, http.StatusNotFound, name+" is not a regular file")
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".md":
		ctype = "text/plain; charset=utf-8"
	case ".gz":
		ctype = "application/octet-stream"
		w.Header().Set("Content-Disposition", "attachment")
	case ".html":
		// The report is one file with its styles inline and no script.
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:")
	}
	w.Header().Set("Content-Type", ctype)
	http.ServeContent(w, r, name, fi.ModTime(), f)
}

// runData is what a run's page draws, as JSON: its charts, the fault and
// phase timeline, and while it goes what it has written so far.
func (s *Server) runData(w http.ResponseWriter, r *http.Request) {
	run, events, err := s.runAndEvents(r)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	series, err := s.st.Series(r.Context(), run.ID)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, timelineOf(run, series, events))
}

// writeJSON writes v; NaN and Inf are not JSON, so a figure that is one
// is sent as null (the charts leave a gap).
func writeJSON(w http.ResponseWriter, code int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		code = http.StatusInternalServerError
		buf.Reset()
		json.NewEncoder(&buf).Encode(map[string]string{"error": err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
