package ibc

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"
)

// ev is an event of port transfer's packet seq from channel-0 (A) to
// channel-5 (B), with more attributes.
func ev(typ string, seq string, more ...string) Event {
	e := Event{Type: typ}
	kv := append([]string{"packet_sequence", seq, "packet_src_port", "transfer", "packet_src_channel", "channel-0",
		"packet_dst_port", "transfer", "packet_dst_channel", "channel-5"}, more...)
	for i := 0; i+1 < len(kv); i += 2 {
		e.Attributes = append(e.Attributes, struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		}{kv[i], kv[i+1]})
	}
	return e
}

func ack(s string) string { return hex.EncodeToString([]byte(s)) }

// Every packet has one fate from what the two chains' blocks said, in
// whatever order the blocks were read; latencies are from A's commit.
func TestLedgerFates(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	l := NewLedger("transfer", "channel-0", "channel-5")
	// B's blocks first: the ledger takes them in any order.
	l.OnB(20, at(3), []Event{ev("recv_packet", "1"), ev("write_acknowledgement", "1", "packet_ack_hex", ack(`{"result":"AQ=="}`)),
		ev("recv_packet", "2"), ev("write_acknowledgement", "2", "packet_ack_hex", ack(`{"error":"ABCI code: 5: error handling packet: see events for details"}`)),
		ev("recv_packet", "4")})
	data := "packet_data_hex"
	sent := func(seq, amount string) Event {
		return ev("send_packet", seq, data, hex.EncodeToString([]byte(`{"amount":"`+amount+`","denom":"stake","receiver":"wasm1r","sender":"wasm1s"}`)))
	}
	l.OnA(10, at(0), []Event{sent("1", "10"), sent("2", "20"), sent("3", "30"), sent("4", "40"), sent("5", "50"),
		{Type: "transfer"}, ev("send_packet", "x")})
	l.OnA(11, at(5), []Event{ev("acknowledge_packet", "1"), ev("acknowledge_packet", "2"), ev("timeout_packet", "3")})
	// Another channel's packet and the other direction's are not this ledger's.
	other := ev("send_packet", "9")
	other.Attributes[2].Value = "channel-7"
	l.OnA(12, at(6), []Event{other})
	l.OnB(21, at(7), []Event{ev("recv_packet", "6")})        // never sent on A
	l.OnA(12, at(6), []Event{ev("acknowledge_packet", "7")}) // an acknowledgement of a packet never sent

	want := map[Fate]int{Acknowledged: 1, AckError: 1, TimedOut: 1, AckInFlight: 1, InFlight: 1, Unsent: 2}
	got := l.Count()
	for f, n := range want {
		if got[f] != n {
			t.Errorf("%s: %d, want %d (all: %v)", f, got[f], n, got)
		}
	}
	if len(l.Packets()) != 7 {
		t.Errorf("%d packets, want 7", len(l.Packets()))
	}
	recv, acked := l.Latencies()
	if len(recv) != 3 || recv[0] != 3*time.Second || len(acked) != 1 || acked[0] != 5*time.Second {
		t.Errorf("latencies: to B %v, acknowledged %v", recv, acked)
	}
	problems := strings.Join(l.Problems(), "; ")
	for _, w := range []string{"packet 2 acknowledged with an error by B: \"ABCI code: 5", "packet 6 received on B (height 21) or acknowledged on A (height 0), never sent on A",
		"packet 7 received on B (height 0) or acknowledged on A (height 12), never sent on A"} {
		if !strings.Contains(problems, w) {
			t.Errorf("problems %q: no %q", problems, w)
		}
	}
	if n, amount := l.Unsettled("stake"); n != 1 || amount != 50 { // packet 5 (sent, not received); 2 was refunded, 3 timed out
		t.Errorf("unsettled %d carrying %d, want 1 carrying 50", n, amount)
	}
	// Packet 5, sent at 0 s, is not on B: not caught up after 1 s; before
	// 0 s nothing was sent.
	if _, ok := l.CaughtUp(at(1)); ok {
		t.Error("caught up with packet 5 in flight")
	}
	if d, ok := l.CaughtUp(at(0)); !ok || d != 0 {
		t.Errorf("before the first send: %v %v", d, ok)
	}
	if r := l.Refunds("stake"); len(r) != 1 || r["wasm1s"] != 50 { // 2 refused (20), 3 timed out (30)
		t.Errorf("refunds %v, want wasm1s 50", r)
	}
	// A's escrow holds 1, 4 and 5 (2 refunded, 3 timed out); B minted 1 and 4.
	if err := Conserved(100, 50, 50); err != nil {
		t.Error(err)
	}
}

// A ledger of packets that all came back well has no problems.
func TestLedgerAllAcknowledged(t *testing.T) {
	l := NewLedger("transfer", "channel-0", "channel-5")
	now := time.Now()
	for _, s := range []string{"1", "2", "3"} {
		l.OnA(1, now, []Event{ev("send_packet", s)})
		l.OnB(1, now, []Event{ev("recv_packet", s), ev("write_acknowledgement", s, "packet_ack_hex", ack(`{"result":"AQ=="}`))})
		l.OnA(2, now, []Event{ev("acknowledge_packet", s)})
	}
	if n, _ := l.Unsettled(""); len(l.Problems()) != 0 || l.Count()[Acknowledged] != 3 || n != 0 {
		t.Errorf("problems %v, fates %v", l.Problems(), l.Count())
	}
}

// Problems name five packets and count the rest.
func TestProblemsAreBounded(t *testing.T) {
	l := NewLedger("transfer", "channel-0", "channel-5")
	for i := 1; i <= 8; i++ {
		s := fmt.Sprint(i)
		l.OnA(1, time.Now(), []Event{ev("send_packet", s), ev("acknowledge_packet", s)})
		l.OnB(1, time.Now(), []Event{ev("write_acknowledgement", s, "packet_ack_hex", ack(`{"error":"no"}`))})
	}
	p := l.Problems()
	if len(p) != 6 || p[5] != "3 more packets like these" || l.Count()[AckError] != 8 {
		t.Errorf("%q", p)
	}
}

// The escrow and voucher denom are ibc-go's (the voucher of channel-0's
// stake is the one the real relay test saw on B).
func TestEscrowAndVoucher(t *testing.T) {
	if got := VoucherDenom("transfer", "channel-0", "stake"); got != "ibc/C053D637CCA2A2BA030E2C5EE1B28A16F71CCB0E45E8BE52766DC1B241B77878" {
		t.Errorf("voucher %s", got)
	}
	// The Cosmos Hub's escrow of transfer/channel-0, a well-known account.
	if got, err := EscrowAccount("cosmos", "transfer", "channel-0"); err != nil || got != "cosmos1a53udazy8ayufvy0s434pfwjcedzqv34kvz9tw" {
		t.Errorf("escrow %s, %v", got, err)
	}
	if string(EscrowAddress("transfer", "channel-0")) == string(EscrowAddress("transfer", "channel-1")) {
		t.Error("one escrow for two channels")
	}
}

// Escrow is vouchers plus what unsettled packets carry; anything else
// (a voucher minted twice, an escrow that lost funds) fails, by how much.
func TestConserved(t *testing.T) {
	if err := Conserved(1234, 1234, 0); err != nil {
		t.Error(err)
	}
	if err := Conserved(1300, 1234, 66); err != nil {
		t.Errorf("in flight: %v", err)
	}
	if err := Conserved(1234, 1235, 0); err == nil || !strings.Contains(err.Error(), "not conserved: escrowed 1234 on A, 1235 vouchers minted on B and 0 in packets not yet settled (+1)") {
		t.Errorf("a voucher too many: %v", err)
	}
	if err := Conserved(1300, 1234, 0); err == nil || !strings.Contains(err.Error(), "(-66)") {
		t.Errorf("vouchers missing: %v", err)
	}
}

func FuzzAckError(f *testing.F) {
	f.Add(ack(`{"result":"AQ=="}`))
	f.Add(ack(`{"error":"x"}`))
	f.Add("zz")
	f.Fuzz(func(t *testing.T, s string) {
		if e := ackError(s); len(e) > 400 {
			t.Fatalf("%d bytes of error", len(e))
		}
	})
}
