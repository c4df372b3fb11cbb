package traces

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/finding"
)

// Source names the finding.
const Source = "observer/traces"

// Execution is the whole the message types' figures are parts of.
const Execution = "app execution per block"

// slowest is how many of the slowest heights the finding lists.
const slowest = 5

// NotAsked is the finding of a run that asked for traces on a chain that
// cannot send them, saying why.
func NotAsked(why string) finding.Finding {
	return finding.Finding{Source: Source, Title: "Application traces", Note: "No spans asked: " + why + "."}
}

// Finding says where the application's execution time went, from every
// node's spans: per message type, ante handlers against handlers, and per
// height. none says why when no span came.
func Finding(a *Aggregate, none string) finding.Finding {
	f := finding.Finding{Source: Source, Title: "Application traces"}
	nodes := a.Nodes()
	total, cut := 0, 0
	for _, n := range nodes {
		total += n.Spans
		cut += n.Cut + n.Unresolved()
	}
	a.mu.Lock()
	unknown, refused := a.unknown, maps.Clone(a.refused)
	a.mu.Unlock()
	if total == 0 {
		f.Note = "No spans arrived: " + none + "." + refusedText(refused)
		return f
	}
	var exec, commit, runTx, ante Durations
	msgs := map[string]*Durations{}
	for _, n := range nodes {
		n.blockTimes(&exec, &commit)
		if d := n.RunTx[InBlock]; d != nil {
			runTx.merge(d)
		}
		if d := n.Ante[InBlock]; d != nil {
			ante.merge(d)
		}
		for t, d := range n.Msg {
			if msgs[t] == nil {
				msgs[t] = &Durations{}
			}
			msgs[t].merge(d)
		}
	}
	types := slices.Sorted(maps.Keys(msgs))
	sort.SliceStable(types, func(i, j int) bool { return msgs[types[i]].Sum > msgs[types[j]].Sum })
	f.Note = fmt.Sprintf("The application's own OpenTelemetry spans (the Cosmos SDK's BaseApp), which every node sent to chainperf "+
		"over the whole run, set-up and warm-up included: %d spans from %d nodes", total, len(nodes))
	if cut+unknown > 0 {
		f.Note += fmt.Sprintf("; %d not kept (past chainperf's bounds or from no node of the run)", cut+unknown)
	}
	f.Note += ". A block's execution is FinalizeBlock's (internalFinalizeBlock); its parts are the time in each message type's handlers " +
		"and in the ante handlers, per block, the rest is the block's own work (begin and end block, decoding, events)." + refusedText(refused)
	if exec.N > 0 {
		perBlock := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(exec.N) }
		f.Figures = append(f.Figures,
			finding.Figure{Name: Execution, Unit: "ms", Value: exec.Mean(), Better: finding.Lower},
			finding.Figure{Name: Execution + ": ante handlers", Unit: "ms", Value: perBlock(ante.Sum), Better: finding.Lower, PartOf: Execution})
		rest := exec.Mean() - perBlock(ante.Sum)
		for _, t := range types {
			v := perBlock(msgs[t].Sum)
			rest -= v
			f.Figures = append(f.Figures, finding.Figure{Name: Execution + ": " + t, Unit: "ms", Value: v, Better: finding.Lower, PartOf: Execution})
		}
		f.Figures = append(f.Figures, finding.Figure{Name: Execution + ": rest", Unit: "ms", Value: rest, Better: finding.Lower, PartOf: Execution})
	}
	f.Summary = []finding.Line{{Label: "app", Text: summary(exec, commit, ante, types, msgs)}}
	if commit.N > 0 {
		f.Figures = append(f.Figures, finding.Figure{Name: "app commit per block", Unit: "ms", Value: commit.Mean(), Better: finding.Lower})
	}
	for _, t := range types {
		f.Figures = append(f.Figures, finding.Figure{Name: t + " handler per message", Unit: "ms", Value: msgs[t].Mean(), Better: finding.Lower})
	}
	if runTx.Sum > 0 {
		f.Figures = append(f.Figures, finding.Figure{Name: "ante share of a tx's execution", Unit: "share",
			Value: float64(ante.Sum) / float64(runTx.Sum), Points: true})
	}
	f.Tables = append(f.Tables, typeTable(types, msgs, exec.N), nodeTable(nodes))
	heights := byHeight(nodes)
	if len(heights) > 0 {
		f.Tables = append(f.Tables, slowestTable(heights))
		f.Charts = append(f.Charts, heightChart(heights))
	}
	return f
}

// summary is the run summary's line: a block's execution and its biggest
// parts, commit, and the costliest message type's time per message.
func summary(exec, commit, ante Durations, types []string, msgs map[string]*Durations) string {
	if exec.N == 0 {
		return "spans came, but none of a block's execution (no block ran, or its spans were past the bounds)"
	}
	perBlock := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(exec.N) }
	parts := []string{fmt.Sprintf("ante handlers %.3g", perBlock(ante.Sum))}
	for _, t := range types[:min(2, len(types))] {
		parts = append(parts, fmt.Sprintf("%s %.3g", shortType(t), perBlock(msgs[t].Sum)))
	}
	line := fmt.Sprintf("execution %.3g ms a block (%s), commit %.3g ms", exec.Mean(), strings.Join(parts, ", "), commit.Mean())
	if len(types) > 0 {
		line += fmt.Sprintf("; %s %.3g ms a message", shortType(types[0]), msgs[types[0]].Mean())
	}
	return line + " (the application's spans)"
}

// shortType is a message type's last name: /cosmos.bank.v1beta1.MsgSend
// is MsgSend.
func shortType(t string) string {
	if i := strings.LastIndexByte(t, '.'); i >= 0 && i < len(t)-1 {
		return t[i+1:]
	}
	return t
}

func refusedText(refused map[string]int) string {
	if len(refused) == 0 {
		return ""
	}
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(refused)) {
		parts = append(parts, fmt.Sprintf("%s (%d)", r, refused[r]))
	}
	return " Export requests refused: " + strings.Join(parts, ", ") + "."
}

func ms(x float64) string { return fmt.Sprintf("%.3f", x) }

func typeTable(types []string, msgs map[string]*Durations, blocks int) finding.Table {
	t := finding.Table{Title: "Time in each message type's handler", Note: "FinalizeBlock only (CheckTx runs no handler), every node's.",
		Columns: []string{"message type", "messages", "mean ms", "p50 ms", "p99 ms", "ms per block"}}
	for _, ty := range types {
		d := msgs[ty]
		perBlock := "-"
		if blocks > 0 {
			perBlock = ms(float64(d.Sum) / 1e6 / float64(blocks))
		}
		t.Rows = append(t.Rows, []string{ty, fmt.Sprint(d.N), ms(d.Mean()), ms(d.Quantile(0.5)), ms(d.Quantile(0.99)), perBlock})
	}
	return t
}

func nodeTable(nodes []*Node) finding.Table {
	t := finding.Table{Title: "Spans by node", Note: "A tx's runTx by the call it ran under: in a block, checking a proposal, entering the mempool.",
		Columns: []string{"node", "spans", "not kept", "blocks", "execution ms", "commit ms", "tx in a block ms", "tx in ProcessProposal ms", "tx in CheckTx ms"}}
	for _, n := range nodes {
		var exec, commit Durations
		n.blockTimes(&exec, &commit)
		mean := func(label string) string {
			if d := n.RunTx[label]; d != nil {
				return ms(d.Mean())
			}
			return "-"
		}
		t.Rows = append(t.Rows, []string{n.Name, fmt.Sprint(n.Spans), fmt.Sprint(n.Cut + n.Unresolved()), fmt.Sprint(exec.N),
			ms(exec.Mean()), ms(commit.Mean()), mean(InBlock), mean(spanProcess), mean("CheckTx")})
	}
	return t
}

// blockTimes adds n's blocks' execution and commit times to exec and
// commit.
func (n *Node) blockTimes(exec, commit *Durations) {
	for _, b := range n.Blocks {
		switch b.Name {
		case spanFinalize:
			exec.add(b.Took)
		case spanCommit:
			commit.add(b.Took)
		}
	}
}

// height is one height's execution and commit, the mean over the nodes
// whose spans said it.
type height struct {
	h            int64
	exec, commit Durations
}

// byHeight joins each node's FinalizeBlock and Commit to its height: a
// validator's proposal call (PrepareProposal or ProcessProposal) names
// the height, and the block's execution and commit follow it. A node that
// makes no proposal call (a full node) says no height.
func byHeight(nodes []*Node) []*height {
	at := map[int64]*height{}
	for _, n := range nodes {
		blocks := slices.Clone(n.Blocks)
		sort.SliceStable(blocks, func(i, j int) bool { return blocks[i].Start.Before(blocks[j].Start) })
		var proposed, executed int64
		for _, b := range blocks {
			switch {
			case b.Name == spanPrepare || b.Name == spanProcess:
				proposed = b.Height
			case b.Name == spanFinalize && proposed > executed:
				executed = proposed
				if at[executed] == nil {
					at[executed] = &height{h: executed}
				}
				at[executed].exec.add(b.Took)
			case b.Name == spanCommit && executed > 0 && at[executed].commit.N < at[executed].exec.N:
				at[executed].commit.add(b.Took)
			}
		}
	}
	out := slices.Collect(maps.Values(at))
	sort.Slice(out, func(i, j int) bool { return out[i].h < out[j].h })
	return out
}

func slowestTable(heights []*height) finding.Table {
	s := slices.Clone(heights)
	sort.SliceStable(s, func(i, j int) bool { return s[i].exec.Mean() > s[j].exec.Mean() })
	t := finding.Table{Title: "Slowest heights to execute", Note: "Mean over the validators.",
		Columns: []string{"height", "execution ms", "commit ms"}}
	for _, h := range s[:min(slowest, len(s))] {
		t.Rows = append(t.Rows, []string{fmt.Sprint(h.h), ms(h.exec.Mean()), ms(h.commit.Mean())})
	}
	return t
}

func heightChart(heights []*height) finding.Chart {
	c := finding.Chart{Title: "The application's execution and commit by height", Note: "Mean over the validators.",
		XName: "height", Unit: "ms",
		Lines: []finding.ChartLine{{Label: "execution (FinalizeBlock)"}, {Label: "commit"}}}
	for _, h := range heights {
		c.X = append(c.X, float64(h.h))
		commit := math.NaN()
		if h.commit.N > 0 {
			commit = h.commit.Mean()
		}
		c.Lines[0].Values = append(c.Lines[0].Values, h.exec.Mean())
		c.Lines[1].Values = append(c.Lines[1].Values, commit)
	}
	return c
}
