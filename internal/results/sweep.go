package results

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/load"
)

// A Cell is one load of a sweep grid and what the chain made of it.
type Cell struct {
	Connections int     `json:"connections"`
	Rate        float64 `json:"rate"`    // tx/s per connection
	Offered     float64 `json:"offered"` // c*r tx/s
	Expected    int64   `json:"expected"`
	Committed   int64   `json:"committed"`
	Share       float64 `json:"share"` // committed / expected
	P99         float64 `json:"latency_p99_ms"`
	Rejected    int64   `json:"rejected"`
	Saturated   bool    `json:"saturated"` // past the saturation point
}

// A Sweep is the table of a sweep run and its saturation point.
type Sweep struct {
	Cells []Cell `json:"cells"`
	// Saturation is the largest offered load (tx/s) whose committed share
	// held and whose latency had not blown up; 0 when not even the
	// lightest cell held.
	Saturation float64 `json:"saturation_tps"`
	// At is the cell at the saturation point (the one of the largest
	// share among cells of that load); nil when no cell held.
	At       *Cell  `json:"at,omitempty"`
	Evidence string `json:"evidence"`
	// Warmup is the start of every cell not expected to land (the QA's
	// first second): expected = c*r*(T-warmup). nil in runs stored before
	// it was recorded.
	Warmup *time.Duration `json:"warmup_ns,omitempty"`
}

// CellOf reads a grid cell from a phase name, "sweep c=2 r=400" or
// "qa c=2 r=400".
func CellOf(name string) (connections int, rate float64, ok bool) {
	kind, rest, _ := strings.Cut(name, " ")
	if kind != "sweep" && kind != "qa" {
		return 0, 0, false
	}
	_, err := fmt.Sscanf(rest, "c=%d r=%g", &connections, &rate)
	return connections, rate, err == nil && fmt.Sprintf("c=%d r=%g", connections, rate) == rest
}

// CellName is the phase name of a grid cell.
func CellName(kind string, connections int, rate float64) string {
	return fmt.Sprintf("%s c=%d r=%g", kind, connections, rate)
}

// Saturation builds a sweep's table from its phases (one a cell, in grid
// order) and finds the saturation point: the largest offered load whose
// committed share is at least minShare and whose p99 latency is below
// blowup times the lightest cell's, with every lighter load holding too.
func Saturation(phases []*Phase, minShare, blowup float64, warmup time.Duration) *Sweep {
	sw := &Sweep{Warmup: &warmup}
	for _, p := range phases {
		var c Cell
		var ok bool
		if c.Connections, c.Rate, ok = CellOf(p.Name); !ok {
			continue
		}
		c.Offered = float64(c.Connections) * c.Rate
		// CometBFT QA: the first second of a cell is not expected to land.
		c.Expected = int64(math.Round(c.Offered * (p.Length - warmup).Seconds()))
		c.Committed = p.Ledger.Fates[load.FateCommitted]
		c.Rejected = p.Ledger.Fates[load.FateRejected]
		c.P99 = p.Ledger.Latency.P99
		if c.Expected > 0 {
			c.Share = float64(c.Committed) / float64(c.Expected)
		}
		sw.Cells = append(sw.Cells, c)
	}
	if len(sw.Cells) == 0 {
		return sw
	}
	order := make([]int, len(sw.Cells))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sw.Cells[order[a]].Offered < sw.Cells[order[b]].Offered })
	base := sw.Cells[order[0]].P99
	broken := false
	for _, i := range order {
		c := &sw.Cells[i]
		holds := c.Share >= minShare && (blowup <= 0 || base <= 0 || c.P99 < blowup*base)
		if !holds && !broken {
			broken = true
			why := fmt.Sprintf("committed %.1f %% of expected (need %.0f %%)", 100*c.Share, 100*minShare)
			if c.Share >= minShare {
				why = fmt.Sprintf("p99 latency %.0f ms, over %.1fx the lightest cell's %.0f ms", c.P99, blowup, base)
			}
			sw.Evidence = fmt.Sprintf("first load that did not hold: %d x %g = %.0f tx/s, %s", c.Connections, c.Rate, c.Offered, why)
		}
		if broken {
			c.Saturated = true
			continue
		}
		if c.Offered > sw.Saturation || sw.At == nil || c.Share > sw.At.Share {
			sw.At = c
		}
		sw.Saturation = c.Offered
	}
	if sw.At != nil {
		at := *sw.At
		sw.At = &at
	}
	if !broken {
		sw.Evidence = fmt.Sprintf("every cell held (committed >= %.0f %% of expected): saturation is above the heaviest load, %.0f tx/s", 100*minShare, sw.Saturation)
	} else if sw.Saturation > 0 {
		sw.Evidence = fmt.Sprintf("%.0f tx/s held; %s", sw.Saturation, sw.Evidence)
	}
	return sw
}

// ProcessedTable is a grid's table in the CometBFT QA report's format: a
// row per connection count c, a column per rate r, each cell the txs
// processed (committed) out of the expected c*r*(T-warmup); the
// saturation point's cell is marked "<- saturation", cells past it "(saturated)".
func (sw *Sweep) ProcessedTable() [][]string {
	var cs []int
	var rs []float64
	at := map[[2]float64]Cell{}
	for _, c := range sw.Cells {
		if !slices.Contains(cs, c.Connections) {
			cs = append(cs, c.Connections)
		}
		if !slices.Contains(rs, c.Rate) {
			rs = append(rs, c.Rate)
		}
		at[[2]float64{float64(c.Connections), c.Rate}] = c
	}
	slices.Sort(cs)
	slices.Sort(rs)
	head := []string{"c \\ r"}
	for _, r := range rs {
		head = append(head, fmt.Sprintf("r=%g", r))
	}
	rows := [][]string{head}
	for _, c := range cs {
		row := []string{fmt.Sprintf("c=%d", c)}
		for _, r := range rs {
			cell, ok := at[[2]float64{float64(c), r}]
			if !ok {
				row = append(row, "-")
				continue
			}
			text := fmt.Sprintf("%d / %d", cell.Committed, cell.Expected)
			switch {
			case sw.At != nil && sw.At.Connections == c && sw.At.Rate == r:
				text += " <- saturation"
			case cell.Saturated:
				text += " (saturated)"
			}
			row = append(row, text)
		}
		rows = append(rows, row)
	}
	return rows
}

// ProcessedNote says what the table's cells are and where it saturated.
func (sw *Sweep) ProcessedNote() string {
	note := "Each cell: txs processed / expected c*r*(T-warmup). "
	if sw.Warmup != nil {
		note = fmt.Sprintf("Each cell: txs processed / expected c*r*(T-%s). ", *sw.Warmup)
	}
	if sw.At != nil {
		return note + fmt.Sprintf("Saturation point: c=%d x r=%g = %.0f tx/s (processed %.1f %% of expected). %s.",
			sw.At.Connections, sw.At.Rate, sw.At.Offered, 100*sw.At.Share, sw.Evidence)
	}
	return note + sw.Evidence + "."
}
