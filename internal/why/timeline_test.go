package why

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// feed records one height's events at node as its consensus would send
// them: the Propose step at propose, the complete proposal, the Precommit
// and Commit steps, then the new block's header (proposer's address).
func feed(e *Events, node string, h int64, t0 time.Time, propose, proposal, precommit, commit, header time.Duration, proposer string) {
	step := func(s string, at time.Duration) {
		e.record(node, []byte(fmt.Sprintf(`{"result":{"data":{"type":"tendermint/event/RoundState","value":{"height":"%d","round":0,"step":"%s"}}}}`, h, s)), t0.Add(at))
	}
	step("RoundStepNewHeight", 0)
	step("RoundStepPropose", propose)
	e.record(node, []byte(fmt.Sprintf(`{"result":{"data":{"type":"tendermint/event/CompleteProposal","value":{"height":"%d","round":0}}}}`, h)), t0.Add(proposal))
	step("RoundStepPrevote", proposal)
	step("RoundStepPrecommit", precommit)
	step("RoundStepCommit", commit)
	e.record(node, []byte(fmt.Sprintf(`{"result":{"data":{"type":"tendermint/event/NewBlockHeader","value":{"header":{"height":"%d","proposer_address":"%s"}}}}}`, h, proposer)), t0.Add(header))
}

// Three validators and a full node go through heights 1..8, a second a
// height. After the previous header: the Propose step at 100 ms, the
// complete proposal at 200 (the proposer, validator0), 300 (validator1,
// full0) or 350 (validator2), 2/3 prevotes at 450, 2/3 precommits at 600,
// the header at 1000, validator2's 20 ms later. The timeline reads those
// phases back, says how long the proposal took to reach the others and
// how far apart the nodes committed, and leaves out a node that committed
// a height only after the others had the next.
func TestTimelinePhases(t *testing.T) {
	e := &Events{at: map[int64]map[string]*stamps{}, address: map[string]string{"AA": "validator0", "BB": "validator1", "CC": "validator2"}, errs: map[string]string{}}
	base := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	for h := int64(1); h <= 8; h++ {
		prev := base.Add(time.Duration(h-1) * time.Second)
		for _, n := range []string{"validator0", "validator1", "validator2", "full0"} {
			proposal, header, from := 300*ms, 1000*ms, prev
			switch n {
			case "validator0":
				proposal = 200 * ms
			case "validator2":
				proposal, header, from = 350*ms, 1020*ms, prev.Add(20*ms)
			case "full0":
				if h == 7 {
					header = 2500 * ms // after the others had height 8
				}
				if h == 8 {
					continue
				}
			}
			if n == "validator2" { // its points since its own previous header
				feed(e, n, h, from, 80*ms, proposal-20*ms, 430*ms, 580*ms, header-20*ms, "AA")
				continue
			}
			feed(e, n, h, from, 100*ms, proposal, 450*ms, 600*ms, header, "AA")
		}
	}
	nodes := []EventNode{{Name: "validator0", Role: "validator"}, {Name: "validator1", Role: "validator"}, {Name: "validator2", Role: "validator"}, {Name: "full0", Role: "full"}}
	f, ok := e.Timeline(base, base.Add(time.Minute), nodes)
	if !ok {
		t.Fatal("no timeline")
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	near := func(name string, want float64) { t.Helper(); figureNear(t, f, name, want, 0.5) }
	// Heights 2..8, the validators' means: validator2 saw its previous
	// header 20 ms late, so its Propose step came 80 ms after it.
	near("height time: after commit", (100+100+80)/3.0)
	near("height time: proposal and its block parts", (100+200+250)/3.0)
	near("height time: 2/3 prevotes", (250+150+100)/3.0)
	near("height time: 2/3 precommits", 150)
	near("height time: execution", (400+400+420)/3.0)
	near("height time", 1000)
	// validator1 had the proposal 100 ms after the proposer, validator2
	// 150, full0 100 (heights 2..6; at 7 it was catching up, 8 it missed).
	near("proposal reaches the others after", (5*(100+150+100)/3.0+2*(100+150)/2.0)/7)
	near("nodes commit apart by", 20)
	var behind string
	for _, l := range f.Summary {
		if l.Label == "behind" {
			behind = l.Text
		}
	}
	if !strings.HasPrefix(behind, "full0 committed 1 of 8 heights only after") {
		t.Errorf("summary %v: want full0 named behind", f.Summary)
	}
	if len(f.Charts) != 2 {
		t.Fatalf("%d charts, want the phases and the nodes", len(f.Charts))
	}
	phases := f.Charts[0]
	if top := phases.Lines[len(phases.Lines)-1]; math.Abs(top.Values[0]-1000) > 0.5 {
		t.Errorf("phase chart's top line %v, want 1000 ms a height", top.Values)
	}
	for _, l := range f.Charts[1].Lines {
		want := 0.0
		if l.Label == "validator2" {
			want = 20
		}
		if math.Abs(l.Values[0]-want) > 0.5 {
			t.Errorf("%s commits %.1f ms after the first, want %.0f", l.Label, l.Values[0], want)
		}
		if l.Label == "full0" && !math.IsNaN(l.Values[5]) {
			t.Errorf("full0 at height 7 (catching up) drawn at %.0f ms, want a gap", l.Values[5])
		}
	}
}

// Events out of bounds or not of a height are dropped, not stored: a
// height that does not parse, a negative one, a message that is not JSON.
func TestTimelineIgnoresJunk(t *testing.T) {
	e := &Events{at: map[int64]map[string]*stamps{}, address: map[string]string{}, errs: map[string]string{}}
	now := time.Now()
	for _, msg := range []string{`not json`, `{"result":{"data":{"type":"tendermint/event/RoundState","value":{"height":"-3"}}}}`,
		`{"result":{"data":{"type":"tendermint/event/RoundState","value":{"height":"99999999999999999999999"}}}}`, `{}`} {
		e.record("validator0", []byte(msg), now)
	}
	if len(e.at) != 0 {
		t.Fatalf("junk stored: %v", e.at)
	}
	if _, ok := e.Timeline(now.Add(-time.Hour), now.Add(time.Hour), nil); ok {
		t.Fatal("a timeline of nothing")
	}
}

func TestWSURL(t *testing.T) {
	for in, want := range map[string]string{"http://127.0.0.1:26657": "ws://127.0.0.1:26657/websocket", "https://h:1/rpc/": "wss://h:1/rpc/websocket"} {
		if got, _, err := wsURL(in); err != nil || got != want {
			t.Errorf("wsURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	// Credentials go in a header: the websocket client refuses them in the URL.
	if got, h, err := wsURL("http://u:pw@127.0.0.1:1"); err != nil || got != "ws://127.0.0.1:1/websocket" || h.Get("Authorization") != "Basic dTpwdw==" {
		t.Errorf("wsURL with credentials = %q, %v, %v", got, h, err)
	}
	if _, _, err := wsURL("ftp://user:secret@h"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("ftp: %v; want refused without the password", err)
	}
}

// OnHeader hears each node's NewBlockHeader height and nothing else (a
// step, a junk height), also past maxStamps, until it is stopped.
func TestOnHeader(t *testing.T) {
	e := &Events{at: map[int64]map[string]*stamps{}, address: map[string]string{}, errs: map[string]string{}}
	var heard []int64
	stop := e.OnHeader(func(h int64) { heard = append(heard, h) })
	t0 := time.Now()
	feed(e, "validator0", 5, t0, 0, 1, 2, 3, 4, "A")
	feed(e, "validator1", 5, t0, 0, 1, 2, 3, 4, "A")
	e.record("validator0", []byte(`{"result":{"data":{"type":"tendermint/event/NewBlockHeader","value":{"header":{"height":"x"}}}}}`), t0)
	e.n = maxStamps
	feed(e, "validator0", 6, t0, 0, 1, 2, 3, 4, "A")
	stop()
	feed(e, "validator0", 7, t0, 0, 1, 2, 3, 4, "A")
	if fmt.Sprint(heard) != "[5 5 6]" {
		t.Errorf("heard %v; want [5 5 6]", heard)
	}
}

// heightSE: batch means over consecutive heights, so a slow stretch counts
// once; too few heights for three batches give none.
func TestHeightSE(t *testing.T) {
	if se, df := heightSE([]float64{1, 2}); se != 0 || df != 0 {
		t.Errorf("two heights: SE %g df %d; want none", se, df)
	}
	// 16 heights in 8 batches of 2: batch means 1000 and 1100 alternating.
	var xs []float64
	for i := range 16 {
		xs = append(xs, 1000+100*float64((i/2)%2))
	}
	se, df := heightSE(xs)
	// Batch means' SD sqrt(8*50^2/7), over sqrt(8).
	if want := math.Sqrt(8*2500.0/7) / math.Sqrt(8); df != 7 || math.Abs(se-want) > 1e-9 {
		t.Errorf("SE %g df %d; want %g, 7", se, df, want)
	}
}
