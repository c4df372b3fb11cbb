package ibc

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// stepLedger is a ledger of packets sent each second from t0 for the
// given seconds, each received on B relay(second) later (negative: never).
func stepLedger(t0 time.Time, seconds int, relay func(s int) time.Duration) *Ledger {
	l := NewLedger("transfer", "channel-0", "channel-5")
	for s := range seconds {
		seq := fmt.Sprint(s + 1)
		at := t0.Add(time.Duration(s) * time.Second)
		l.OnA(int64(10+s), at, []Event{ev("send_packet", seq)})
		if d := relay(s); d >= 0 {
			l.OnB(int64(100+s), at.Add(d), []Event{ev("recv_packet", seq)})
		}
	}
	return l
}

// The relayer's pace: steps hold while every packet is received and the
// relay p99 stays under the blowup of the lightest step's; the first that
// does not names why, and the steps above it do not hold either.
func TestPaceOfSteps(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	steps := []Step{ // given out of order: by their start they are 2, 5, 10, 20 tx/s
		{Name: "sweep c=1 r=10", Offered: 10, From: t0.Add(20 * time.Second)},
		{Name: "sweep c=1 r=2", Offered: 2, From: t0},
		{Name: "sweep c=1 r=20", Offered: 20, From: t0.Add(30 * time.Second)},
		{Name: "sweep c=1 r=5", Offered: 5, From: t0.Add(10 * time.Second)},
	}
	for _, c := range []struct {
		name    string
		relay   func(s int) time.Duration
		held    float64
		because string
	}{
		{"kept pace with all", func(int) time.Duration { return 1200 * time.Millisecond }, 20, "kept pace with every step, up to 20 tx/s"},
		{"slow from 10 tx/s", func(s int) time.Duration {
			if s >= 20 {
				return 8 * time.Second
			}
			return time.Second
		}, 5, "sweep c=1 r=10 (10 tx/s), relay to B p99 8s, over 3.0x the lightest step's 1s"},
		{"left packets at 5 tx/s", func(s int) time.Duration {
			if s == 15 {
				return -1
			}
			return time.Second
		}, 2, "sweep c=1 r=5 (5 tx/s), 1 of its 10 packets not received on B"},
		{"none held", func(int) time.Duration { return -1 }, 0, "sweep c=1 r=2 (2 tx/s), 10 of its 10 packets not received"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := PaceOf(stepLedger(t0, 40, c.relay), steps, 3)
			if p.Held != c.held || !strings.Contains(p.Evidence, c.because) {
				t.Errorf("held %g (%s); want %g, %q", p.Held, p.Evidence, c.held, c.because)
			}
			if len(p.Steps) != 4 || p.Steps[0].Offered != 2 || p.Steps[3].Offered != 20 {
				t.Fatalf("steps %+v; want 4 by offered rate", p.Steps)
			}
			for _, s := range p.Steps {
				if s.Sent != 10 || s.Held != (s.Offered <= c.held) {
					t.Errorf("%s: %d sent, held %v; want 10 sent, held %v", s.Name, s.Sent, s.Held, s.Offered <= c.held)
				}
			}
		})
	}
	// A packet committed before the first step (the warm-up's) is no step's.
	l := stepLedger(t0.Add(-5*time.Second), 45, func(int) time.Duration { return time.Second })
	if p := PaceOf(l, steps, 3); p.Steps[0].Sent != 10 {
		t.Errorf("the first step has %d packets; want 10 (the 5 before it are none's)", p.Steps[0].Sent)
	}
	if p := PaceOf(NewLedger("transfer", "channel-0", "channel-5"), steps, 3); p.Held != 0 || len(p.Steps) != 0 {
		t.Errorf("no packets: %+v", p)
	}
}

// A run whose load rose by steps reports the rate the relayer kept pace
// with as a figure (higher is better) and a line a step.
func TestPaceInTheFinding(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	l := stepLedger(t0, 20, func(s int) time.Duration { return time.Duration(1+s/10*9) * time.Second })
	pace := PaceOf(l, []Step{{Name: "sweep c=1 r=2", Offered: 2, From: t0}, {Name: "sweep c=1 r=8", Offered: 8, From: t0.Add(10 * time.Second)}}, 3)
	f := Relay{Ledger: l, Denom: "stake", Pace: &pace}.Finding()
	x, ok := f.Figure("transfers the relayer kept pace with")
	if !ok || x.Value != 2 || x.Unit != "tx/s" {
		t.Errorf("figure %+v, %v; want 2 tx/s", x, ok)
	}
	var text []string
	for _, s := range f.Summary {
		text = append(text, s.Label+": "+s.Text)
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"pace: first step the relayer did not keep pace with: sweep c=1 r=8 (8 tx/s), relay to B p99 10s",
		"sweep c=1 r=2: 2 tx/s: 10 sent, 10 received on B, relay to B p50 1s p99 1s\n",
		"sweep c=1 r=8: 8 tx/s: 10 sent, 10 received on B, relay to B p50 10s p99 10s (not kept pace with)"} {
		if !strings.Contains(all, want) {
			t.Errorf("summary lacks %q:\n%s", want, all)
		}
	}
	one := Relay{Ledger: l, Denom: "stake"}.Finding()
	if _, ok := one.Figure("transfers the relayer kept pace with"); ok {
		t.Error("a load of one rate has no pace figure")
	}
}
