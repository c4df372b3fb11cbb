package ibc

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/finding"
)

// Source is the relay's finding in a run; SourceBack the transfers back
// from the counterparty's.
const (
	Source     = "ibc/transfer"
	SourceBack = "ibc/transfer-back"
)

// A Relay is what a run's relay between its two chains came to.
type Relay struct {
	Relayer string  // "hermes 1.10.5"
	Channel Channel // the transfer channel's IDs on A and B
	Opened  time.Duration
	// Down says how the relayer ended before the run did ("": it ran to
	// the end); Last is the last line of its log when it went down or
	// left packets in flight.
	Down, Last string
	Ledger     *Ledger
	Denom      string // A's denom the transfers carry
	// Escrowed is what A's escrow of the channel holds of Denom at the end,
	// Minted what B minted of its voucher; Balances says why they were not
	// read ("": they were).
	Escrowed, Minted uint64
	Balances         string
	// What the relayer used while it ran (from its process and its own
	// telemetry): cores, largest RSS (MB), largest backlog of pending
	// packets; zero when not scraped.
	CPU, RSS, Backlog float64
	// Pace is how far the relayer kept pace with a load that rose by
	// steps (a sweep's cells); nil when the load had one rate.
	Pace *Pace
	// Back: the transfers are the counterparty's, back to the run's chain
	// (the ledger's From is "B"); its figures are named "back ...".
	Back bool
	// Load is what became of the txs that sent them, when not the run's
	// own (the counterparty's load and balance check), and Off is set
	// when its wallets are not as their txs say.
	Load string
	Off  bool
}

// Finding is the relay's finding: every packet's fate, the relay's
// latencies and the conservation of the transferred denom across the
// chains. A packet refused by B (an error acknowledgement), a packet B
// received that A never sent, a packet still in flight after the drain
// (the relayer did not keep up, or went down) and escrow that does not
// match the vouchers and unsettled packets fail the run.
func (r Relay) Finding() finding.Finding {
	l := r.Ledger
	count := l.Count()
	sent := 0
	for f, n := range count {
		if f != Unsent {
			sent += n
		}
	}
	unsettledN, unsettled := l.Unsettled(r.Denom)
	to, prefix := l.To, ""
	if r.Back {
		prefix = "back "
	}
	fig := func(name, unit string, v float64, better finding.Better) finding.Figure {
		return finding.Figure{Name: prefix + name, Unit: unit, Value: v, Better: better}
	}
	must := func(x finding.Figure) finding.Figure { x.Must = &finding.Limit{Op: "<=", Value: 0}; return x }
	figs := []finding.Figure{
		fig("packets sent", "", float64(sent), finding.Neither),
		fig("packets acknowledged", "", float64(count[Acknowledged]), finding.Higher),
		must(fig("packets acknowledged with an error", "", float64(count[AckError]), finding.Lower)),
		must(fig("packets never sent", "", float64(count[Unsent]), finding.Lower)),
		fig("packets timed out", "", float64(count[TimedOut]), finding.Lower),
		must(fig("packets in flight at the end", "", float64(count[InFlight]+count[AckInFlight]), finding.Lower)),
	}
	recv, ack := l.Latencies()
	for _, q := range []struct {
		name string
		xs   []time.Duration
	}{{"relay to " + to, recv}, {"relay and acknowledgement", ack}} {
		if len(q.xs) > 0 {
			p50, p99 := percentile(q.xs, 0.50), percentile(q.xs, 0.99)
			figs = append(figs, fig(q.name+" p50", "ms", ms(p50), finding.Lower), fig(q.name+" p99", "ms", ms(p99), finding.Lower))
		}
	}
	if r.RSS > 0 {
		figs = append(figs, fig("relayer CPU", "cores", r.CPU, finding.Lower), fig("relayer RSS", "MB", r.RSS, finding.Lower),
			fig("relayer backlog at most", "packets", r.Backlog, finding.Neither))
	}
	summary := []finding.Line{{Label: "packets", Text: fateLine(sent, count)}}
	if r.Pace != nil {
		figs = append(figs, fig("transfers the relayer kept pace with", "tx/s", r.Pace.Held, finding.Higher))
		summary = append(summary, r.Pace.lines()...)
	}
	escrow, off := r.escrowLine(unsettledN, unsettled)
	if off >= 0 {
		figs = append(figs, must(fig("escrow not matched by vouchers", r.Denom, off, finding.Lower)))
	}
	summary = append(summary, escrow)
	if r.Load != "" {
		summary = append(summary, finding.Line{Label: "load back", Text: r.Load})
		off := 0.0
		if r.Off {
			off = 1
		}
		figs = append(figs, must(fig("wallets not as their txs say", "", off, finding.Lower)))
	}
	summary = append(summary, finding.Line{Label: "relayer", Text: r.relayerLine()})
	for _, p := range l.Problems() {
		summary = append(summary, finding.Line{Label: "packet", Text: p})
	}
	f := finding.Finding{Source: Source, Title: "IBC transfers", Figures: figs, Summary: summary,
		Note: "Every packet of the channel from both chains' blocks: sent (committed on A), received on B, its acknowledgement committed on A, or timed out."}
	if r.Back {
		f.Source, f.Title = SourceBack, "IBC transfers back"
		f.Note = "The counterparty's load: every packet from B (the counterparty) to A (this run's chain), from both chains' blocks: sent (committed on B), received on A, its acknowledgement committed on B, or timed out."
	}
	return f
}

// escrowLine says whether the escrow matched the vouchers and unsettled
// packets, and by how much it was off (-1: not read).
func (r Relay) escrowLine(unsettledN int, unsettled uint64) (finding.Line, float64) {
	if r.Balances != "" {
		return finding.Line{Label: "escrow", Text: "not checked: " + r.Balances}, -1
	}
	from, to := r.Ledger.From, r.Ledger.To
	text := fmt.Sprintf("conserved: %d %s escrowed on %s = %d vouchers minted on %s + %d in %d packets not yet settled", r.Escrowed, r.Denom, from, r.Minted, to, unsettled, unsettledN)
	off := float64(0)
	if err := ConservedBetween(from, to, r.Escrowed, r.Minted, unsettled); err != nil {
		off = float64(max(r.Escrowed, r.Minted+unsettled) - min(r.Escrowed, r.Minted+unsettled))
		text = err.Error()
	}
	return finding.Line{Label: "escrow", Text: text}, off
}

// relayerLine is the relayer, its channel, what it used and how it ended.
func (r Relay) relayerLine() string {
	relayer := fmt.Sprintf("%s, channel %s on A to %s on B, opened in %s", r.Relayer, r.Channel.A, r.Channel.B, r.Opened.Round(time.Second))
	if r.RSS > 0 {
		relayer += fmt.Sprintf("; %.2f cores, %.0f MB at most, %.0f packets pending at most (its telemetry)", r.CPU, r.RSS, r.Backlog)
	}
	if r.Down != "" {
		relayer += "; it went down during the run: " + r.Down
	}
	if r.Last != "" {
		relayer += "; its last line: " + cutText(r.Last, 300)
	}
	return relayer
}

func fateLine(sent int, count map[Fate]int) string {
	parts := []string{fmt.Sprintf("%d sent", sent)}
	for _, f := range []Fate{Acknowledged, AckError, TimedOut, AckInFlight, InFlight, Unsent} {
		if count[f] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[f], f))
		}
	}
	return strings.Join(parts, ", ")
}

func percentile(xs []time.Duration, q float64) time.Duration {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Balance is what address holds of denom at height (its state once that
// block is committed), from a node's REST gateway at api (http://host:port).
func Balance(ctx context.Context, api, address, denom string, height int64) (uint64, error) {
	var r struct {
		Balance struct {
			Amount string `json:"amount"`
		} `json:"balance"`
	}
	u := fmt.Sprintf("%s/cosmos/bank/v1beta1/balances/%s/by_denom?denom=%s", api, url.PathEscape(address), url.QueryEscape(denom))
	if err := getREST(ctx, u, height, &r); err != nil {
		return 0, err
	}
	return strconv.ParseUint(r.Balance.Amount, 10, 64)
}

// Supply is the chain's total supply of denom at height, from its REST
// gateway.
func Supply(ctx context.Context, api, denom string, height int64) (uint64, error) {
	var r struct {
		Amount struct {
			Amount string `json:"amount"`
		} `json:"amount"`
	}
	if err := getREST(ctx, fmt.Sprintf("%s/cosmos/bank/v1beta1/supply/by_denom?denom=%s", api, url.QueryEscape(denom)), height, &r); err != nil {
		return 0, err
	}
	return strconv.ParseUint(r.Amount.Amount, 10, 64)
}
