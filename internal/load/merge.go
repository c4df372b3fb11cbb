package load

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Spreading one phase over several generators: each sends its Share of the
// schedule with a ledger of its own that it closes and hands over as a
// LedgerState; MergeLedgers adds them up. Counts add, HDR histograms merge
// exactly (same bounds and precision), so the merged fates, percentiles
// and conservation law are what one ledger over all the txs would show.

// Share is generator Index's part of Of generators of model M: the txs
// Index, Index+Of, Index+2*Of ... of M's schedule, each at the time M
// gives it. The shares of 0..Of-1 together are M's schedule, tx for tx.
type Share struct {
	M         RateModel
	Index, Of int
}

func (s Share) Rate(e time.Duration) float64 { return s.M.Rate(e) / float64(s.Of) }

// Due counts this share's txs due by e: M's tx j is this share's tx
// (j-Index)/Of.
func (s Share) Due(e time.Duration) float64 {
	return (s.M.Due(e) - float64(s.Index)) / float64(s.Of)
}

func (s Share) Length() time.Duration { return s.M.Length() }
func (s Share) String() string        { return fmt.Sprintf("%s, share %d of %d", s.M, s.Index+1, s.Of) }

// A Hist is an HDR histogram as data: its bounds and precision and its
// non-zero counts by index (a latency histogram is mostly zeros).
type Hist struct {
	Low, High, Sig int64
	Counts         [][2]int64 `json:"counts,omitempty"` // index, count
}

func histOf(h *hdrhistogram.Histogram) Hist {
	s := h.Export()
	out := Hist{Low: s.LowestTrackableValue, High: s.HighestTrackableValue, Sig: s.SignificantFigures}
	for i, c := range s.Counts {
		if c != 0 {
			out.Counts = append(out.Counts, [2]int64{int64(i), c})
		}
	}
	return out
}

func (h Hist) histogram() (*hdrhistogram.Histogram, error) {
	if h.Low < 1 || h.High < 2*h.Low || h.Sig < 1 || h.Sig > 5 {
		return nil, fmt.Errorf("histogram bounds %d..%d with %d digits", h.Low, h.High, h.Sig)
	}
	s := hdrhistogram.New(h.Low, h.High, int(h.Sig)).Export()
	for _, ic := range h.Counts {
		if ic[0] < 0 || ic[0] >= int64(len(s.Counts)) || ic[1] < 0 {
			return nil, fmt.Errorf("histogram count %d at index %d of %d", ic[1], ic[0], len(s.Counts))
		}
		s.Counts[ic[0]] = ic[1]
	}
	return hdrhistogram.Import(s), nil
}

// LedgerState is a closed ledger as data, for MergeLedgers.
type LedgerState struct {
	Start                            time.Time
	Sent, Accepted, Rejected, Failed int64
	Queued, QueuedUnresolved         int64
	Repeats                          int64
	Fates                            map[Fate]int64
	Reasons                          map[string]int64
	Lag, Latency, Inclusion, WinLat  Hist
	PerSecond                        []Second
	SecondLatency                    map[int]Hist // per second of PerSecond, where there were commits
	WindowFrom, WindowTo             time.Duration
	PendingLeft                      int // txs still pending at Close: must be 0
	Track                            bool
	Closed                           bool
}

// KeepSeconds makes the ledger keep each second's latency histogram, not
// only its percentiles, so that its State merges exactly. Call it before
// the first commit.
func (l *Ledger) KeepSeconds() {
	l.mu.Lock()
	l.secHists = map[int]*hdrhistogram.Histogram{}
	l.mu.Unlock()
}

// State returns the closed ledger as data.
func (l *Ledger) State() (LedgerState, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		return LedgerState{}, errors.New("the ledger is not closed yet")
	}
	if l.secHists == nil {
		return LedgerState{}, errors.New("the ledger kept no per-second histograms (KeepSeconds)")
	}
	s := LedgerState{
		Start: l.start, Sent: l.sent, Accepted: l.accepted, Queued: l.queued, QueuedUnresolved: l.queuedLost, Repeats: l.repeats, Rejected: l.rejected, Failed: l.failed,
		Fates: maps.Clone(l.fates), Reasons: maps.Clone(l.reasons),
		Lag: histOf(l.lag), Latency: histOf(l.latency), Inclusion: histOf(l.incl), WinLat: histOf(l.winLat),
		PerSecond: slices.Clone(l.perSec), SecondLatency: map[int]Hist{},
		WindowFrom: l.winFrom, WindowTo: l.winTo, PendingLeft: len(l.pend), Track: l.track, Closed: true,
	}
	for at, h := range l.secHists {
		s.SecondLatency[at] = histOf(h)
	}
	if l.secAt >= 0 && l.secLat.TotalCount() > 0 {
		s.SecondLatency[l.secAt] = histOf(l.secLat)
	}
	return s, nil
}

// MergeLedgers adds up the closed ledgers of one phase's generators (same
// start, same window) into one closed ledger, whose Summary is what one
// ledger over all their txs would give.
func MergeLedgers(states []LedgerState) (*Ledger, error) {
	if len(states) == 0 {
		return nil, errors.New("no ledgers to merge")
	}
	first := states[0]
	l := NewLedger(first.Start, first.Track)
	l.SetWindow(first.WindowFrom, first.WindowTo)
	l.closed = true
	secLat := map[int]*hdrhistogram.Histogram{}
	for i, s := range states {
		if !s.Closed || s.PendingLeft != 0 {
			return nil, fmt.Errorf("generator %d's ledger is not closed (%d txs pending)", i, s.PendingLeft)
		}
		if !s.Start.Equal(first.Start) || s.WindowFrom != first.WindowFrom || s.WindowTo != first.WindowTo {
			return nil, fmt.Errorf("generator %d's ledger started at %s (window %s..%s), generator 0's at %s (%s..%s): not one phase",
				i, s.Start, s.WindowFrom, s.WindowTo, first.Start, first.WindowFrom, first.WindowTo)
		}
		l.sent += s.Sent
		l.accepted += s.Accepted
		l.queued += s.Queued
		l.queuedLost += s.QueuedUnresolved
		l.repeats += s.Repeats
		l.rejected += s.Rejected
		l.failed += s.Failed
		for k, v := range s.Fates {
			l.fates[k] += v
		}
		for k, v := range s.Reasons {
			l.reasons[k] += v
		}
		for _, m := range []struct {
			into *hdrhistogram.Histogram
			from Hist
		}{{l.lag, s.Lag}, {l.latency, s.Latency}, {l.incl, s.Inclusion}, {l.winLat, s.WinLat}} {
			h, err := m.from.histogram()
			if err != nil {
				return nil, fmt.Errorf("generator %d: %w", i, err)
			}
			if dropped := m.into.Merge(h); dropped != 0 {
				return nil, fmt.Errorf("generator %d: %d values beyond the histogram's bounds", i, dropped)
			}
		}
		for at, sec := range s.PerSecond {
			l.second(time.Duration(at) * time.Second).Add(sec)
		}
		for at, hs := range s.SecondLatency {
			h, err := hs.histogram()
			if err != nil {
				return nil, fmt.Errorf("generator %d, second %d: %w", i, at, err)
			}
			if secLat[at] == nil {
				secLat[at] = hdrhistogram.New(hs.Low, hs.High, int(hs.Sig))
			}
			secLat[at].Merge(h)
		}
	}
	for at, h := range secLat {
		sec := l.second(time.Duration(at) * time.Second)
		sec.LatencyP50 = float64(h.ValueAtQuantile(50))
		sec.LatencyP99 = float64(h.ValueAtQuantile(99))
	}
	return l, nil
}

// MergeReports adds up the generators' reports of one phase: bound if
// any was, with each bound one's reason.
func MergeReports(rs []Report) Report {
	out := Report{Generators: len(rs)}
	var why []string
	for i, r := range rs {
		if i == 0 {
			out.Model, out.Pacer = r.Model, r.Pacer
		}
		out.Due += r.Due
		out.Dispatched += r.Dispatched
		out.OnTime += r.OnTime
		out.Senders += r.Senders
		out.Conns += r.Conns
		out.BlockedJobs += r.BlockedJobs
		if r.Bound {
			out.Bound = true
			if out.BoundBy == "" || r.BoundBy == BoundByGenerator {
				out.BoundBy = r.BoundBy
			}
			why = append(why, fmt.Sprintf("generator %d: %s", i, r.Why))
		}
	}
	for _, w := range why {
		if out.Why != "" {
			out.Why += "; "
		}
		out.Why += w
	}
	return out
}
