// Package why says where a run's time and work went: the nodes' own
// internals over the measured window (p2p bytes by message type, time in
// each consensus step, execution, mempool, missing validators, the Go
// runtime, disk and network), each height's timeline across nodes from
// the nodes' consensus events, and the functions whose share of CPU or
// allocations grew between two runs' profiles. It hands findings over;
// it never judges.
package why

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/observe"
)

// SourceInternals is the source of the node internals finding.
const SourceInternals = "observer/internals"

// BlockTime is the figure the consensus steps add up to; its parts name
// it as their whole.
const BlockTime = "block time"

// AllocPerTx is what a validator allocated, on average, for each tx
// committed in the window (kB): a change to the application's per-tx
// garbage shows here whatever the load.
const AllocPerTx = "allocated per committed tx"

// A Node is a node the internals are read for.
type Node struct {
	Name string
	Role string // validator, full
}

type key struct{ node, series string }

// stat is what the internals need of one series over a window: its first
// and last sample inside it, and the mean of a gauge.
type stat struct {
	first, last observe.Sample
	sum         float64
	n           int
}

// A view is a window's stats, read per node.
type view struct {
	stats map[key]*stat
}

// window reads the samples inside [from, to] (in time order).
func window(samples []observe.Sample, from, to time.Time) view {
	v := view{stats: map[key]*stat{}}
	for _, s := range samples {
		if s.At.Before(from) || s.At.After(to) {
			continue
		}
		k := key{s.Node, s.Series}
		st := v.stats[k]
		if st == nil {
			st = &stat{first: s}
			v.stats[k] = st
		}
		st.last = s
		st.sum += s.Value
		st.n++
	}
	return v
}

// rate is a counter's increase a second over the window; ok false when
// the node did not export it twice, or it went down (the node restarted).
func (v view) rate(node, series string) (float64, bool) {
	d, secs, ok := v.delta(node, series)
	if !ok || secs <= 0 {
		return 0, false
	}
	return d / secs, true
}

func (v view) delta(node, series string) (d, secs float64, ok bool) {
	st := v.stats[key{node, series}]
	if st == nil || st.n < 2 || st.last.Value < st.first.Value {
		return 0, 0, false
	}
	return st.last.Value - st.first.Value, st.last.At.Sub(st.first.At).Seconds(), true
}

func (v view) mean(node, series string) (float64, bool) {
	st := v.stats[key{node, series}]
	if st == nil || st.n == 0 {
		return 0, false
	}
	return st.sum / float64(st.n), true
}

// labelled returns the series of a node whose name is family{label="x",...}
// by the value of label.
func (v view) labelled(node, family, label string) map[string]string {
	out := map[string]string{}
	prefix := family + "{"
	for k := range v.stats {
		if k.node != node || !strings.HasPrefix(k.series, prefix) {
			continue
		}
		if val, ok := labelValue(k.series, label); ok {
			out[val] = k.series
		}
	}
	return out
}

// labelValue reads label's value from a series name as the watcher
// writes it: name{a="x",b="y"}.
func labelValue(series, label string) (string, bool) {
	i := strings.Index(series, label+`="`)
	if i < 0 || (i > 0 && series[i-1] != '{' && series[i-1] != ',') {
		return "", false
	}
	rest := series[i+len(label)+2:]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

// traffic groups p2p message types by what they carry. CometBFT labels a
// message by its Go package and type: "consensus_BlockPart" in v0.38 and
// v0.39, "v1_BlockPart" in v1 (its protos' package is v1 throughout), so
// the type after the package says what it is.
var traffic = map[string]string{
	"BlockPart": "block parts", "HasProposalBlockPart": "block parts",
	"Vote": "votes", "HasVote": "votes", "VoteSetBits": "votes", "VoteSetMaj23": "votes",
	"Txs":          "txs",
	"NewRoundStep": "consensus state", "NewValidBlock": "consensus state", "Proposal": "consensus state", "ProposalPOL": "consensus state",
}

func trafficOf(messageType string) string {
	_, typ, ok := strings.Cut(messageType, "_")
	if !ok {
		typ = messageType
	}
	if t, ok := traffic[typ]; ok {
		return t
	}
	return "other"
}

var trafficOrder = []string{"block parts", "votes", "txs", "consensus state", "other"}

// Steps are CometBFT's consensus steps as the step_duration metric names
// them, grouped into the parts of a block's time.
var steps = []struct{ part, step string }{
	{"waiting after commit", "NewHeight"},
	{"new round", "NewRound"},
	{"waiting for the proposal", "Propose"},
	{"waiting for 2/3 prevotes", "Prevote"},
	{"waiting for 2/3 prevotes", "PrevoteWait"},
	{"waiting for 2/3 precommits", "Precommit"},
	{"waiting for 2/3 precommits", "PrecommitWait"},
	{"executing and committing", "Commit"},
}

var partOrder = []string{"waiting after commit", "new round", "waiting for the proposal", "waiting for 2/3 prevotes", "waiting for 2/3 precommits", "executing and committing"}

// nodeInternals is one node's internals over a window.
type nodeInternals struct {
	Node, Role string
	Sent       map[string]float64 // bytes/s by traffic
	Received   map[string]float64
	Parts      map[string]float64 // seconds a block in each part
	Heights    float64
	ExecMs     float64 // block processing (FinalizeBlock), ms a block
	HasExec    bool
	CommitMs   float64 // the application's Commit, ms a block
	HasCommit  bool
	QuorumMs   float64
	FullMs     float64
	HasDelay   bool
	Pending    float64 // bytes waiting to be sent to its peers (mean, summed over peers)
	HasPending bool
	Counts     map[string]float64 // a second: late votes, duplicates, rechecks...
	Missing    float64            // mean missing validators
	HasMissing bool
	AllocMBs   float64
	GCs        float64 // collections a second
	GCPause    float64 // share of time in GC pauses
	HasGo      bool
	DiskW      float64 // MB/s
	DiskR      float64
	HasDisk    bool
	NetRx      float64 // MB/s, the node's own network namespace
	NetTx      float64
	HasNet     bool
}

var counters = []struct{ name, series string }{
	{"late votes/s", "cometbft_consensus_late_votes"},
	{"duplicate votes/s", "cometbft_consensus_duplicate_vote"},
	{"duplicate block parts/s", "cometbft_consensus_duplicate_block_part"},
	{"proposals received/s", "cometbft_consensus_proposal_receive_count"},
	{"mempool rechecks/s", "cometbft_mempool_recheck_times"},
	{"mempool evictions/s", "cometbft_mempool_evicted_txs"},
	{"txs already received/s", "cometbft_mempool_already_received_txs"},
}

// observedMean is a histogram's mean over the run on node: the rise of
// family_sum{labels} over that of its _count, times scale.
func (v view) observedMean(node, family, labels string, scale float64) (float64, bool) {
	sum, _, ok := v.delta(node, family+"_sum"+labels)
	if !ok {
		return 0, false
	}
	if cnt, _, ok := v.delta(node, family+"_count"+labels); ok && cnt > 0 {
		return scale * sum / cnt, true
	}
	return 0, false
}

func (v view) node(n Node) nodeInternals {
	ni := nodeInternals{Node: n.Name, Role: n.Role, Sent: map[string]float64{}, Received: map[string]float64{},
		Parts: map[string]float64{}, Counts: map[string]float64{}}
	for dir, out := range map[string]map[string]float64{"send": ni.Sent, "receive": ni.Received} {
		for mt, series := range v.labelled(n.Name, "cometbft_p2p_message_"+dir+"_bytes_total", "message_type") {
			if r, ok := v.rate(n.Name, series); ok {
				out[trafficOf(mt)] += r
			}
		}
	}
	if d, _, ok := v.delta(n.Name, "cometbft_consensus_height"); ok && d > 0 {
		ni.Heights = d
		for _, s := range steps {
			if d, _, ok := v.delta(n.Name, fmt.Sprintf("cometbft_consensus_step_duration_seconds_sum{step=%q}", s.step)); ok {
				ni.Parts[s.part] += d / ni.Heights
			}
		}
	}
	// The watcher folds these over peers and proposers (observe.Folded);
	// a run stored before it did keeps them by label.
	if m, ok := v.mean(n.Name, "cometbft_p2p_peer_pending_send_bytes"); ok {
		ni.Pending, ni.HasPending = m, true
	}
	for _, series := range v.labelled(n.Name, "cometbft_p2p_peer_pending_send_bytes", "peer_id") {
		if m, ok := v.mean(n.Name, series); ok {
			ni.Pending, ni.HasPending = ni.Pending+m, true
		}
	}
	// CometBFT observes block processing in milliseconds already; its
	// timing of the application's Commit (what writing a block's state
	// costs, which grows with the store) in seconds.
	ni.ExecMs, ni.HasExec = v.observedMean(n.Name, "cometbft_state_block_processing_time", "", 1)
	ni.CommitMs, ni.HasCommit = v.observedMean(n.Name, "cometbft_abci_connection_method_timing_seconds", `{method="commit",type="sync"}`, 1000)
	var q, f []float64
	if m, ok := v.mean(n.Name, "cometbft_consensus_quorum_prevote_delay"); ok {
		q = append(q, m)
	}
	if m, ok := v.mean(n.Name, "cometbft_consensus_full_prevote_delay"); ok {
		f = append(f, m)
	}
	for _, s := range v.labelled(n.Name, "cometbft_consensus_quorum_prevote_delay", "proposer_address") {
		if m, ok := v.mean(n.Name, s); ok {
			q = append(q, m)
		}
	}
	for _, s := range v.labelled(n.Name, "cometbft_consensus_full_prevote_delay", "proposer_address") {
		if m, ok := v.mean(n.Name, s); ok {
			f = append(f, m)
		}
	}
	if len(q) > 0 {
		ni.QuorumMs, ni.FullMs, ni.HasDelay = 1000*meanOf(q), 1000*meanOf(f), true
	}
	for _, c := range counters {
		var sum float64
		found := false
		for k := range v.stats {
			if k.node == n.Name && (k.series == c.series || strings.HasPrefix(k.series, c.series+"{")) {
				if r, ok := v.rate(n.Name, k.series); ok {
					sum, found = sum+r, true
				}
			}
		}
		if found {
			ni.Counts[c.name] = sum
		}
	}
	ni.Missing, ni.HasMissing = v.mean(n.Name, "cometbft_consensus_missing_validators")
	if a, ok := v.rate(n.Name, "go_memstats_alloc_bytes_total"); ok {
		ni.AllocMBs, ni.HasGo = a/1e6, true
		ni.GCs, _ = v.rate(n.Name, "go_gc_duration_seconds_count")
		ni.GCPause, _ = v.rate(n.Name, "go_gc_duration_seconds_sum")
	}
	if w, ok := v.rate(n.Name, observe.SeriesDiskWrite); ok {
		ni.DiskW, ni.HasDisk = w/1e6, true
		r, _ := v.rate(n.Name, observe.SeriesDiskRead)
		ni.DiskR = r / 1e6
	}
	for _, s := range [][2]string{{observe.SeriesNetRx, observe.SeriesNetTx}, {observe.SeriesNodeNetRx, observe.SeriesNodeNetTx}} {
		if rx, ok := v.rate(n.Name, s[0]); ok {
			ni.NetRx, ni.HasNet = rx/1e6, true
			tx, _ := v.rate(n.Name, s[1])
			ni.NetTx = tx / 1e6
			break
		}
	}
	return ni
}

func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Internals is the finding of the samples (in time order) inside [from,
// to] over nodes: figures for the whole testnet (bytes summed over nodes,
// times averaged over validators), a table a node, the parts of a block's
// time, and the validators absent from commits (the heights each missed
// of heights, by Absent). ok is false when there is nothing to say.
func Internals(samples []observe.Sample, from, to time.Time, nodes []Node, absent map[string][]int64, heights, txs int) (finding.Finding, bool) {
	v := window(samples, from, to)
	var all []nodeInternals
	for _, n := range nodes {
		all = append(all, v.node(n))
	}
	f := finding.Finding{Source: SourceInternals, Title: "Node internals",
		Note: "From the nodes' own metrics and /proc over the measured window: bytes summed over nodes, times averaged over validators."}
	add := func(name, unit string, value float64, better finding.Better, partOf string) {
		if math.IsNaN(value) || math.IsInf(value, 0) {
			return
		}
		// A share changes in percentage points: 1 % of time in GC pauses
		// against 0 is not an infinite change.
		f.Figures = append(f.Figures, finding.Figure{Name: name, Unit: unit, Value: value, Better: better, PartOf: partOf, Points: unit == "share"})
	}
	// Bytes by traffic, summed over nodes.
	sent := map[string]float64{}
	anySent := false
	for _, ni := range all {
		for k, x := range ni.Sent {
			sent[k] += x
			anySent = true
		}
	}
	if anySent {
		for _, t := range trafficOrder {
			add("p2p sent: "+t, "kB/s", sent[t]/1e3, finding.Lower, "")
		}
	}
	// The parts of a block's time, averaged over the validators that
	// export the steps.
	if parts, stepHeights := blockParts(all); len(parts) > 0 {
		var whole float64
		for _, p := range partOrder {
			whole += 1000 * meanOf(parts[p])
		}
		add(BlockTime, "ms", whole, finding.Lower, "")
		for _, p := range partOrder {
			add(BlockTime+": "+p, "ms", 1000*meanOf(parts[p]), finding.Lower, BlockTime)
		}
		coarseBlockTime(&f, stepHeights)
	}
	validators := func(get func(nodeInternals) (float64, bool)) (float64, bool) {
		var xs []float64
		for _, ni := range all {
			if x, ok := get(ni); ok && ni.Role == "validator" {
				xs = append(xs, x)
			}
		}
		return meanOf(xs), len(xs) > 0
	}
	summed := func(get func(nodeInternals) (float64, bool)) (float64, bool) {
		var s float64
		found := false
		for _, ni := range all {
			if x, ok := get(ni); ok {
				s, found = s+x, true
			}
		}
		return s, found
	}
	// In MB: a few kB queued is a healthy node, a storm is megabytes.
	if x, ok := summed(func(ni nodeInternals) (float64, bool) { return ni.Pending / 1e6, ni.HasPending }); ok {
		add("p2p pending send", "MB", x, finding.Lower, "")
	}
	if x, ok := validators(func(ni nodeInternals) (float64, bool) { return ni.ExecMs, ni.HasExec }); ok {
		add("block execution", "ms", x, finding.Lower, "")
	}
	if x, ok := validators(func(ni nodeInternals) (float64, bool) { return ni.CommitMs, ni.HasCommit }); ok {
		add("app commit", "ms", x, finding.Lower, "")
	}
	if x, ok := validators(func(ni nodeInternals) (float64, bool) { return ni.QuorumMs, ni.HasDelay }); ok {
		add("quorum prevote delay", "ms", x, finding.Lower, "")
		y, _ := validators(func(ni nodeInternals) (float64, bool) { return ni.FullMs, ni.HasDelay })
		add("full prevote delay", "ms", y, finding.Lower, "")
	}
	for _, c := range counters {
		if x, ok := summed(func(ni nodeInternals) (float64, bool) { x, ok := ni.Counts[c.name]; return x, ok }); ok {
			add(c.name, "", x, finding.Neither, "")
		}
	}
	if x, ok := validators(func(ni nodeInternals) (float64, bool) { return ni.Missing, ni.HasMissing }); ok {
		add("missing validators", "", x, finding.Lower, "")
	}
	if x, ok := summed(func(ni nodeInternals) (float64, bool) { return ni.AllocMBs, ni.HasGo }); ok {
		add("allocated", "MB/s", x, finding.Lower, "")
		y, _ := summed(func(ni nodeInternals) (float64, bool) { return ni.GCs, ni.HasGo })
		add("garbage collections/s", "", y, finding.Lower, "")
		z, _ := validators(func(ni nodeInternals) (float64, bool) { return ni.GCPause, ni.HasGo })
		add("GC pause share", "share", z, finding.Lower, "")
		// What a validator allocates for each tx committed in the window:
		// the rate alone moves with the load's.
		if v, ok := validators(func(ni nodeInternals) (float64, bool) { return ni.AllocMBs, ni.HasGo }); ok && txs > 0 {
			add(AllocPerTx, "kB", v*1e3*to.Sub(from).Seconds()/float64(txs), finding.Lower, "")
		}
	}
	if x, ok := summed(func(ni nodeInternals) (float64, bool) { return ni.DiskW, ni.HasDisk }); ok {
		add("disk written", "MB/s", x, finding.Lower, "")
		y, _ := summed(func(ni nodeInternals) (float64, bool) { return ni.DiskR, ni.HasDisk })
		add("disk read", "MB/s", y, finding.Lower, "")
	}
	if x, ok := summed(func(ni nodeInternals) (float64, bool) { return ni.NetRx, ni.HasNet }); ok {
		add("network received", "MB/s", x, finding.Lower, "")
		y, _ := summed(func(ni nodeInternals) (float64, bool) { return ni.NetTx, ni.HasNet })
		add("network sent", "MB/s", y, finding.Lower, "")
	}
	if len(f.Figures) == 0 && len(absent) == 0 {
		return f, false
	}
	f.Summary = append(f.Summary, finding.Line{Label: "internals", Text: internalsLine(f)})
	f.Tables = append(f.Tables, perNode(all))
	if t, ok := partsTable(all); ok {
		f.Tables = append(f.Tables, t)
	}
	if len(absent) > 0 {
		f.Tables = append(f.Tables, missingTable(absent, heights))
		for _, name := range sortedByCount(absent) {
			f.Summary = append(f.Summary, finding.Line{Label: "missing", Text: fmt.Sprintf("%s did not sign %d of %d heights (%s)", name, len(absent[name]), heights, ranges(absent[name], 6))})
			if len(f.Summary) == 3 {
				break
			}
		}
	}
	return f, true
}

// internalsLine is the finding's headline: bytes on the wire by what
// they carry, execution, allocation and disk.
func internalsLine(f finding.Finding) string {
	var parts []string
	var total float64
	var by []string
	for _, t := range trafficOrder {
		if x, ok := f.Figure("p2p sent: " + t); ok {
			total += x.Value
		}
	}
	for _, t := range trafficOrder {
		if x, ok := f.Figure("p2p sent: " + t); ok && x.Value > 0.05*total {
			by = append(by, fmt.Sprintf("%s %s", t, finding.Num(x.Value/1e3)))
		}
	}
	if len(by) > 0 {
		parts = append(parts, fmt.Sprintf("p2p sent %s MB/s (%s)", finding.Num(total/1e3), strings.Join(by, ", ")))
	}
	for _, name := range []string{"block execution", "allocated", "disk written"} {
		if x, ok := f.Figure(name); ok {
			parts = append(parts, name+" "+x.Text())
		}
	}
	if len(parts) == 0 {
		return "see the report"
	}
	return strings.Join(parts, "; ")
}

func perNode(all []nodeInternals) finding.Table {
	t := finding.Table{Title: "Node internals by node", Note: "kB/s sent by what the bytes carry; execution: FinalizeBlock and Commit a block; allocations and collections of the Go runtime; disk from /proc.",
		Columns: []string{"node", "role", "block parts kB/s", "votes kB/s", "txs kB/s", "execution ms", "late votes/s", "dup parts/s", "allocated MB/s", "GCs/s", "disk written MB/s"}}
	cell := func(x float64, ok bool) string {
		if !ok {
			return "-"
		}
		return finding.Num(x)
	}
	for _, ni := range all {
		_, sent := ni.Sent["block parts"]
		late, lok := ni.Counts["late votes/s"]
		dup, dok := ni.Counts["duplicate block parts/s"]
		t.Rows = append(t.Rows, []string{ni.Node, ni.Role,
			cell(ni.Sent["block parts"]/1e3, sent), cell(ni.Sent["votes"]/1e3, sent), cell(ni.Sent["txs"]/1e3, sent),
			cell(ni.ExecMs, ni.HasExec), cell(late, lok), cell(dup, dok),
			cell(ni.AllocMBs, ni.HasGo), cell(ni.GCs, ni.HasGo), cell(ni.DiskW, ni.HasDisk)})
	}
	return t
}

func partsTable(all []nodeInternals) (finding.Table, bool) {
	t := finding.Table{Title: "Where a block's time went (ms a block, by consensus step)", Note: "Time each node spent in each consensus step over the window, a height.",
		Columns: append([]string{"node"}, partOrder...)}
	for _, ni := range all {
		if len(ni.Parts) == 0 {
			continue
		}
		row := []string{ni.Node}
		for _, p := range partOrder {
			row = append(row, finding.Num(1000*ni.Parts[p]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t, len(t.Rows) > 0
}

func missingTable(absent map[string][]int64, heights int) finding.Table {
	t := finding.Table{Title: "Validators missing from commits", Note: "Heights of the measured window whose commit lacks the validator's precommit.",
		Columns: []string{"validator", "heights missed", "of", "which"}}
	for _, name := range sortedByCount(absent) {
		t.Rows = append(t.Rows, []string{name, fmt.Sprint(len(absent[name])), fmt.Sprint(heights), ranges(absent[name], 20)})
	}
	return t
}

// ranges writes ascending heights as runs ("12-17, 20"), at most n runs
// and then how many more heights.
func ranges(hs []int64, n int) string {
	var parts []string
	for i := 0; i < len(hs); {
		j := i
		for j+1 < len(hs) && hs[j+1] == hs[j]+1 {
			j++
		}
		if len(parts) == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(hs)-i))
			break
		}
		if i == j {
			parts = append(parts, fmt.Sprint(hs[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", hs[i], hs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func sortedByCount(m map[string][]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(m[out[i]]) != len(m[out[j]]) {
			return len(m[out[i]]) > len(m[out[j]])
		}
		return out[i] < out[j]
	})
	return out
}

// Absent lists, of blocks (by height), the heights each validator did
// not sign, naming validators by names (address -> node name; an address
// not there is shown as it is).
func Absent(blocks []observe.Block, names map[string]string) (map[string][]int64, int) {
	out := map[string][]int64{}
	heights := 0
	for _, b := range blocks {
		if b.Round < 0 {
			continue // its commit not read
		}
		heights++
		for _, a := range b.Absent {
			if n, ok := names[a]; ok {
				a = n
			}
			out[a] = append(out[a], b.Height)
		}
	}
	return out, heights
}
