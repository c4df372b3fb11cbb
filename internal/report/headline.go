package report

import (
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
)

// A Headline is summary.json: what the end of a run says, for a machine
// (a CI step reads the verdict, the criteria and each phase's rates there);
// the whole record is record.json beside it.
type Headline struct {
	ID       string            `json:"id"` // first: readers take it from the file's start
	Scenario string            `json:"scenario"`
	Verdict  string            `json:"verdict"` // PASS, FAIL, or the status of a run that did not complete
	Start    time.Time         `json:"start"`
	End      time.Time         `json:"end"`
	Error    string            `json:"error,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Criteria []results.Check   `json:"criteria"`
	Phases   []HeadlinePhase   `json:"phases"`
	Record   string            `json:"record"` // the whole record's file, beside this one
}

// A HeadlinePhase is one phase's row of the headline: rates and latency
// over its measured window, and every tx's fate.
type HeadlinePhase struct {
	Name         string              `json:"name"`
	Kind         string              `json:"kind"`
	OfferedTPS   float64             `json:"offered_tps"`
	SentTPS      float64             `json:"sent_tps"`
	CommittedTPS float64             `json:"committed_tps"`
	LatencyP50   float64             `json:"latency_p50_ms"`
	LatencyP99   float64             `json:"latency_p99_ms"`
	Sent         int64               `json:"sent"`
	Fates        map[load.Fate]int64 `json:"fates"`
}

// RecordFile is the whole record's name in a report folder; runs reported
// before it named it summary.json, which readers still take.
const RecordFile = "record.json"

// HeadlineOf is r's summary.json.
func HeadlineOf(r *results.Run) Headline {
	h := Headline{ID: r.ID, Scenario: r.Scenario, Verdict: Verdict(r), Start: r.Start, End: r.End, Error: r.Error,
		Labels: r.Labels, Criteria: r.Checks, Phases: []HeadlinePhase{}, Record: RecordFile}
	if h.Criteria == nil {
		h.Criteria = []results.Check{}
	}
	for _, p := range r.Phases {
		f := p.Figures
		h.Phases = append(h.Phases, HeadlinePhase{Name: p.Name, Kind: p.KindOf(), OfferedTPS: f.OfferedTPS, SentTPS: f.SentTPS,
			CommittedTPS: f.CommittedTPS, LatencyP50: f.LatencyP50, LatencyP99: f.LatencyP99, Sent: p.Ledger.Sent, Fates: p.Ledger.Fates})
	}
	return h
}
