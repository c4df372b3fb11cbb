package load

import (
	"fmt"
	"math"
	"sort"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Summary is what a ledger knows at the moment it is asked.
type Summary struct {
	Sent     int64 `json:"sent"`
	Accepted int64 `json:"accepted"` // sends the node accepted
	// Queued: of Accepted, sends the node answered with a refusal but
	// queued (an EVM mempool's nonce gap), followed to their block.
	Queued int64 `json:"queued,omitempty"`
	// QueuedUnresolved: of the unresolved, txs answered Queued.
	QueuedUnresolved int64 `json:"queued_unresolved,omitempty"`
	// Repeats: sends whose tx had the same bytes as one still without a
	// fate. A tx is followed by its hash, so the two are one to the ledger
	// and one of them gets no fate: the conservation law breaks, and this
	// says why (a workload must never repeat a tx in flight).
	Repeats    int64            `json:"repeats,omitempty"`
	Rejected   int64            `json:"rejected"`    // sends the node refused
	SendErrors int64            `json:"send_errors"` // sends with no usable answer
	Fates      map[Fate]int64   `json:"fates"`
	Reasons    map[string]int64 `json:"reasons,omitempty"`
	Lag        Percentiles      `json:"lag"`
	Latency    Percentiles      `json:"latency"` // first seen in a block - intended send time
	// WindowLatency is Latency over the txs seen committed in the measured
	// window (SetWindow), where the rates are counted.
	WindowLatency Percentiles `json:"window_latency"`
	Inclusion     Percentiles `json:"inclusion_latency"` // CometBFT QA: block H+1 time - intended send time
	PerSecond     []Second    `json:"per_second"`
	// LatencyHist is the commit latency distribution in buckets of a
	// 1-2-5 series of upper bounds.
	LatencyHist []Bucket `json:"latency_hist,omitempty"`
	// LatencyCurve is the commit latency at percentiles spaced evenly on a
	// log scale of 1/(1-p) (0, 68.4, 90, 96.8, 99, ... % and the max): the
	// HDR percentile plot, whose tail the buckets' bars hide.
	LatencyCurve []Quantile `json:"latency_curve,omitempty"`
	InFlight     int64      `json:"in_flight"` // txs with no final fate yet (0 after Close)
}

// Percentiles of a latency distribution, in milliseconds.
type Percentiles struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p999_ms"`
	Max   float64 `json:"max_ms"`
	Mean  float64 `json:"mean_ms"`
}

func percentiles(h *hdrhistogram.Histogram) Percentiles {
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Percentiles{
		Count: h.TotalCount(),
		P50:   ms(h.ValueAtQuantile(50)),
		P90:   ms(h.ValueAtQuantile(90)),
		P99:   ms(h.ValueAtQuantile(99)),
		P999:  ms(h.ValueAtQuantile(99.9)),
		Max:   ms(h.Max()),
		Mean:  h.Mean() / 1000,
	}
}

// A Bucket counts the values above the previous bucket's bound and up to
// its own.
type Bucket struct {
	UpToMS float64 `json:"le_ms"`
	Count  int64   `json:"count"`
}

// A Quantile is the latency (ms) at or below which Percent of the txs
// fell.
type Quantile struct {
	Percent float64 `json:"p"`
	MS      float64 `json:"ms"`
}

// curveSteps is how many percentiles a decade of 1/(1-p) gets: 0, 68.4,
// 90, 96.8, 99, 99.68, 99.9, ... %.
const curveSteps = 2

// curve reads h at percentiles evenly spaced on a log scale of 1/(1-p),
// as far as its count resolves (one tx in 1/(1-p)), then its max.
func curve(h *hdrhistogram.Histogram) []Quantile {
	n := h.TotalCount()
	if n == 0 {
		return nil
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	var out []Quantile
	for i := 0; ; i++ {
		tail := math.Pow(10, -float64(i)/curveSteps) // 1 - p
		if tail*float64(n) < 1 {
			break
		}
		p := 100 * (1 - tail)
		v := h.ValueAtQuantile(p)
		if i == 0 {
			v = h.Min() // the histogram reads 0 at the 0th percentile
		}
		out = append(out, Quantile{Percent: p, MS: ms(v)})
	}
	return append(out, Quantile{Percent: 100, MS: ms(h.Max())})
}

// Nines places percentile p on a latency curve's x axis, -log10(1-p):
// each decade one more nine (1 is 90 %, 2 is 99 %); the max (100 %) half a
// decade past last, the last nine shown.
func Nines(p, last float64) float64 {
	if p >= 100 {
		return last + 0.5
	}
	return -math.Log10(1 - p/100)
}

// NinesLabel is the percentile with d nines: 90%, 99%, 99.9%, ...
func NinesLabel(d int) string {
	return fmt.Sprintf("%.*f%%", max(0, d-2), 100*(1-math.Pow(10, -float64(d))))
}

// A Tick labels a place on a latency curve's x axis.
type Tick struct {
	At    float64
	Label string
}

// NinesTicks label a latency curve's x axis up to last (Nines): 0%, each
// whole nine (90%, 99%, ...), then the max.
func NinesTicks(last float64) []Tick {
	ts := []Tick{{0, "0%"}}
	for d := 1; float64(d) <= last+1e-9; d++ {
		ts = append(ts, Tick{float64(d), NinesLabel(d)})
	}
	return append(ts, Tick{last + 0.5, "max"})
}

// buckets folds an HDR histogram (µs) into 1-2-5 buckets (ms), from the
// first to the last that holds a value.
func buckets(h *hdrhistogram.Histogram) []Bucket {
	if h.TotalCount() == 0 {
		return nil
	}
	var out []Bucket
	for decade := 0.1; decade <= 1e7; decade *= 10 {
		for _, m := range []float64{1, 2, 5} {
			out = append(out, Bucket{UpToMS: decade * m})
		}
	}
	for _, bar := range h.Distribution() {
		ms := float64(bar.To) / 1000
		i := sort.Search(len(out), func(i int) bool { return out[i].UpToMS >= ms })
		if i == len(out) {
			i--
		}
		out[i].Count += bar.Count
	}
	first, last := 0, len(out)-1
	for first < last && out[first].Count == 0 {
		first++
	}
	for last > first && out[last].Count == 0 {
		last--
	}
	return out[first : last+1]
}

// Summary returns the counts and distributions so far.
func (l *Ledger) Summary() Summary {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.live()
	s.WindowLatency = percentiles(l.winLat)
	s.LatencyHist = buckets(l.latency)
	s.LatencyCurve = curve(l.latency)
	s.Inclusion = percentiles(l.incl)
	return s
}

// Live is the summary so far that a status line needs, once a second
// while a phase runs: Summary without the latency's buckets and curve,
// the window's latency and inclusion latency (walking the histograms for
// them was most of what the live view cost; LatencyHist has the buckets).
func (l *Ledger) Live() Summary {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.live()
}

// LatencyHist is the latency so far in 1-2-5 buckets.
func (l *Ledger) LatencyHist() []Bucket {
	l.mu.Lock()
	defer l.mu.Unlock()
	return buckets(l.latency)
}

func (l *Ledger) live() Summary {
	s := Summary{
		Sent:             l.sent,
		Accepted:         l.accepted,
		Queued:           l.queued,
		QueuedUnresolved: l.queuedLost,
		Repeats:          l.repeats,
		Rejected:         l.rejected,
		SendErrors:       l.failed,
		Fates:            map[Fate]int64{},
		Reasons:          map[string]int64{},
		Lag:              percentiles(l.lag),
		Latency:          percentiles(l.latency),
		PerSecond:        append([]Second(nil), l.perSec...),
	}
	// The second being filled, as far as it goes.
	if l.secAt >= 0 && l.secLat.TotalCount() > 0 && l.secAt < len(s.PerSecond) {
		s.PerSecond[l.secAt].LatencyP50 = float64(l.secLat.ValueAtQuantile(50))
		s.PerSecond[l.secAt].LatencyP99 = float64(l.secLat.ValueAtQuantile(99))
	}
	for _, f := range Fates {
		s.Fates[f] = l.fates[f]
	}
	for k, v := range l.reasons {
		s.Reasons[k] = v
	}
	var final int64
	for _, v := range s.Fates {
		final += v
	}
	s.InFlight = s.Sent - final
	return s
}

// Balanced reports whether the conservation law holds:
// sent = send_error + rejected + committed + committed_failed + unresolved.
func (s Summary) Balanced() bool {
	var n int64
	for _, v := range s.Fates {
		n += v
	}
	return n == s.Sent
}

// TopReasons returns the reasons sorted by count, most frequent first.
func (s Summary) TopReasons() []string {
	keys := make([]string, 0, len(s.Reasons))
	for k := range s.Reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return s.Reasons[keys[i]] > s.Reasons[keys[j]] })
	return keys
}

// CommittedMean is each second's committed txs averaged over the width
// seconds centred on it (fewer at the ends): committed tx/s in 1 s buckets
// swings with the blocks that land in each, so charts draw this.
func CommittedMean(secs []Second, width int) []float64 {
	out := make([]float64, len(secs))
	for i := range secs {
		lo, hi := max(0, i-width/2), min(len(secs), i-width/2+width)
		var n int64
		for _, s := range secs[lo:hi] {
			n += s.Committed
		}
		out[i] = float64(n) / float64(hi-lo)
	}
	return out
}
