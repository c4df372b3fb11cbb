package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/browser"
	"github.com/chainperf/chainperf/internal/browser/browsertest"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
)

// report.html's first screen (1280x900, narrower than the 1400)
// shows the verdict, every phase's rates, latency and fates, and the
// criteria, ahead of the findings' tables and the charts: measured in
// Chromium, so a headline moved below the detail fails.
func TestHeadlineOnTheFirstScreen(t *testing.T) {
	b := browsertest.Start(t)
	r, series := fixture()
	for range 2 { // three phases
		p := *r.Phases[0]
		r.Phases = append(r.Phases, &p)
	}
	r.Checks = []results.Check{{Name: "committed tx/s", Op: ">=", Limit: 90, Value: 99, Pass: true},
		{Name: "latency p99 ms", Op: "<=", Limit: 2000, Value: 1800, Pass: true}, {Name: "unresolved share", Op: "<=", Limit: 0, Value: 0, Pass: true}}
	openReport(t, b, r, series)
	type box struct {
		Rows               int
		Headline, Criteria float64
		Verdict            string
		Detail             float64 // the first phase's own section
	}
	got, err := browser.Eval[box](b, `(function () {
		var h = document.getElementById('headline'), c = document.getElementById('criteria');
		var crit = c ? c.nextElementSibling : null;
		return {Rows: h ? h.rows.length - 1 : 0, Headline: h ? h.getBoundingClientRect().bottom : 1e9,
			Criteria: crit ? crit.getBoundingClientRect().bottom : 1e9, Verdict: document.querySelector('h1').innerText,
			Detail: Array.from(document.querySelectorAll('h2')).filter(function (e) { return e.innerText.indexOf('Phase 1') === 0; })[0].getBoundingClientRect().top};
	})()`)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", got)
	if got.Rows != 3 || got.Headline > 900 || got.Criteria > 900 || got.Detail < got.Criteria {
		t.Errorf("first screen: %+v; want 3 phase rows and the criteria within 900 px, before the phases' detail", got)
	}
	if want := Verdict(r); !strings.Contains(got.Verdict, want) {
		t.Errorf("h1 %q does not say %s", got.Verdict, want)
	}
}

// summary.json is the headline (its id first, the verdict, the criteria,
// a row a phase with its fates) and record.json the whole record.
func TestSummaryJSONIsTheHeadline(t *testing.T) {
	r, series := fixture()
	r.Checks = []results.Check{{Name: "committed tx/s", Op: ">=", Limit: 90, Value: 99, Pass: true}}
	dir := t.TempDir()
	paths, err := Write(dir, r, series)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 4 || filepath.Base(paths[0]) != "summary.json" || filepath.Base(paths[1]) != RecordFile {
		t.Fatalf("wrote %v", paths)
	}
	head, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	var h Headline
	if err := json.Unmarshal(head, &h); err != nil || !strings.HasPrefix(string(head), "{\n  \"id\": \"r1\"") {
		t.Fatalf("summary.json (%v):\n%s", err, head)
	}
	if h.Verdict != "PASS" || len(h.Criteria) != 1 || len(h.Phases) != 1 || h.Phases[0].CommittedTPS != r.Phases[0].Figures.CommittedTPS ||
		h.Phases[0].Fates[load.FateCommitted] != 1000 || h.Record != RecordFile {
		t.Errorf("headline %+v", h)
	}
	var whole results.Run
	if err := json.Unmarshal(mustReadFile(t, paths[1]), &whole); err != nil || whole.ID != "r1" || len(whole.Phases[0].Blocks) != 10 {
		t.Errorf("record.json: %v, %d blocks; want the whole record", err, len(whole.Phases[0].Blocks))
	}
}

// openReport writes r's report and opens its report.html in b.
func openReport(t *testing.T, b *browser.Browser, r *results.Run, series []observe.Sample) {
	t.Helper()
	dir := t.TempDir()
	if _, err := Write(dir, r, series); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Open("file://"+filepath.Join(dir, "report.html"), 30*time.Second); err != nil {
		t.Fatal(err)
	}
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
