package dashboard

import (
	"bytes"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/chainperf/chainperf/internal/nodelog"
	"github.com/chainperf/chainperf/internal/printable"
)

// maxPaneLines is how many lines the log pane gets at once: the first of
// the window, and how many more there were.
const maxPaneLines = 2000

// A logPane is one node's lines in a window of the run, as JSON.
type logPane struct {
	Nodes []string `json:"nodes"` // the nodes whose logs the run kept
	Node  string   `json:"node"`
	Lines []string `json:"lines"`
	More  int      `json:"more"`           // lines in the window past maxPaneLines
	None  string   `json:"none,omitempty"` // why there is nothing to show
}

// runLogs serves the log pane: node's lines (the first node's when none
// is named) at level and above, written between from and to (seconds
// since the epoch, either may be left out), each printable.
func (s *Server) runLogs(w http.ResponseWriter, r *http.Request) {
	run, err := s.runOf(r)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	q := r.URL.Query()
	for k := range q {
		if !slices.Contains([]string{"node", "level", "from", "to"}, k) {
			s.failErr(w, r, bad("the log pane takes node, level, from and to; not %q", k))
			return
		}
	}
	f := nodelog.Filter{Min: nodelog.None, Near: run.Start, Loc: time.Local}
	if l := q.Get("level"); l != "" {
		if f.Min, err = nodelog.ParseLevel(l); err != nil {
			s.failErr(w, r, bad("level: %v", err))
			return
		}
	}
	for _, b := range []struct {
		key string
		to  *time.Time
	}{{"from", &f.Since}, {"to", &f.Until}} {
		if v := q.Get(b.key); v != "" {
			sec, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(sec) || math.IsInf(sec, 0) || math.Abs(sec) > 1e11 {
				s.failErr(w, r, bad("%s %q: seconds since the epoch", b.key, v))
				return
			}
			*b.to = time.Unix(0, int64(sec*1e9))
		}
	}
	logs, err := s.st.Logs(r.Context(), run.ID)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	pane := logPane{Nodes: []string{}, Lines: []string{}}
	if len(logs) == 0 {
		pane.None = "no logs kept (runs stored before chainperf kept node logs, and runs on an external network, have none)"
		writeJSON(w, http.StatusOK, pane)
		return
	}
	for _, l := range logs {
		pane.Nodes = append(pane.Nodes, l.Node)
	}
	pane.Node = q.Get("node")
	if pane.Node == "" {
		pane.Node = pane.Nodes[0]
	}
	i := slices.Index(pane.Nodes, pane.Node)
	if i < 0 {
		s.failErr(w, r, bad("node %q: run %s kept the logs of %v", pane.Node, run.ID, pane.Nodes))
		return
	}
	f.Reset()
	for _, line := range bytes.Split(bytes.TrimRight(logs[i].Text, "\n"), []byte("\n")) {
		line = nodelog.Plain(line)
		switch {
		case !f.Keep(line):
		case len(pane.Lines) < maxPaneLines:
			pane.Lines = append(pane.Lines, printable.Clean(string(line)))
		default:
			pane.More++
		}
	}
	if len(pane.Lines) == 0 {
		pane.None = "no line of " + pane.Node + " in this window at this level"
	}
	writeJSON(w, http.StatusOK, pane)
}
