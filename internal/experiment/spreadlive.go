package experiment

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/chainperf/chainperf/internal/load"
)

// GeneratorLive is what a generator prints each second while it runs: its
// counts so far and its last seconds (which may still change: a send is
// counted in the second it began), for the coordinator's live view and
// live metrics. Its result comes last, as a GeneratorResult.
type GeneratorLive struct {
	Live       bool                `json:"live"` // tells a live line from the result
	Index      int                 `json:"index"`
	Sent       int64               `json:"sent"`
	Accepted   int64               `json:"accepted"`
	Rejected   int64               `json:"rejected"`
	SendErrors int64               `json:"send_errors"`
	Fates      map[load.Fate]int64 `json:"fates"`
	Latency    load.Percentiles    `json:"latency"`
	Lag        load.Percentiles    `json:"lag"`
	From       int                 `json:"from"` // the second Seconds[0] is, since the common start
	Seconds    []load.Second       `json:"seconds"`
}

// liveSeconds is how many of its last seconds a live line carries.
const liveSeconds = 3

// liveOf is a generator's live line from its progress.
func liveOf(index int, s load.Summary) GeneratorLive {
	from := max(0, len(s.PerSecond)-liveSeconds)
	return GeneratorLive{Live: true, Index: index, Sent: s.Sent, Accepted: s.Accepted, Rejected: s.Rejected, SendErrors: s.SendErrors,
		Fates: s.Fates, Latency: s.Latency, Lag: s.Lag, From: from, Seconds: slices.Clone(s.PerSecond[from:])}
}

// liveMerge adds up the generators' live lines into one summary of the
// phase so far: counts summed, each second summed over the generators
// (a generator's later line replaces its earlier word on a second), and
// the latency and lag the highest of the generators' (percentiles of
// parts do not add up to the whole's; the merged ledger at the end does).
type liveMerge struct {
	n  int
	mu sync.Mutex
	by map[int]GeneratorLive       // index -> its last line
	at map[int]map[int]load.Second // index -> second -> its word on it
}

func newLiveMerge(n int) *liveMerge {
	return &liveMerge{n: n, by: map[int]GeneratorLive{}, at: map[int]map[int]load.Second{}}
}

// maxLiveSecond bounds the seconds a generator's line may name (a day).
const maxLiveSecond = 86_400

// add takes a line a generator printed; what is not a live line of one
// of the n generators (its result, a log line, garbage) is left out.
func (m *liveMerge) add(line []byte) {
	var g GeneratorLive
	if json.Unmarshal(line, &g) != nil || !g.Live || g.Index < 0 || g.Index >= m.n ||
		g.From < 0 || g.From > maxLiveSecond || len(g.Seconds) > liveSeconds {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.by[g.Index] = g
	if m.at[g.Index] == nil {
		m.at[g.Index] = map[int]load.Second{}
	}
	for i, s := range g.Seconds {
		m.at[g.Index][g.From+i] = s
	}
}

// summary is the phase so far as the generators said it; ok is false
// before any has.
func (m *liveMerge) summary() (s load.Summary, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.by) == 0 {
		return s, false
	}
	s.Fates = map[load.Fate]int64{}
	for _, g := range m.by {
		s.Sent += g.Sent
		s.Accepted += g.Accepted
		s.Rejected += g.Rejected
		s.SendErrors += g.SendErrors
		for f, v := range g.Fates {
			s.Fates[f] += v
		}
		s.Latency.P50, s.Latency.P99 = max(s.Latency.P50, g.Latency.P50), max(s.Latency.P99, g.Latency.P99)
		s.Lag.P99 = max(s.Lag.P99, g.Lag.P99)
	}
	for _, secs := range m.at {
		for i, sec := range secs {
			for len(s.PerSecond) <= i {
				s.PerSecond = append(s.PerSecond, load.Second{})
			}
			s.PerSecond[i].Add(sec)
		}
	}
	return s, true
}
