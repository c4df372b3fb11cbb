package latency

import (
	"strings"
	"testing"
	"time"
)

func TestBuiltinTable(t *testing.T) {
	tb := Builtin()
	if len(tb.Zones) != 13 || tb.Zones[0] != "n-virginia" {
		t.Fatalf("zones %v", tb.Zones)
	}
	// From the shared reference table: London -> Frankfurt 8 ms.
	l, f := tb.Zone("london"), tb.Zone("frankfurt")
	if tb.Delay[l][f] != 8*time.Millisecond || tb.Delay[l][l] != 0 {
		t.Errorf("london->frankfurt %s, london->london %s", tb.Delay[l][f], tb.Delay[l][l])
	}
}

func TestParseCSVErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"From/to,a,b\na,0,5\n", "2 zones"},
		{"From/to,a,b\na,0,5\nb,5\n", "t.csv:3: 1 delays for 2 zones: the table must be square"},
		{"From/to,a,b\na,0,-5\nb,5,0\n", "a -> b: -5 ms: a delay is from 0 to 10000 ms"},
		{"From/to,a,b\na,0,x\nb,5,0\n", `t.csv:2: "x" is not a delay`},
		{"From/to,a,b\nb,0,5\na,5,0\n", `row "b" where the header has "a"`},
	} {
		if _, err := ParseCSV("t.csv", []byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseCSV(%q) = %v; want %q", tc.doc, err, tc.want)
		}
	}
	tb, err := ParseCSV("t.csv", []byte("From/to,a,b\na,0,5\nb,7,0\n"))
	if err != nil || tb.Delay[1][0] != 7*time.Millisecond {
		t.Fatalf("%+v, %v", tb, err)
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("From/to,a,b\na,0,5\nb,7,0\n"))
	f.Add([]byte("From/to,a\na,0\n"))
	f.Add([]byte("x\n"))
	// Found by fuzzing: more rows than zones panicked; NaN passed as a delay.
	f.Add([]byte("From/to,a\na,0\nb,0\n"))
	f.Add([]byte("From/to,a\na,NaN\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := ParseCSV("f.csv", data)
		if err != nil {
			return
		}
		for i, row := range tb.Delay {
			if len(row) != len(tb.Zones) {
				t.Fatalf("row %d has %d delays for %d zones", i, len(row), len(tb.Zones))
			}
			for _, d := range row {
				if d < 0 || d > 10*time.Second {
					t.Fatalf("delay %s out of range", d)
				}
			}
		}
	})
}
