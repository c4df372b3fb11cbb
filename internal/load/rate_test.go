package load

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestDue(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name string
		m    RateModel
		at   time.Duration
		want float64
	}{
		// Constant: R*t, flat after the end.
		{"constant mid", Constant{R: 100, D: 10 * s}, 2500 * time.Millisecond, 250},
		{"constant after end", Constant{R: 100, D: 10 * s}, 20 * s, 1000},
		{"constant before start", Constant{R: 100, D: 10 * s}, -s, 0},
		// Connections: c*r*t, the CometBFT QA expectation.
		{"connections", Connections{C: 4, R: 200, D: 90 * s}, 89 * s, 4 * 200 * 89},
		// Ramp 0 -> 100 over 10 s: t²*10/2 = 125 at 5 s, 500 at the end.
		{"ramp half", Ramp{From: 0, To: 100, D: 10 * s}, 5 * s, 125},
		{"ramp end", Ramp{From: 0, To: 100, D: 10 * s}, 10 * s, 500},
		{"ramp down", Ramp{From: 100, To: 0, D: 10 * s}, 10 * s, 500},
		// Steps add up stage by stage.
		{"steps second stage", Steps{{R: 10, D: 2 * s}, {R: 100, D: 2 * s}}, 3 * s, 120},
		{"steps end", Steps{{R: 10, D: 2 * s}, {R: 100, D: 2 * s}}, 9 * s, 220},
	} {
		if got := tc.m.Due(tc.at); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %s.Due(%s) = %g; want %g", tc.name, tc.m, tc.at, got, tc.want)
		}
	}
}

func TestRate(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		m    RateModel
		at   time.Duration
		want float64
	}{
		{Constant{R: 100, D: 10 * s}, 9 * s, 100},
		{Constant{R: 100, D: 10 * s}, 10 * s, 0},
		{Ramp{From: 100, To: 300, D: 10 * s}, 5 * s, 200},
		{Steps{{R: 10, D: 2 * s}, {R: 100, D: 2 * s}}, 2 * s, 100},
		{Connections{C: 2, R: 400, D: s}, 0, 800},
	} {
		if got := tc.m.Rate(tc.at); got != tc.want {
			t.Errorf("%s.Rate(%s) = %g; want %g", tc.m, tc.at, got, tc.want)
		}
	}
}

func TestIntendedTimeInvertsDue(t *testing.T) {
	s := time.Second
	for _, m := range []RateModel{
		Constant{R: 1000, D: 10 * s},
		Connections{C: 2, R: 300, D: 5 * s},
		Ramp{From: 10, To: 1000, D: 10 * s},
		Ramp{From: 1000, To: 0, D: 10 * s},
		Steps{{R: 50, D: 2 * s}, {R: 0, D: s}, {R: 500, D: 2 * s}},
	} {
		total := int(math.Ceil(m.Due(m.Length())))
		var prev time.Duration
		count := 0
		for n := 0; ; n++ {
			at, ok := IntendedTime(m, float64(n), prev)
			if !ok {
				break
			}
			if at < prev {
				t.Fatalf("%s: tx %d due at %s, before tx %d at %s", m, n, at, n-1, prev)
			}
			// Due at the intended time is n (within the 1µs search step).
			if d := m.Due(at); d < float64(n)-1e-3 || d > float64(n)+m.Rate(at)*2e-6+1e-9 {
				t.Fatalf("%s: Due(IntendedTime(%d) = %s) = %g; want %d", m, n, at, d, n)
			}
			prev = at
			count++
		}
		if count != total {
			t.Errorf("%s: %d intended times; want %d (ceil of Due at the end)", m, count, total)
		}
	}
}

func TestModelStrings(t *testing.T) {
	for _, tc := range []struct {
		m    RateModel
		want string
	}{
		{Constant{R: 500, D: 30 * time.Second}, "constant 500 tx/s for 30s"},
		{Connections{C: 2, R: 400, D: 90 * time.Second}, "2 connections x 400 tx/s = 800 tx/s for 1m30s"},
		{Max{D: time.Minute}, "max (closed loop) for 1m0s"},
	} {
		if got := tc.m.String(); got != tc.want {
			t.Errorf("String() = %q; want %q", got, tc.want)
		}
	}
}

// Bursts sends, at the start of each period, the txs its model makes due
// during it: 10 tx/s in bursts every 500 ms is 5 txs at 0, 5 at 500 ms;
// every tx's intended time is its burst's; the last burst holds what is
// left of the model; the total is the model's.
func TestBursts(t *testing.T) {
	b := Bursts{M: Constant{R: 10, D: 1200 * time.Millisecond}, Every: 500 * time.Millisecond}
	var got []time.Duration
	var prev time.Duration
	for n := 0; ; n++ {
		at, ok := IntendedTime(b, float64(n), prev)
		if !ok {
			break
		}
		got, prev = append(got, at), at
	}
	want := []time.Duration{}
	for _, burst := range []struct {
		at time.Duration
		n  int
	}{{0, 5}, {500 * time.Millisecond, 5}, {time.Second, 2}} {
		for range burst.n {
			want = append(want, burst.at)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("intended times %v; want %v", got, want)
	}
	if b.Due(0) != 5 || b.Due(499*time.Millisecond) != 5 || b.Due(500*time.Millisecond) != 10 || b.Due(b.Length()) != 12 {
		t.Errorf("due %v %v %v %v; want 5 5 10 12", b.Due(0), b.Due(499*time.Millisecond), b.Due(500*time.Millisecond), b.Due(b.Length()))
	}
	// A ramp in bursts: the same total, times on the period.
	r := Bursts{M: Ramp{From: 0, To: 100, D: 2 * time.Second}, Every: 250 * time.Millisecond}
	prev = 0
	n := 0
	for ; ; n++ {
		at, ok := IntendedTime(r, float64(n), prev)
		if !ok {
			break
		}
		if at%r.Every != 0 || at < prev {
			t.Fatalf("tx %d at %s: not on a burst, or before the one before", n, at)
		}
		prev = at
	}
	if float64(n) != r.M.Due(r.M.Length()) {
		t.Errorf("%d txs; want the ramp's %v", n, r.M.Due(r.M.Length()))
	}
}
