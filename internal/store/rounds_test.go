package store

import (
	"math"
	"strings"
	"testing"
)

// What decodeRound takes is exactly what encodeRound writes: any other
// spelling of a series or a value, a line without its end or its value,
// is refused and the line named.
func TestDecodeRoundRefuses(t *testing.T) {
	odd := []sampleValue{{"a", 1}, {"b{l=\"x\\\"y\\nz\xff\x00\"}", math.Inf(-1)}, {"", math.NaN()}, {"c", math.Copysign(0, -1)}, {"d", 1e300}}
	text := string(encodeRound(nil, odd))
	var got []sampleValue
	if err := decodeRound(text, func(s string, v float64) { got = append(got, sampleValue{s, v}) }); err != nil || len(got) != len(odd) {
		t.Fatalf("decodeRound(%q) = %v, %v", text, got, err)
	}
	for i, x := range got {
		w := odd[i]
		if x.series != w.series || math.Float64bits(x.value) != math.Float64bits(w.value) && !(math.IsNaN(x.value) && math.IsNaN(w.value)) {
			t.Errorf("sample %d read back %+v; want %+v", i, x, w)
		}
	}
	for in, want := range map[string]string{
		`"a" 1`:                   "line 1: no end of line",
		"\"a\" 1\n\"b\"\n":        "line 2: want a quoted series",
		"`a` 1\n":                 "line 1: want a quoted series",
		"a 1\n":                   "line 1: want a quoted series",
		"\"a\"  1\n":              "line 1: value",
		"\"a\" 1.0\n":             "line 1: not as chainperf writes",
		"\"a\" +Inf\n\"b\" inf\n": "line 2: not as chainperf writes",
		"\"\\u0061\" 1\n":         "line 1: not as chainperf writes",
		"\"a\" 0x1p4\n":           "line 1: not as chainperf writes",
		"\"a\" 1e999\n":           "line 1: value",
		"\"a\" 1\r\n":             "line 1: value",
		"\"a\" 1\n\n":             "line 2: want a quoted series",
	} {
		err := decodeRound(in, func(string, float64) {})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("decodeRound(%q) = %v; want %q", in, err, want)
		}
	}
}

// Whatever decodeRound reads, encodeRound writes back byte for byte: one
// spelling of each round.
func FuzzDecodeRound(f *testing.F) {
	f.Add(string(encodeRound(nil, []sampleValue{{"cometbft_consensus_height", 1204}, {`x{l="a\"b"}`, -0.5}})))
	f.Add("\"a\" NaN\n\"b\" -Inf\n")
	f.Add("\"a\" 1e+21\n")
	f.Add("\"\\xff\" 5e-324\n")
	f.Fuzz(func(t *testing.T, text string) {
		var got []sampleValue
		if err := decodeRound(text, func(s string, v float64) { got = append(got, sampleValue{s, v}) }); err != nil {
			return
		}
		if back := string(encodeRound(nil, got)); back != text {
			t.Fatalf("decodeRound(%q) read %+v, which writes back as %q", text, got, back)
		}
	})
}
