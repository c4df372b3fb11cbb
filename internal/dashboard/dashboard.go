// Package dashboard is chainperf's web app over the results database:
// the runs, one run with its charts (live while it goes), comparisons and
// trends. It only reads: the store is opened read-only, every handler
// answers GET (or HEAD), and every asset is embedded in the binary.
package dashboard

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/printable"
	"github.com/chainperf/chainperf/internal/store"
)

//go:embed assets templates
var content embed.FS

// csp allows only what the pages use: scripts, styles and data from this
// server; no inline scripts or styles, no frames, no form posts elsewhere.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// A Server serves the dashboard of one results database.
type Server struct {
	st    *store.Store
	index *index
	pages *template.Template
	log   *slog.Logger
	// Poll is how often a live run's page asks for new rows.
	Poll time.Duration
}

// New returns a server over st, which the caller opened (read-only) and
// closes.
func New(st *store.Store, log *slog.Logger) (*Server, error) {
	pages, err := template.New("").Funcs(funcs).ParseFS(content, "templates/*.html")
	if err != nil {
		return nil, err
	}
	return &Server{st: st, index: newIndex(st), pages: pages, log: log, Poll: 2 * time.Second}, nil
}

// Handler returns the dashboard's routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.runsPage)
	mux.HandleFunc("GET /runs/{id}", s.runPage)
	mux.HandleFunc("GET /runs/{id}/files/{name}", s.runFile)
	mux.HandleFunc("GET /runs/{id}/files/logs/{name}", s.runLogFile)
	mux.HandleFunc("GET /api/runs/{id}", s.runData)
	mux.HandleFunc("GET /api/runs/{id}/logs", s.runLogs)
	mux.HandleFunc("GET /compare", s.comparePage)
	mux.HandleFunc("GET /api/compare", s.compareData)
	mux.HandleFunc("GET /trends", s.trendsPage)
	mux.HandleFunc("GET /api/trends", s.trendsData)
	assets, _ := fs.Sub(content, "assets")
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, "no page at "+r.URL.Path)
	})
	return headers(mux)
}

// headers sets what every response carries.
func headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "the dashboard only reads: "+r.Method+" is not served", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// A badRequest is a query parameter the handler refuses; its text says
// which and what to write.
type badRequest struct{ msg string }

func (e badRequest) Error() string { return e.msg }

func bad(format string, args ...any) error { return badRequest{fmt.Sprintf(format, args...)} }

// failErr answers an error: 400 for a refused parameter, 404 for a run
// the database does not hold, else 500 (logged, shown without detail a
// user could not act on).
func (s *Server) failErr(w http.ResponseWriter, r *http.Request, err error) {
	var br badRequest
	switch {
	case errors.As(err, &br):
		s.fail(w, r, http.StatusBadRequest, br.msg)
	case errors.Is(err, store.ErrNotFound):
		s.fail(w, r, http.StatusNotFound, err.Error())
	case errors.Is(err, context.Canceled):
		// The browser went away.
	default:
		s.log.Error("dashboard", "path", r.URL.Path, "err", err)
		s.fail(w, r, http.StatusInternalServerError, "the results database could not be read: "+err.Error())
	}
}

// fail answers with an error page (an API path gets JSON).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, code int, msg string) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeJSON(w, code, map[string]string{"error": msg})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_ = printable.Rendered(w, func(w io.Writer) error {
		return s.pages.ExecuteTemplate(w, "error.html", map[string]any{"Title": http.StatusText(code), "Code": code, "Message": msg})
	})
}

// render writes a page, rendered whole first (a template error is a 500,
// not half a page), its text escaped as the terminal's is.
func (s *Server) render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := printable.Rendered(w, func(w io.Writer) error { return s.pages.ExecuteTemplate(w, name, data) }); err != nil {
		s.log.Error("dashboard template", "page", name, "err", err)
		http.Error(w, "the page could not be made: "+err.Error(), http.StatusInternalServerError)
	}
}
