package ibc

import (
	"strings"
	"testing"
	"time"
)

// The finding fails the run for vouchers that do not match the escrow and
// unsettled packets, by how much, and not when they match; a relayer that
// went down is said with its last line.
func TestRelayFindingHoldsTheEscrow(t *testing.T) {
	l := NewLedger("transfer", "channel-0", "channel-5")
	now := time.Now()
	l.OnA(1, now, []Event{ev("send_packet", "1", "packet_data_hex", "7b22616d6f756e74223a223130222c2264656e6f6d223a227374616b65227d")}) // {"amount":"10","denom":"stake"}
	for _, c := range []struct {
		escrowed, minted uint64
		off              float64
		says             string
	}{{10, 0, 0, "conserved: 10 stake escrowed on A = 0 vouchers minted on B + 10 in 1 packets not yet settled"},
		{10, 10, 10, "not conserved: escrowed 10 on A, 10 vouchers minted on B and 10 in packets not yet settled (+10)"}} {
		f := Relay{Relayer: "hermes 1.10.5", Ledger: l, Denom: "stake", Escrowed: c.escrowed, Minted: c.minted, Down: "signal: killed", Last: "last words"}.Finding()
		x, ok := f.Figure("escrow not matched by vouchers")
		if !ok || x.Value != c.off || x.Must == nil || x.Must.Holds(x.Value) != (c.off == 0) {
			t.Errorf("escrowed %d, minted %d: figure %+v", c.escrowed, c.minted, x)
		}
		var text []string
		for _, s := range f.Summary {
			text = append(text, s.Text)
		}
		all := strings.Join(text, "\n")
		if !strings.Contains(all, c.says) || !strings.Contains(all, "it went down during the run: signal: killed; its last line: last words") {
			t.Errorf("summary:\n%s", all)
		}
		if x, _ := f.Figure("packets in flight at the end"); x.Value != 1 || x.Must.Holds(1) {
			t.Errorf("in flight: %+v", x)
		}
	}
}

// The transfers back have a finding of their own: figures named "back
// ...", escrow on B against vouchers on A, refusals by A, and the
// counterparty's load with its wallets' check, which fails the run when
// they are off.
func TestBackFinding(t *testing.T) {
	l := NewLedger("transfer", "channel-0", "channel-5")
	l.From, l.To = "B", "A"
	now := time.Now()
	l.OnA(1, now, []Event{ev("send_packet", "1", "packet_data_hex", "7b22616d6f756e74223a223130222c2264656e6f6d223a227374616b65227d")})
	l.OnB(2, now.Add(time.Second), []Event{ev("recv_packet", "1"), ev("write_acknowledgement", "1", "packet_ack_hex", ack(`{"error":"refused"}`))})
	for _, off := range []bool{false, true} {
		f := Relay{Ledger: l, Denom: "stake", Escrowed: 10, Back: true, Load: "the counterparty's: 1 txs sent", Off: off}.Finding()
		if f.Source != SourceBack {
			t.Errorf("source %q", f.Source)
		}
		x, ok := f.Figure("back wallets not as their txs say")
		if !ok || x.Must == nil || x.Must.Holds(x.Value) == off {
			t.Errorf("off %v: %+v", off, x)
		}
		if _, ok := f.Figure("back relay to A p50"); !ok {
			t.Errorf("no back relay to A p50 in %+v", f.Figures)
		}
		var text []string
		for _, s := range f.Summary {
			text = append(text, s.Text)
		}
		all := strings.Join(text, "\n")
		for _, want := range []string{"10 stake escrowed on B = 0 vouchers minted on A + 10 in 1 packets not yet settled", "acknowledged with an error by A: \"refused\"", "the counterparty's: 1 txs sent"} {
			if !strings.Contains(all, want) {
				t.Errorf("summary lacks %q:\n%s", want, all)
			}
		}
	}
}
