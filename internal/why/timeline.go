package why

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/nodehttp"
)

// SourceTimeline is the source of the block timeline finding.
const SourceTimeline = "observer/timeline"

// An EventNode is a node whose consensus events are followed.
type EventNode struct {
	Name, Role, RPC string
}

// Limits on what a node's event stream may cost: an event larger than
// maxEvent is an error for that node; at most maxStamps heights x nodes
// are kept (a long run keeps its first ones and says so).
const (
	maxEvent  = 1 << 20
	maxStamps = 200_000
	quiet     = 30 * time.Second // no event for this long: the node's stream is dead
)

// stamps are when one node reached each point of one height, as the
// harness saw its events (one clock for every node on this machine).
type stamps struct {
	Propose   time.Time // first Propose step (any round)
	Proposal  time.Time // the last complete proposal (block and all its parts)
	Precommit time.Time // the last Precommit step: 2/3 prevotes seen (or a timeout)
	Commit    time.Time // Commit step: 2/3 precommits for a block
	Header    time.Time // the new block's header: executed and committed
	Round     int
	Proposer  string // address, from the header
}

// Events follows the consensus events of every node; Timeline reads
// what it saw.
type Events struct {
	mu      sync.Mutex
	at      map[int64]map[string]*stamps
	address map[string]string // address -> node name
	errs    map[string]string // node -> its stream's last error
	dropped int
	n       int
	wg      sync.WaitGroup
	heard   map[int]func(int64) // OnHeader's, by key
	key     int
}

// OnHeader calls fn with the height of each NewBlockHeader event of any
// node as it comes (the block follower reads then instead of polling);
// fn must not block. The returned func stops the calls.
func (e *Events) OnHeader(fn func(height int64)) (stop func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.heard == nil {
		e.heard = map[int]func(int64){}
	}
	e.key++
	k := e.key
	e.heard[k] = fn
	return func() {
		e.mu.Lock()
		delete(e.heard, k)
		e.mu.Unlock()
	}
}

// Follow starts following nodes' consensus events until ctx ends; Stop
// waits for the streams to close.
func Follow(ctx context.Context, nodes []EventNode) *Events {
	e := &Events{at: map[int64]map[string]*stamps{}, address: map[string]string{}, errs: map[string]string{}}
	for _, n := range nodes {
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.follow(ctx, n)
		}()
	}
	return e
}

// Stop waits until every stream has closed (after ctx ended).
func (e *Events) Stop() { e.wg.Wait() }

// Names maps the validators' addresses to node names, as the nodes said
// (their /status).
func (e *Events) Names() map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]string{}
	for a, n := range e.address {
		out[a] = n
	}
	return out
}

// Errors are the nodes whose event stream failed, and why.
func (e *Events) Errors() map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]string{}
	for n, err := range e.errs {
		out[n] = err
	}
	return out
}

func (e *Events) follow(ctx context.Context, n EventNode) {
	for ctx.Err() == nil {
		if err := e.stream(ctx, n); err != nil && ctx.Err() == nil {
			e.mu.Lock()
			e.errs[n.Name] = err.Error()
			e.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
		}
	}
}

// wsURL turns a node's RPC URL into its websocket endpoint, and its
// credentials into a basic auth header (the websocket client takes none
// in the URL).
func wsURL(rpc string) (string, http.Header, error) {
	u, err := url.Parse(strings.TrimRight(rpc, "/"))
	if err != nil {
		return "", nil, err
	}
	var h http.Header
	if u.User != nil {
		pw, _ := u.User.Password()
		h = http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))}}
		u.User = nil
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	default:
		return "", nil, fmt.Errorf("RPC URL %s: scheme %q is not http or https", u.Redacted(), u.Scheme)
	}
	u.Path += "/websocket"
	return u.String(), h, nil
}

// address reads a node's validator address from its /status.
func address(ctx context.Context, rpc string) (string, error) {
	st, err := nodehttp.ReadStatus(ctx, rpc)
	return st.Address, err
}

var queries = []string{"tm.event='NewRoundStep'", "tm.event='CompleteProposal'", "tm.event='NewBlockHeader'"}

func (e *Events) stream(ctx context.Context, n EventNode) error {
	if a, err := address(ctx, n.RPC); err == nil && a != "" {
		e.mu.Lock()
		e.address[a] = n.Name
		e.mu.Unlock()
	}
	u, auth, err := wsURL(n.RPC)
	if err != nil {
		return err
	}
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
	conn, _, err := d.DialContext(ctx, u, auth)
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	defer conn.Close()
	conn.SetReadLimit(maxEvent)
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	for i, q := range queries {
		if err := conn.WriteJSON(map[string]any{"jsonrpc": "2.0", "method": "subscribe", "id": i, "params": map[string]any{"query": q}}); err != nil {
			return fmt.Errorf("events: subscribe: %w", err)
		}
	}
	for {
		conn.SetReadDeadline(time.Now().Add(quiet))
		_, msg, err := conn.ReadMessage()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("events: %w", err)
		}
		e.record(n.Name, msg, time.Now())
	}
}

// event is one message of the subscription, as much of it as is read.
type event struct {
	Result struct {
		Data struct {
			Type  string `json:"type"`
			Value struct {
				Height string `json:"height"`
				Round  int    `json:"round"`
				Step   string `json:"step"`
				Header struct {
					Height   string `json:"height"`
					Proposer string `json:"proposer_address"`
				} `json:"header"`
			} `json:"value"`
		} `json:"data"`
	} `json:"result"`
}

// record files one event of node, seen at, under its height.
func (e *Events) record(node string, msg []byte, at time.Time) {
	var ev event
	if json.Unmarshal(msg, &ev) != nil {
		return
	}
	v := ev.Result.Data.Value
	hs := v.Height
	if ev.Result.Data.Type == "tendermint/event/NewBlockHeader" {
		hs = v.Header.Height
	}
	h, err := strconv.ParseInt(hs, 10, 64)
	if err != nil || h <= 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if ev.Result.Data.Type == "tendermint/event/NewBlockHeader" {
		for _, fn := range e.heard {
			fn(h)
		}
	}
	byNode := e.at[h]
	if byNode == nil {
		if e.n >= maxStamps {
			e.dropped++
			return
		}
		byNode = map[string]*stamps{}
		e.at[h] = byNode
	}
	s := byNode[node]
	if s == nil {
		s = &stamps{}
		byNode[node] = s
		e.n++
	}
	switch ev.Result.Data.Type {
	case "tendermint/event/RoundState":
		s.Round = max(s.Round, v.Round)
		switch v.Step {
		case "RoundStepPropose":
			if s.Propose.IsZero() {
				s.Propose = at
			}
		case "RoundStepPrecommit":
			s.Precommit = at
		case "RoundStepCommit":
			s.Commit = at
		}
	case "tendermint/event/CompleteProposal":
		s.Proposal = at
	case "tendermint/event/NewBlockHeader":
		s.Header, s.Proposer = at, v.Header.Proposer
	}
}

// The phases of a height at one node, in order; they add up to the time
// from the previous block's header to this one's.
var phases = []string{"after commit", "proposal and its block parts", "2/3 prevotes", "2/3 precommits", "execution"}

// points are the moments that end each phase, as the phase chart names
// its lines.
var points = []string{"Propose step", "proposal complete", "2/3 prevotes", "2/3 precommits", "block committed"}

// heightAt is one node's phases of one height, ms, and its offsets.
type heightAt struct {
	h        int64
	phase    [5]float64
	proposal float64 // ms after the proposer had its own proposal complete
	commit   float64 // ms after the first node's header
	hasProp  bool
}

// Timeline is the finding of the heights whose block headers the nodes
// saw within [from, to]: each phase's mean a height (validators), how
// long the proposal took to reach the other nodes, how far apart the
// nodes committed, by node and for the heights.
func (e *Events) Timeline(from, to time.Time, nodes []EventNode) (finding.Finding, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	role := map[string]string{}
	for _, n := range nodes {
		role[n.Name] = n.Role
	}
	var heights []int64
	for h, byNode := range e.at {
		first := earliest(byNode, func(s *stamps) time.Time { return s.Header })
		if !first.IsZero() && !first.Before(from) && !first.After(to) {
			heights = append(heights, h)
		}
	}
	sort.Slice(heights, func(i, j int) bool { return heights[i] < heights[j] })
	perNode := map[string][]heightAt{}
	type row struct {
		h         int64
		proposer  string
		rounds    int
		phase     [5][]float64
		spreadMs  float64
		propagate []float64
	}
	var rows []row
	lagging := map[string]int{}
	for _, h := range heights {
		byNode, prev := e.at[h], e.at[h-1]
		r := row{h: h}
		firstHeader := earliest(byNode, func(s *stamps) time.Time { return s.Header })
		// A node that committed h only after another committed h+1 was
		// catching up (stopped, partitioned, syncing): its points of h
		// say nothing of how h went, and are counted apart.
		nextHeader := earliest(e.at[h+1], func(s *stamps) time.Time { return s.Header })
		live := func(s *stamps) bool { return nextHeader.IsZero() || !s.Header.After(nextHeader) }
		var lastHeader time.Time
		for n, s := range byNode {
			if !s.Header.IsZero() && !live(s) {
				lagging[n]++
			} else if s.Header.After(lastHeader) {
				lastHeader = s.Header
			}
		}
		r.spreadMs = ms(lastHeader.Sub(firstHeader))
		var proposerAt time.Time
		for n, s := range byNode {
			if e.address[s.Proposer] == n && s.Proposer != "" {
				proposerAt, r.proposer = s.Proposal, n
			}
			r.rounds = max(r.rounds, s.Round)
		}
		for n, s := range byNode {
			p, ok := prev[n]
			if !ok || p.Header.IsZero() || s.Propose.IsZero() || s.Proposal.IsZero() || s.Precommit.IsZero() || s.Commit.IsZero() || s.Header.IsZero() || !live(s) {
				continue // not every point seen (the stream joined late or dropped), or catching up
			}
			at := heightAt{h: h, phase: [5]float64{
				ms(s.Propose.Sub(p.Header)), ms(s.Proposal.Sub(s.Propose)), ms(s.Precommit.Sub(s.Proposal)),
				ms(s.Commit.Sub(s.Precommit)), ms(s.Header.Sub(s.Commit)),
			}, commit: ms(s.Header.Sub(firstHeader))}
			if slices.ContainsFunc(at.phase[:], func(x float64) bool { return x < 0 }) {
				continue // points out of order: not a height the node went through step by step
			}
			if !proposerAt.IsZero() && n != r.proposer {
				at.proposal, at.hasProp = ms(s.Proposal.Sub(proposerAt)), true
				r.propagate = append(r.propagate, at.proposal)
			}
			perNode[n] = append(perNode[n], at)
			if role[n] == "validator" {
				for i := range phases {
					r.phase[i] = append(r.phase[i], at.phase[i])
				}
			}
		}
		if len(r.phase[0]) > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return finding.Finding{}, false
	}
	f := finding.Finding{Source: SourceTimeline, Title: "Where each height's time went",
		Note: fmt.Sprintf("From every node's consensus events (NewRoundStep, CompleteProposal, NewBlockHeader) as chainperf received them, %d heights of the measured window; phases averaged over validators.", len(rows))}
	xs := make([]float64, len(rows))
	avg := make([][5]float64, len(rows)) // the validators' mean of each phase, a height
	for i, r := range rows {
		xs[i] = float64(r.h)
		for j := range phases {
			avg[i][j] = meanOf(r.phase[j])
		}
	}
	sum, means := heightFigures(&f, avg)
	var prop, spread []float64
	for _, r := range rows {
		if len(r.propagate) > 0 {
			prop = append(prop, meanOf(r.propagate))
		}
		spread = append(spread, r.spreadMs)
	}
	if len(prop) > 0 {
		f.Figures = append(f.Figures, finding.Figure{Name: "proposal reaches the others after", Unit: "ms", Value: meanOf(prop), Better: finding.Lower})
	}
	f.Figures = append(f.Figures, finding.Figure{Name: "nodes commit apart by", Unit: "ms", Value: meanOf(spread), Better: finding.Lower})
	var ps []string
	for i, p := range phases {
		ps = append(ps, p+" "+finding.Num(means[i]))
	}
	line := fmt.Sprintf("%s ms = %s", finding.Num(sum), strings.Join(ps, " + "))
	if len(prop) > 0 {
		line += fmt.Sprintf("; the proposal reached the others after %s ms", finding.Num(meanOf(prop)))
	}
	f.Summary = append(f.Summary, finding.Line{Label: "height", Text: line})
	// By node.
	nt := finding.Table{Title: "Timeline by node (ms, mean a height)", Note: "proposal after: since the proposer had it (its own heights left out); commit after: since the first node committed.",
		Columns: append(append([]string{"node", "heights"}, phases...), "proposal after", "commit after")}
	var names []string
	for n := range perNode {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		hs := perNode[n]
		cells := []string{n, fmt.Sprint(len(hs))}
		for i := range phases {
			var xs []float64
			for _, x := range hs {
				xs = append(xs, x.phase[i])
			}
			cells = append(cells, finding.Num(meanOf(xs)))
		}
		var p, c []float64
		for _, x := range hs {
			if x.hasProp {
				p = append(p, x.proposal)
			}
			c = append(c, x.commit)
		}
		pc := "-"
		if len(p) > 0 {
			pc = finding.Num(meanOf(p))
		}
		cells = append(cells, pc, finding.Num(meanOf(c)))
		nt.Rows = append(nt.Rows, cells)
	}
	f.Tables = append(f.Tables, nt)
	f.Charts = append(f.Charts, phaseChart(xs, avg), nodeChart(xs, names, perNode))
	for _, n := range slices.Sorted(maps.Keys(lagging)) {
		f.Summary = append(f.Summary, finding.Line{Label: "behind", Text: fmt.Sprintf("%s committed %d of %d heights only after the others had the next (catching up); left out of the timeline", n, lagging[n], len(heights))})
	}
	// The slowest heights, where a reader looks first.
	sort.SliceStable(rows, func(i, j int) bool { return rowSum(rows[i].phase) > rowSum(rows[j].phase) })
	ht := finding.Table{Title: "Slowest heights (ms, validators' mean)", Columns: append(append([]string{"height", "proposer", "rounds"}, phases...), "commit spread")}
	for i, r := range rows {
		if i == 10 {
			break
		}
		cells := []string{fmt.Sprint(r.h), orDash(r.proposer), fmt.Sprint(r.rounds + 1)}
		for j := range phases {
			cells = append(cells, finding.Num(meanOf(r.phase[j])))
		}
		ht.Rows = append(ht.Rows, append(cells, finding.Num(r.spreadMs)))
	}
	f.Tables = append(f.Tables, ht)
	if e.dropped > 0 {
		f.Note += fmt.Sprintf(" %d later heights were not kept (at most %d heights x nodes).", e.dropped, maxStamps)
	}
	return f, true
}

func rowSum(p [5][]float64) float64 {
	var s float64
	for _, xs := range p {
		s += meanOf(xs)
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func earliest(m map[string]*stamps, at func(*stamps) time.Time) time.Time {
	var t time.Time
	for _, s := range m {
		if x := at(s); !x.IsZero() && (t.IsZero() || x.Before(t)) {
			t = x
		}
	}
	return t
}

// phaseChart draws, a height, when the validators (on average) reached the
// end of each phase since the previous block: the bands between the lines
// are the phases, the top line the height's whole time.
func phaseChart(xs []float64, means [][5]float64) finding.Chart {
	c := finding.Chart{Title: "Where each height's time went (validators' mean)", XName: "height", Unit: "ms since the previous block",
		Note: "Each line is when a point of the height was reached; the gap between two lines is a phase's time.", X: xs}
	for j, p := range points {
		l := finding.ChartLine{Label: p, Values: make([]float64, len(xs))}
		for i := range xs {
			var sum float64
			for k := 0; k <= j; k++ {
				sum += means[i][k]
			}
			l.Values[i] = sum
		}
		c.Lines = append(c.Lines, l)
	}
	return c
}

// nodeChart draws each node's time from the first node's commit of a
// height to its own: who is behind, and at which heights.
func nodeChart(xs []float64, names []string, perNode map[string][]heightAt) finding.Chart {
	c := finding.Chart{Title: "Each node's commit after the first node's", XName: "height", Unit: "ms", X: xs}
	at := map[float64]int{}
	for i, x := range xs {
		at[x] = i
	}
	for _, n := range names {
		l := finding.ChartLine{Label: n, Values: make([]float64, len(xs))}
		for i := range l.Values {
			l.Values[i] = math.NaN()
		}
		for _, x := range perNode[n] {
			if i, ok := at[float64(x.h)]; ok {
				l.Values[i] = x.commit
			}
		}
		c.Lines = append(c.Lines, l)
	}
	return c
}

// heightFigures adds the height time and its phases (avg: the
// validators' mean of each phase, a height) with the standard error of
// batch means over heights, and returns the height time and each phase's
// mean.
func heightFigures(f *finding.Finding, avg [][5]float64) (float64, []float64) {
	var sum float64
	means := make([]float64, len(phases))
	per := make([][]float64, len(phases)) // a phase's value, by height
	totals := make([]float64, len(avg))
	for i := range phases {
		for j, a := range avg {
			per[i] = append(per[i], a[i])
			totals[j] += a[i]
		}
		means[i] = meanOf(per[i])
		sum += means[i]
	}
	se, df := heightSE(totals)
	f.Figures = append(f.Figures, finding.Figure{Name: "height time", Unit: "ms", Value: sum, SE: se, DF: df, Better: finding.Lower})
	for i, p := range phases {
		se, df := heightSE(per[i])
		f.Figures = append(f.Figures, finding.Figure{Name: "height time: " + p, Unit: "ms", Value: means[i], SE: se, DF: df, Better: finding.Lower, PartOf: "height time"})
	}
	return sum, means
}

// heightSE is the standard error of a mean over heights (xs in height
// order), by batch means: consecutive heights in at most eight batches,
// so that a slow stretch of heights counts once, not once a height. Fewer
// than three batches give none (0, 0).
func heightSE(xs []float64) (float64, int) {
	size := max(1, len(xs)/8)
	var means []float64
	for b := 0; b+size <= len(xs); b += size {
		means = append(means, meanOf(xs[b:b+size]))
	}
	if len(means) < 3 {
		return 0, 0
	}
	var m, ss float64
	m = meanOf(means)
	for _, x := range means {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss/float64(len(means)-1)) / math.Sqrt(float64(len(means))), len(means) - 1
}
