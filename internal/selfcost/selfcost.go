// Package selfcost measures what chainperf itself takes from the machine
// while it measures a chain: its process's CPU over a span, and each
// component's share of it (generator, follower, scraper, sampler,
// observer, store), read
// from a CPU profile of chainperf in which every component's goroutines
// carry a label (Do). On a machine chainperf shares with the nodes it
// started, that CPU is taken from them.
package selfcost

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/google/pprof/profile"
)

// The components' labels.
const (
	Generator = "generator" // pacing, making and sending txs, reading the answers
	Follower  = "follower"  // reading blocks and their results, matching txs
	Scraper   = "scraper"   // reading and parsing the nodes' metrics pages
	Sampler   = "sampler"   // sampling the nodes' processes (/proc)
	Observer  = "observer"  // the nodes' consensus events, mempool reads, the watch's own loop
	Store     = "store"     // writing to the results database
	Netem     = "netem"     // the emulated WAN's delay daemon: every packet between emulated hosts
	Other     = "other"     // the rest: the Go runtime's collector, the live view, set-up
)

const labelKey = "chainperf"

// Do runs f with ctx's goroutine, and every goroutine f starts, counted
// as component's.
func Do(ctx context.Context, component string, f func(context.Context)) {
	pprof.Do(ctx, pprof.Labels(labelKey, component), f)
}

// Cost is what chainperf took over a span.
type Cost struct {
	Seconds float64 `json:"seconds"` // the span, wall clock
	CPU     float64 `json:"cpu_s"`   // the process's CPU-seconds (user + system)
	// By is CPU-seconds by component: the profile's shares of CPU. Empty
	// when no profile could be taken (another was running).
	By map[string]float64 `json:"by,omitempty"`
	// WaitP99: how long chainperf's goroutines waited to run once they
	// could (the Go runtime's /sched/latencies), p99 over the span, ms; on
	// a machine the nodes fill, the harness's own lateness. GCPauseP99:
	// its stop-the-world pauses, p99, ms.
	WaitP99    float64 `json:"wait_p99_ms"`
	GCPauseP99 float64 `json:"gc_pause_p99_ms"`
}

// Cores is the CPU as cores used on average over the span.
func (c Cost) Cores() float64 {
	if c.Seconds <= 0 {
		return 0
	}
	return c.CPU / c.Seconds
}

// String is the cost in cores, the largest component first, then the
// waits: "C cores over S s: other O, follower F, ...; its
// goroutines waited W ms for a CPU, its GC paused it P ms (p99)".
func (c Cost) String() string {
	s := fmt.Sprintf("%.3f cores over %.0f s", c.Cores(), c.Seconds)
	waits := fmt.Sprintf("; its goroutines waited %.2f ms for a CPU, its GC paused it %.2f ms (p99)", c.WaitP99, c.GCPauseP99)
	if len(c.By) == 0 {
		return s + waits
	}
	names := make([]string, 0, len(c.By))
	for k := range c.By {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c.By[a] != c.By[b] {
			if c.By[a] > c.By[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %.3f", k, c.By[k]/c.Seconds))
	}
	return s + ": " + strings.Join(parts, ", ") + waits
}

// A Meter measures from Start to Stop.
type Meter struct {
	begin    time.Time
	cpu0     float64
	sched0   []metrics.Sample
	own0     map[*ownedThread]float64 // the owned threads' CPU at the start
	buf      bytes.Buffer
	profiled bool
}

// The runtime's histograms read at both ends of a span.
var schedMetrics = []string{"/sched/latencies:seconds", "/sched/pauses/total/gc:seconds"}

func readSched() []metrics.Sample {
	s := make([]metrics.Sample, len(schedMetrics))
	for i, name := range schedMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	return s
}

// p99Between is the 99th percentile, in ms, of what a cumulative runtime
// histogram gained from a to b (0 if nothing or not a histogram).
func p99Between(a, b metrics.Sample) float64 {
	if a.Value.Kind() != metrics.KindFloat64Histogram || b.Value.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	ha, hb := a.Value.Float64Histogram(), b.Value.Float64Histogram()
	if len(ha.Counts) != len(hb.Counts) {
		return 0
	}
	var total uint64
	for i := range hb.Counts {
		total += hb.Counts[i] - ha.Counts[i]
	}
	if total == 0 {
		return 0
	}
	want := uint64(math.Ceil(0.99 * float64(total)))
	var seen uint64
	for i := range hb.Counts {
		seen += hb.Counts[i] - ha.Counts[i]
		if seen >= want {
			// The bucket's upper bound (the lower one if that is +Inf).
			up := hb.Buckets[i+1]
			if math.IsInf(up, 1) {
				up = hb.Buckets[i]
			}
			return up * 1000
		}
	}
	return 0
}

// Start begins measuring. The CPU profile is chainperf's own at 100 Hz (a
// few microseconds a sample); if a profile is already running
// (CHAINPERF_CPUPROFILE), only the process's CPU is measured. The
// threads components own (OwnThread) are measured by their CPU clocks.
func Start() *Meter {
	owned.Lock()
	owned.meters++
	owned.Unlock()
	m := &Meter{begin: time.Now(), cpu0: processCPU(), sched0: readSched(), own0: ownedAt()}
	m.profiled = pprof.StartCPUProfile(&m.buf) == nil
	return m
}

// Stop ends the span and says what it cost. The components' CPU is the
// profile's samples scaled to the process's CPU, so the parts add up to
// the whole (samples missed by the profiler are spread by share).
func (m *Meter) Stop() Cost {
	if m.profiled {
		pprof.StopCPUProfile()
	}
	c := Cost{Seconds: time.Since(m.begin).Seconds(), CPU: processCPU() - m.cpu0}
	own := ownedSince(m.begin, m.own0)
	owned.Lock()
	if owned.meters--; owned.meters == 0 {
		owned.threads = slices.DeleteFunc(owned.threads, func(t *ownedThread) bool { return t.to >= 0 })
	}
	owned.Unlock()
	sched := readSched()
	c.WaitP99, c.GCPauseP99 = p99Between(m.sched0[0], sched[0]), p99Between(m.sched0[1], sched[1])
	if !m.profiled {
		return c
	}
	p, err := profile.Parse(&m.buf)
	if err != nil {
		return c
	}
	// The owned threads' CPU is theirs; the rest is split by the shares
	// of the other samples.
	rest := c.CPU
	for _, v := range own {
		rest -= v
	}
	rest = max(0, rest)
	by, total := shares(p)
	if total == 0 && len(own) == 0 {
		return c
	}
	c.By = map[string]float64{}
	for k, v := range by {
		c.By[k] = rest * v / total
	}
	if total == 0 && rest > 0 {
		c.By[Other] = rest
	}
	for k, v := range own {
		c.By[k] += v
	}
	return c
}

// shares is the profile's CPU by component label (unlabelled: Other), and
// their sum, in the profile's units.
func shares(p *profile.Profile) (map[string]float64, float64) {
	i := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == "cpu" })
	if i < 0 {
		return nil, 0
	}
	by := map[string]float64{}
	var total float64
	for _, s := range p.Sample {
		if len(s.Label[ownedKey]) > 0 {
			continue // an owned thread's: measured by its clock
		}
		k := Other
		if l := s.Label[labelKey]; len(l) > 0 {
			k = l[0]
		}
		v := float64(s.Value[i])
		by[k] += v
		total += v
	}
	return by, total
}

// processCPU is this process's CPU-seconds so far.
func processCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
