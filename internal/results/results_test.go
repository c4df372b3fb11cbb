package results

import (
	"testing"
	"time"
)

// A run whose end was never written (a killed harness) has no length, not
// the "-2562047h47m16s" of a zero time minus its start.
func TestLasted(t *testing.T) {
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		end  time.Time
		want string
		ok   bool
	}{
		{start.Add(83*time.Second + 400*time.Millisecond), "1m23s", true},
		{time.Time{}, "no end recorded", false},
		{start.Add(-time.Minute), "no end recorded", false},
	} {
		got, ok := Record{Start: start, End: tc.end}.Lasted()
		if got != tc.want || ok != tc.ok {
			t.Errorf("end %v: Lasted() = %q, %v; want %q, %v", tc.end, got, ok, tc.want, tc.ok)
		}
	}
}
