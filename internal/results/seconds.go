package results

import (
	"fmt"
	"strconv"
	"time"

	"github.com/chainperf/chainperf/internal/load"
)

// SecondsHeader names the columns of Seconds: the ledger's counts by the
// second a tx was due in (committed: by the second its commit was seen),
// the second's wall-clock start, the latency of the txs committed in it,
// and the blocks whose header time falls in it with the run's txs they
// held (committed per second from blocks: a constant load draws a flat
// line there, where a window of whole blocks does not).
var SecondsHeader = []string{"phase", "second", "sent", "accepted", "rejected", "send_error", "committed",
	"time", "failed", "latency_p50_ms", "latency_p99_ms", "blocks", "committed_in_blocks"}

// Seconds is every phase's seconds, a row each, as SecondsHeader says:
// the per-second CSV of `runs export --format csv`.
func (r *Run) Seconds() [][]string {
	var rows [][]string
	for i, p := range r.Phases {
		blocks, ours := map[int]int{}, map[int]int{}
		secs := len(p.Ledger.PerSecond)
		for _, b := range p.Blocks {
			// A header's time is its commit's median vote time, a block
			// interval or a halt behind the wall: the phase's first
			// blocks can read before its start; they count in second 0.
			sec := max(0, int(b.Time.Sub(p.Start)/time.Second))
			blocks[sec]++
			ours[sec] += b.Ours - b.OursFailed
			secs = max(secs, sec+1) // a drain's blocks after the last second due
		}
		for sec := range secs {
			var v load.Second
			if sec < len(p.Ledger.PerSecond) {
				v = p.Ledger.PerSecond[sec]
			}
			rows = append(rows, []string{strconv.Itoa(i), strconv.Itoa(sec), fmt.Sprint(v.Sent), fmt.Sprint(v.Accepted),
				fmt.Sprint(v.Rejected), fmt.Sprint(v.SendError), fmt.Sprint(v.Committed),
				p.Start.Add(time.Duration(sec) * time.Second).UTC().Format("2006-01-02T15:04:05.000Z"),
				fmt.Sprint(v.Failed), latencyCell(v.LatencyP50, v.Committed), latencyCell(v.LatencyP99, v.Committed),
				strconv.Itoa(blocks[sec]), strconv.Itoa(ours[sec])})
		}
	}
	return rows
}

// latencyCell is a latency in ms, empty for a second that committed nothing (no
// latency, not 0).
func latencyCell(v float64, committed int64) string {
	if committed == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
