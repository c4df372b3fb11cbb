package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/chainperf/chainperf/internal/load"
)

// ninesTicks label the curve's x axis 0 %, 90 %, 99 %, ... and max.
type ninesTicks struct{ last float64 }

func (n ninesTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range load.NinesTicks(n.last) {
		out = append(out, plot.Tick{Value: t.At, Label: t.Label})
	}
	return out
}

// wholeTicks marks whole numbers (heights, counts) a round step apart,
// at most about eight labelled: gonum's default ticks put 7.50 between
// heights.
type wholeTicks struct{}

func (wholeTicks) Ticks(min, max float64) []plot.Tick {
	step := 0.0
	for decade := 1.0; step == 0; decade *= 10 { // 1, 2, 5, 10, 20, 50, ...
		for _, m := range []float64{1, 2, 5} {
			if (max-min)/(decade*m) <= 8 {
				step = decade * m
				break
			}
		}
	}
	var out []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max; v += step {
		out = append(out, plot.Tick{Value: v, Label: fmt.Sprintf("%.0f", v)})
	}
	return out
}

// plainTicks are gonum's ticks labelled in the step's own precision with
// thousands grouped: "500" tx/s, "175,000" bytes, "0.5" s (gonum wrote
// "500.00" and "175000.00").
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	var labelled []float64
	for _, t := range ticks {
		if t.Label != "" {
			labelled = append(labelled, t.Value)
		}
	}
	step := hi - lo
	if len(labelled) > 1 {
		step = labelled[1] - labelled[0]
	}
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = tickLabel(t.Value, step)
		}
	}
	return ticks
}

// logTicks mark 1..9 of each decade of a log axis and label 1, 2 and 5
// (gonum's labelled only the powers of ten: latencies of 400-4,000 ms
// had one label).
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		d := math.Pow(10, e)
		for m := 1.0; m <= 9; m++ {
			v := m * d
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = tickLabel(v, d)
			}
			out = append(out, t)
		}
	}
	return out
}

// tickLabel writes v with as many decimals as step needs, thousands
// grouped by commas.
func tickLabel(v, step float64) string {
	dec := 0 // the fewest that write step whole: 0.25 needs 2
	for x := step; dec < 6 && x > 0 && math.Abs(x-math.Round(x)) > 1e-6*math.Max(1, x); x *= 10 {
		dec++
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', dec, 64)
	if math.Abs(v) < 0.5*math.Pow(10, -float64(dec)) {
		return strconv.FormatFloat(0, 'f', dec, 64) // no "-0"
	}
	whole, frac, _ := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	if frac != "" {
		whole += "." + frac
	}
	if v < 0 {
		whole = "-" + whole
	}
	return whole
}
