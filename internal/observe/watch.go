package observe

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/procfs"

	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/selfcost"
)

// Machine is the node name of machine-wide samples (load1); Self is the
// node name of chainperf's own process.
const (
	Machine = "machine"
	Self    = "chainperf"
)

// Names of the series the process sampler makes.
const (
	SeriesCPU   = "process_cpu_seconds_total"
	SeriesRSS   = "process_resident_memory_bytes"
	SeriesLoad1 = "machine_load1"
	// Disk bytes the process read and wrote (/proc/PID/io), and the
	// network bytes of its network namespace when it has one of its own
	// (a node on loopback beside the others has no figure of its own).
	SeriesDiskRead  = "process_disk_read_bytes_total"
	SeriesDiskWrite = "process_disk_written_bytes_total"
	SeriesNetRx     = "process_netns_receive_bytes_total"
	SeriesNetTx     = "process_netns_transmit_bytes_total"
	// The network bytes a node's own Prometheus process collector reads
	// from its network namespace (client_golang 1.20 and later): a pod's
	// own, where chainperf has no /proc of the node to read.
	SeriesNodeNetRx = "process_network_receive_bytes_total"
	SeriesNodeNetTx = "process_network_transmit_bytes_total"
)

// A Sample is one value of one series of one node at one moment.
type Sample struct {
	At     time.Time `json:"at"`
	Node   string    `json:"node"`
	Series string    `json:"series"` // metric name, with its labels other than chain_id: name{k="v"}
	Value  float64   `json:"value"`
}

// A Target is a node the watcher reads: its Prometheus endpoint (may be
// empty) and its process. PID (may be nil) says the node's PID now (it
// changes when a node restarts; 0 when it does not run or is not local).
type Target struct {
	Node    string
	Metrics string
	PID     func() int
}

// A Watcher scrapes every target's Prometheus endpoint and samples every
// target's process from /proc once an interval, and hands each round's
// samples to a sink. A scrape that fails or returns garbage is an error
// for that node and that round only: the watcher carries on.
type Watcher struct {
	Targets  []Target
	Interval time.Duration
	// Keep lists the metric families kept; histograms and summaries keep
	// their _sum and _count.
	Keep []string
	// Sink gets each round's samples (called from one goroutine).
	Sink func([]Sample)
	// OnError is told when a node's scrape starts failing (err != nil)
	// and when it works again (err == nil); not once per failed round.
	OnError func(node string, err error)
	// OnDrop is told, once a node and series name, that a node exported
	// more than MaxSeriesPerName series of a name and how many of them
	// were not kept.
	OnDrop func(node, name string, dropped int)

	client  *http.Client
	failing map[string]bool
	dropped map[string]bool
}

// Bounds on what one node's metrics page may cost: a page over
// MaxMetricsPage bytes is an error for that round (never cut and parsed
// in part); of a metric name (with its labels) at most MaxSeriesPerName
// series are kept, the same ones each round (the first by their labels),
// so that a node that labels a series by peer, proposer or anything else
// without bound cannot fill the results database.
const (
	MaxMetricsPage   = 16 << 20
	MaxSeriesPerName = 128
	// MaxLinesPerFamily: lines of one family read from a page (a series
	// of a histogram is a line a bucket).
	MaxLinesPerFamily = 64 * MaxSeriesPerName
	// MaxMetricsLine: the longest line of a page read (many labels fit).
	MaxMetricsLine = 256 << 10
)

// Run watches until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	w.client = nodehttp.Client(nodehttp.Limits{Bytes: MaxMetricsPage, Time: max(w.Interval, time.Second)})
	w.failing, w.dropped = map[string]bool{}, map[string]bool{}
	keep := map[string]bool{}
	for _, k := range w.Keep {
		keep[k] = true
	}
	tick := time.NewTicker(w.Interval)
	defer tick.Stop()
	for {
		w.round(ctx, keep)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (w *Watcher) round(ctx context.Context, keep map[string]bool) {
	now := time.Now()
	var (
		mu   sync.Mutex
		out  []Sample
		wg   sync.WaitGroup
		errs = make([]error, len(w.Targets))
	)
	for i, t := range w.Targets {
		if t.Metrics == "" {
			continue
		}
		wg.Add(1)
		go selfcost.Do(ctx, selfcost.Scraper, func(ctx context.Context) {
			defer wg.Done()
			s, cut, err := w.scrape(ctx, t, keep, now)
			s, dropped := CapSeries(Fold(s, Folded), MaxSeriesPerName)
			for name, n := range cut {
				dropped[name] += n
			}
			errs[i] = err
			mu.Lock()
			out = append(out, s...)
			for name, n := range dropped {
				if k := t.Node + " " + name; !w.dropped[k] {
					w.dropped[k] = true
					if w.OnDrop != nil {
						w.OnDrop(t.Node, name, n)
					}
				}
			}
			mu.Unlock()
		})
	}
	var procs []Sample
	selfcost.Do(ctx, selfcost.Sampler, func(context.Context) { procs = sampleProcesses(w.Targets, now) })
	mu.Lock() // the scrapes append under it too
	out = append(out, procs...)
	mu.Unlock()
	wg.Wait()
	if ctx.Err() != nil {
		return
	}
	for i, t := range w.Targets {
		if t.Metrics == "" || errs[i] != nil == w.failing[t.Node] {
			continue
		}
		w.failing[t.Node] = errs[i] != nil
		if w.OnError != nil {
			w.OnError(t.Node, errs[i])
		}
	}
	if w.Sink != nil && len(out) > 0 {
		w.Sink(out)
	}
}

func (w *Watcher) scrape(ctx context.Context, t Target, keep map[string]bool, at time.Time) ([]Sample, map[string]int, error) {
	if len(keep) == 0 {
		body, err := nodehttp.Get(ctx, w.client, t.Metrics) // a page over MaxMetricsPage is an error, never cut
		if err != nil {
			return nil, nil, err
		}
		s, err := ParseMetrics(bytes.NewReader(body), t.Node, keep, at)
		return s, nil, err
	}
	// The kept lines are filtered as the page streams in: a page of
	// 200,000 series costs a 64 KiB buffer, not the page.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.Metrics, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("%s: HTTP %d", nodehttp.RedactString(t.Metrics), resp.StatusCode)
	}
	body, cut, err := keepLines(resp.Body, keep) // a page over MaxMetricsPage is an error, never cut
	if err != nil {
		return nil, nil, err
	}
	if len(body) == 0 {
		return nil, nil, fmt.Errorf("%s: none of the kept metric families in the answer (is it a Prometheus endpoint?)", nodehttp.RedactString(t.Metrics))
	}
	s, err := ParseMetrics(bytes.NewReader(body), t.Node, keep, at)
	return s, cut, err
}

// keepLines drops the lines of families not kept before parsing: the
// exposition is line based, and a node exports far more than is kept.
// A kept family's lines past MaxLinesPerFamily are dropped here, and
// counted, before the parser builds a structure for each (300,000 series
// of one name would cost hundreds of megabytes to parse).
func keepLines(page io.Reader, keep map[string]bool) ([]byte, map[string]int, error) {
	var out []byte
	lines := map[string]*int{}
	var cut map[string]int
	rd := bufio.NewReaderSize(page, 64<<10)
	var long []byte // a line longer than the buffer
	for {
		line, err := rd.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(long) >= MaxMetricsLine {
				return nil, nil, fmt.Errorf("a line of the metrics page is over %d KiB: not read", MaxMetricsLine>>10)
			}
			long = append(long, line...)
			continue
		}
		if long != nil {
			line, long = append(long, line...), nil
		}
		if err != nil && err != io.EOF {
			return nil, nil, err
		}
		if len(line) == 0 {
			return out, cut, nil
		}
		name := line
		if bytes.HasPrefix(name, []byte("# HELP ")) || bytes.HasPrefix(name, []byte("# TYPE ")) {
			name = name[7:]
		} else if bytes.HasPrefix(name, []byte("#")) || len(bytes.TrimSpace(name)) == 0 {
			continue
		}
		if i := bytes.IndexAny(name, "{ \n"); i >= 0 {
			name = name[:i]
		}
		fam := familyOf(name)
		if !keep[string(name)] && !keep[string(fam)] { // no string is made to look up
			continue
		}
		// A kept histogram's buckets: only its _sum and _count are kept,
		// and its buckets were most of the kept lines (a bucket a bound
		// and label set), the parser's largest work.
		if !keep[string(name)] && bytes.HasSuffix(name, []byte("_bucket")) {
			continue
		}
		if line[0] != '#' {
			n := lines[string(fam)] // a pointer: the count grows without a key made a line
			if n == nil {
				n = new(int)
				lines[string(fam)] = n
			}
			if *n >= MaxLinesPerFamily {
				if cut == nil {
					cut = map[string]int{}
				}
				cut[string(fam)]++
				continue
			}
			*n++
		}
		out = append(out, line...)
	}
}

// familyOf strips a histogram's or summary's sample suffix.
func familyOf(name []byte) []byte {
	for _, suf := range []string{"_bucket", "_sum", "_count"} {
		if bytes.HasSuffix(name, []byte(suf)) {
			return name[:len(name)-len(suf)]
		}
	}
	return name
}

// ParseMetrics parses a Prometheus text exposition and returns the samples
// of the kept families (all when keep is empty).
func ParseMetrics(r io.Reader, node string, keep map[string]bool, at time.Time) ([]Sample, error) {
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("not a Prometheus text exposition: %w", err)
	}
	var out []Sample
	for name, f := range fams {
		if len(keep) > 0 && !keep[name] {
			continue
		}
		for _, m := range f.GetMetric() {
			lbl := labels(m)
			add := func(suffix string, v float64) {
				if !math.IsNaN(v) {
					out = append(out, Sample{At: at, Node: node, Series: name + suffix + lbl, Value: v})
				}
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				add("", m.GetCounter().GetValue())
			case dto.MetricType_GAUGE:
				add("", m.GetGauge().GetValue())
			case dto.MetricType_HISTOGRAM:
				add("_sum", m.GetHistogram().GetSampleSum())
				add("_count", float64(m.GetHistogram().GetSampleCount()))
			case dto.MetricType_SUMMARY:
				add("_sum", m.GetSummary().GetSampleSum())
				add("_count", float64(m.GetSummary().GetSampleCount()))
			default:
				add("", m.GetUntyped().GetValue())
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Series < out[j].Series })
	return out, nil
}

// Folded are kept families whose series differ by a peer or by a
// proposer: each node keeps one series of each, their sum or their mean
// (labels dropped), so that what is stored a second does not grow with
// the square of the testnet (a 25+1 run wrote 2,500 samples a second,
// 920 of them these).
var Folded = map[string]string{
	"cometbft_p2p_peer_pending_send_bytes":    "sum",
	"cometbft_consensus_quorum_prevote_delay": "mean",
	"cometbft_consensus_full_prevote_delay":   "mean",
}

// Fold replaces the series of each folded name (what precedes their
// labels) of one node's samples by one series of that name, their sum or
// mean; the others are kept as they are.
func Fold(samples []Sample, folded map[string]string) []Sample {
	type acc struct {
		sum float64
		n   int
		at  time.Time
	}
	if !slices.ContainsFunc(samples, func(s Sample) bool {
		base, _, labelled := strings.Cut(s.Series, "{")
		return labelled && folded[base] != ""
	}) {
		return samples // nothing to fold: no copy a scrape
	}
	var sums map[string]*acc
	out := samples[:0:0]
	for _, s := range samples {
		base, _, labelled := strings.Cut(s.Series, "{")
		if !labelled || folded[base] == "" {
			out = append(out, s)
			continue
		}
		if sums == nil {
			sums = map[string]*acc{}
		}
		a := sums[base]
		if a == nil {
			a = &acc{at: s.At}
			sums[base] = a
		}
		a.sum += s.Value
		a.n++
	}
	node := samples[0].Node
	for _, base := range slices.Sorted(maps.Keys(sums)) {
		a := sums[base]
		v := a.sum
		if folded[base] == "mean" {
			v /= float64(a.n)
		}
		out = append(out, Sample{At: a.at, Node: node, Series: base, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Series < out[j].Series })
	return out
}

// CapSeries keeps at most max series of each metric name (what precedes
// its labels) of one node's samples, sorted by series, and says how many
// of each name it dropped.
func CapSeries(samples []Sample, max int) ([]Sample, map[string]int) {
	var dropped map[string]int
	var out []Sample // a copy only once something is dropped
	name, n := "", 0
	for i, s := range samples {
		base, _, _ := strings.Cut(s.Series, "{")
		if base != name {
			name, n = base, 0
		}
		if n++; n > max {
			if dropped == nil {
				dropped, out = map[string]int{}, append([]Sample(nil), samples[:i]...)
			}
			dropped[base]++
			continue
		}
		if dropped != nil {
			out = append(out, s)
		}
	}
	if dropped == nil {
		return samples, nil
	}
	return out, dropped
}

// labels renders a metric's labels but chain_id (the same on every series
// of a testnet) as {k="v",...}, sorted; "" when there are none.
func labels(m *dto.Metric) string {
	var parts []string
	for _, l := range m.GetLabel() {
		if l.GetName() != "chain_id" {
			parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

// sampleProcesses reads CPU time and RSS of every target's process and of
// chainperf itself, and the machine's load1, from /proc. A process that
// has gone (a crashed or stopped node) is skipped.
func sampleProcesses(targets []Target, at time.Time) []Sample {
	var out []Sample
	selfNet := netns(os.Getpid())
	proc := func(node string, pid int) {
		if cpu, rss, err := ProcessStat(pid); err == nil {
			out = append(out,
				Sample{At: at, Node: node, Series: SeriesCPU, Value: cpu},
				Sample{At: at, Node: node, Series: SeriesRSS, Value: rss})
		}
		p, err := procfs.NewProc(pid)
		if err != nil || node == Self {
			return
		}
		if io, err := p.IO(); err == nil {
			out = append(out,
				Sample{At: at, Node: node, Series: SeriesDiskRead, Value: float64(io.ReadBytes)},
				Sample{At: at, Node: node, Series: SeriesDiskWrite, Value: float64(io.WriteBytes)})
		}
		if ns := netns(pid); ns != 0 && ns != selfNet {
			if dev, err := p.NetDev(); err == nil {
				var rx, tx uint64
				for name, l := range dev {
					if name != "lo" {
						rx, tx = rx+l.RxBytes, tx+l.TxBytes
					}
				}
				out = append(out,
					Sample{At: at, Node: node, Series: SeriesNetRx, Value: float64(rx)},
					Sample{At: at, Node: node, Series: SeriesNetTx, Value: float64(tx)})
			}
		}
	}
	for _, t := range targets {
		if t.PID == nil {
			continue
		}
		if pid := t.PID(); pid > 0 {
			proc(t.Node, pid)
		}
	}
	proc(Self, os.Getpid())
	if fs, err := procfs.NewDefaultFS(); err == nil {
		if l, err := fs.LoadAvg(); err == nil {
			out = append(out, Sample{At: at, Node: Machine, Series: SeriesLoad1, Value: l.Load1})
		}
	}
	return out
}

// netns is the inode of a process's network namespace, 0 when unknown.
func netns(pid int) uint32 {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0
	}
	ns, err := p.Namespaces()
	if err != nil {
		return 0
	}
	return ns["net"].Inode
}

// ProcessStat reads a process's CPU time (user + system, seconds) and
// resident memory (bytes) from /proc.
func ProcessStat(pid int) (cpuSeconds, rssBytes float64, err error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, 0, err
	}
	return st.CPUTime(), float64(st.ResidentMemory()), nil
}

// NodeSlots gives each node of the samples its colour's index, in name
// order over every series: a node keeps its colour on every chart of a
// run, even one it has no line in.
func NodeSlots(series []Sample) map[string]int {
	slot := map[string]int{}
	for _, s := range series {
		slot[s.Node] = 0
	}
	for i, n := range slices.Sorted(maps.Keys(slot)) {
		slot[n] = i
	}
	return slot
}
