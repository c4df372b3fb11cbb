package why

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/observe"
)

// series builds the samples of one node's counters over 11 seconds: each
// counter grows by its rate a second; gauges hold their value.
func series(node string, t0 time.Time, counters, gauges map[string]float64) []observe.Sample {
	var out []observe.Sample
	for i := 0; i <= 10; i++ {
		at := t0.Add(time.Duration(i) * time.Second)
		for s, rate := range counters {
			out = append(out, observe.Sample{At: at, Node: node, Series: s, Value: 1000 + rate*float64(i)})
		}
		for s, v := range gauges {
			out = append(out, observe.Sample{At: at, Node: node, Series: s, Value: v})
		}
	}
	return out
}

// Two validators and a full node, 10 s: the internals are the rates and
// means of the nodes' own series, bytes summed over nodes, the parts of a
// block averaged over validators and adding up to the block time; a
// counter that went down (a restart) says nothing; a validator absent
// from commits is named.
func TestInternals(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	val := func(commitSecs float64) map[string]float64 {
		return map[string]float64{
			`cometbft_p2p_message_send_bytes_total{message_type="consensus_BlockPart"}`: 30_000,
			`cometbft_p2p_message_send_bytes_total{message_type="consensus_Vote"}`:      2_000,
			`cometbft_p2p_message_send_bytes_total{message_type="mempool_Txs"}`:         8_000,
			"cometbft_consensus_height":                                      0.5, // a block every 2 s
			`cometbft_consensus_step_duration_seconds_sum{step="NewHeight"}`: 0.5,
			`cometbft_consensus_step_duration_seconds_sum{step="Propose"}`:   0.1,
			`cometbft_consensus_step_duration_seconds_sum{step="Prevote"}`:   0.1,
			`cometbft_consensus_step_duration_seconds_sum{step="Precommit"}`: 0.05,
			`cometbft_consensus_step_duration_seconds_sum{step="Commit"}`:    commitSecs,
			"cometbft_state_block_processing_time_sum":                       0.5 * 12, // 12 ms a block
			"cometbft_state_block_processing_time_count":                     0.5,
			// The app's Commit, observed in seconds: 3 ms a block.
			`cometbft_abci_connection_method_timing_seconds_sum{method="commit",type="sync"}`:   0.5 * 0.003,
			`cometbft_abci_connection_method_timing_seconds_count{method="commit",type="sync"}`: 0.5,
			"cometbft_consensus_late_votes": 2,
			"go_memstats_alloc_bytes_total": 5e6,
			observe.SeriesDiskWrite:         1e6,
		}
	}
	var samples []observe.Sample
	samples = append(samples, series("validator0", t0, val(0.25), map[string]float64{"cometbft_consensus_missing_validators": 1,
		`cometbft_p2p_peer_pending_send_bytes{peer_id="a1"}`: 2000, `cometbft_p2p_peer_pending_send_bytes{peer_id="b2"}`: 1000})...)
	samples = append(samples, series("validator1", t0, val(0.15), map[string]float64{"cometbft_consensus_missing_validators": 0,
		// Folded over proposers by the watcher (observe.Folded).
		"cometbft_consensus_quorum_prevote_delay": 0.2, "cometbft_consensus_full_prevote_delay": 0.3})...)
	samples = append(samples, series("full0", t0, map[string]float64{
		`cometbft_p2p_message_send_bytes_total{message_type="mempool_Txs"}`: 1_000,
		"go_memstats_alloc_bytes_total":                                     2e6,
		// A pod: its network namespace\'s bytes, as its own process collector reads them.
		observe.SeriesNodeNetRx: 2e6,
		observe.SeriesNodeNetTx: 1e6,
	}, nil)...)
	// full0 restarted: its vote counter went down; no rate is made of it.
	samples = append(samples, observe.Sample{At: t0, Node: "full0", Series: "cometbft_consensus_late_votes", Value: 500},
		observe.Sample{At: t0.Add(10 * time.Second), Node: "full0", Series: "cometbft_consensus_late_votes", Value: 3})
	nodes := []Node{{"validator0", "validator"}, {"validator1", "validator"}, {"full0", "full"}}
	absent := map[string][]int64{"validator2": {11, 12, 13, 15}}
	f, ok := Internals(samples, t0, t0.Add(10*time.Second), nodes, absent, 5, 1000)
	if !ok {
		t.Fatal("no internals")
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	near := func(name string, want float64) { t.Helper(); figureNear(t, f, name, want, 1e-6*max(1, math.Abs(want))) }
	near("p2p sent: block parts", 60) // kB/s, two validators
	near("p2p sent: votes", 4)
	near("p2p sent: txs", 17)
	near("block time: waiting after commit", 1000) // 0.5 s a second over 0.5 heights a second
	near("block time: waiting for the proposal", 200)
	near("block time: executing and committing", 400) // (500 + 300) / 2
	near("block time", 1000+200+200+100+400)
	near("block execution", 12)
	near("app commit", 3)
	near("quorum prevote delay", 200)
	near("full prevote delay", 300)
	near("p2p pending send", 0.003) // MB waiting for validator0's two peers
	near("late votes/s", 4)         // the full node's reset counter left out
	near("missing validators", 0.5)
	near("allocated", 12) // MB/s over the three nodes
	near(AllocPerTx, 50)  // kB: a validator's 5 MB/s for 10 s over 1,000 txs
	if g, _ := Internals(samples, t0, t0.Add(10*time.Second), nodes, absent, 5, 0); g.Figures != nil {
		if _, ok := g.Figure(AllocPerTx); ok {
			t.Error("a window without txs has an allocation per tx")
		}
	}
	near("disk written", 2)
	near("network received", 2)
	near("network sent", 1)
	var parts float64
	for _, x := range f.Figures {
		if x.PartOf == BlockTime {
			parts += x.Value
		}
	}
	if whole, _ := f.Figure(BlockTime); math.Abs(parts-whole.Value) > 1e-9 {
		t.Errorf("the parts add up to %g, the block time is %g", parts, whole.Value)
	}
	// From sums over the window's heights: coarse, the timeline's finer
	// figure named; a figure that is not the block time's is not.
	for name, precise := range map[string]string{BlockTime: "height time", "block time: waiting after commit": "height time: after commit", "block time: waiting for the proposal": ""} {
		x, _ := f.Figure(name)
		if x.Resolution <= 0 || x.Resolution > 1 || x.Precise != precise {
			t.Errorf("%s: resolution %g, precise %q; want a coarse figure, finer %q", name, x.Resolution, x.Precise, precise)
		}
	}
	if x, _ := f.Figure("block execution"); x.Resolution != 0 {
		t.Errorf("block execution marked coarse: %+v", x)
	}
	var text []string
	for _, l := range f.Summary {
		text = append(text, l.Label+": "+l.Text)
	}
	joined := strings.Join(text, "\n")
	for _, want := range []string{"validator2 did not sign 4 of 5 heights (11-13, 15)", "p2p sent 0.0810 MB/s (block parts 0.0600, txs 0.0170)", "block execution 12.00 ms"} {
		if !strings.Contains(joined, want) {
			t.Errorf("summary %q lacks %q", joined, want)
		}
	}
	// Nothing known: no finding.
	if _, ok := Internals(nil, t0, t0.Add(time.Second), nodes, nil, 0, 0); ok {
		t.Error("a finding of no samples")
	}
}

// Absent counts the heights each validator's precommit is missing from,
// by node name where the address is known, and skips blocks whose commit
// was not read.
func TestAbsent(t *testing.T) {
	blocks := []observe.Block{{Height: 1, Round: 0, Absent: []string{"AA"}}, {Height: 2, Round: 0, Absent: []string{"AA", "ZZ"}},
		{Height: 3, Round: 1}, {Height: 4, Round: -1, Absent: []string{"AA"}}}
	got, heights := Absent(blocks, map[string]string{"AA": "validator3"})
	if heights != 3 || fmt.Sprint(got["validator3"]) != "[1 2]" || fmt.Sprint(got["ZZ"]) != "[2]" || len(got) != 2 {
		t.Fatalf("Absent = %v over %d heights; want validator3 2, ZZ 1 over 3", got, heights)
	}
}

func TestRanges(t *testing.T) {
	for _, tc := range []struct {
		in   []int64
		n    int
		want string
	}{{nil, 3, ""}, {[]int64{5}, 3, "5"}, {[]int64{1, 2, 3, 7, 9, 10}, 3, "1-3, 7, 9-10"}, {[]int64{1, 3, 5, 7}, 2, "1, 3, and 2 more"}} {
		if got := ranges(tc.in, tc.n); got != tc.want {
			t.Errorf("ranges(%v, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// Message types as v0.38, v0.39 and v1 label them.
func TestTrafficOf(t *testing.T) {
	for in, want := range map[string]string{"consensus_BlockPart": "block parts", "v1_BlockPart": "block parts", "v1_HasProposalBlockPart": "block parts",
		"consensus_Vote": "votes", "v1_VoteSetMaj23": "votes", "mempool_Txs": "txs", "v1_Txs": "txs", "consensus_NewRoundStep": "consensus state",
		"p2p_PexAddrs": "other", "blocksync_StatusResponse": "other", "v1_BlockResponse": "other", "odd": "other"} {
		if got := trafficOf(in); got != want {
			t.Errorf("trafficOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// figureNear fails t unless f has the figure name within tol of want.
func figureNear(t *testing.T, f finding.Finding, name string, want, tol float64) {
	t.Helper()
	x, ok := f.Figure(name)
	if !ok {
		t.Fatalf("no figure %q in %v", name, f.Figures)
	}
	if math.Abs(x.Value-want) > tol {
		t.Errorf("%s = %g, want %g", name, x.Value, want)
	}
}
