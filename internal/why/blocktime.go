package why

import (
	"fmt"
	"math"
	"strings"

	"github.com/chainperf/chainperf/internal/finding"
)

// finer names the per-height timeline's figure that measures a part of
// the block time from each height's consensus events.
var finer = map[string]string{
	"":                           "height time",
	"waiting after commit":       "height time: after commit",
	"waiting for 2/3 prevotes":   "height time: 2/3 prevotes",
	"waiting for 2/3 precommits": "height time: 2/3 precommits",
	"executing and committing":   "height time: execution",
}

// coarseBlockTime marks the block time and its parts as the coarse
// measures they are: sums of the step-duration histograms over the
// window over the heights it held, where each edge of the window cuts a
// height's step in or out, so a mean over N heights is good to about one
// step in N (±7 % over 15 heights), which can hide a 5 % change; and as
// every run of a scenario starts on one schedule, the edges cut at about
// the same phase each run, so the error repeats instead of averaging out
// (a planted +65 ms after commit read -62 to -143 ms there in 9 of 10
// sessions, bench/gate-power.sh). The timeline measures each height
// (finer).
func coarseBlockTime(f *finding.Finding, heights float64) {
	if heights < 1 || math.IsInf(heights, 0) {
		return
	}
	for i, x := range f.Figures {
		part, ok := strings.CutPrefix(x.Name, BlockTime+": ")
		if x.Name == BlockTime {
			part, ok = "", true
		}
		if ok {
			f.Figures[i].Resolution, f.Figures[i].Precise = 1/heights, finer[part]
		}
	}
	f.Note += fmt.Sprintf(" Block time and its parts are the step-duration metrics over the window's %.0f heights: good to about ±%.0f %%; the timeline (height time) measures each height.", heights, 100/heights)
}

// blockParts is each part of a block's time, one value a validator that
// exports the consensus steps, and the fewest heights any of their
// windows held.
func blockParts(all []nodeInternals) (map[string][]float64, float64) {
	parts := map[string][]float64{}
	heights := math.Inf(1)
	for _, ni := range all {
		if ni.Role != "validator" || len(ni.Parts) == 0 {
			continue
		}
		for _, p := range partOrder {
			parts[p] = append(parts[p], ni.Parts[p])
		}
		heights = min(heights, ni.Heights)
	}
	return parts, heights
}
