package results

import (
	"github.com/chainperf/chainperf/internal/scenario"
	"math"
	"sort"
)

// A Spread is the median of a figure over repeats, with its range and
// coefficient of variation (sample standard deviation / mean).
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	CV     float64 `json:"cv"`
}

// SpreadOf returns the spread of xs (zero for none).
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	sp := Spread{Min: s[0], Max: s[len(s)-1], Median: s[len(s)/2]}
	if len(s)%2 == 0 {
		sp.Median = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	var mean, ss float64
	for _, x := range s {
		mean += x
	}
	mean /= float64(len(s))
	for _, x := range s {
		ss += (x - mean) * (x - mean)
	}
	if len(s) > 1 && mean != 0 {
		sp.CV = math.Sqrt(ss/float64(len(s)-1)) / math.Abs(mean)
	}
	return sp
}

// Steady is the summary of a steady experiment's repeats.
type Steady struct {
	Repeats      int    `json:"repeats"`
	CommittedTPS Spread `json:"committed_tps"`
	LatencyP50   Spread `json:"latency_p50_ms"`
	LatencyP99   Spread `json:"latency_p99_ms"`
	// RejectedShare's median is what a criterion on it judges.
	RejectedShare Spread `json:"rejected_share"`
}

// SteadyOf summarizes the steady phases of a run; nil when it has fewer
// than two.
func SteadyOf(phases []*Phase) *Steady {
	var tps, p50, p99, rej []float64
	for _, p := range phases {
		if p.KindOf() != scenario.KindSteady {
			continue
		}
		tps = append(tps, p.Figures.CommittedTPS)
		p50 = append(p50, p.Figures.LatencyP50)
		p99 = append(p99, p.Figures.LatencyP99)
		rej = append(rej, p.Figures.RejectedShare)
	}
	if len(tps) < 2 {
		return nil
	}
	return &Steady{Repeats: len(tps), CommittedTPS: SpreadOf(tps), LatencyP50: SpreadOf(p50), LatencyP99: SpreadOf(p99), RejectedShare: SpreadOf(rej)}
}
