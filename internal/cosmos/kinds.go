package cosmos

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// KindCounts count one kind of message (or tx) as a run goes: what was
// sent, accepted, committed or failed in its block, the gas and the
// latency of the committed ones. Not safe for concurrent use.
type KindCounts struct {
	sent, accepted, committed, failed int64
	gas                               float64
	lat                               *hdrhistogram.Histogram
}

// NewKindCounts returns empty counts.
func NewKindCounts() KindCounts { return KindCounts{lat: hdrhistogram.New(1, 3_600_000_000, 3)} }

// Sent counts one send and whether the node took it.
func (k *KindCounts) Sent(accepted bool) {
	k.sent++
	if accepted {
		k.accepted++
	}
}

// Committed counts one seen in a block: ok (it did what it asked) with
// its latency, else failed; gas is its share of the tx's gas.
func (k *KindCounts) Committed(ok bool, gas float64, latency time.Duration) {
	if ok {
		k.committed++
		_ = k.lat.RecordValue(min(max(latency.Microseconds(), 1), k.lat.HighestTrackableValue()))
	} else {
		k.failed++
	}
	k.gas += gas
}

// Stats reports the counts as msg's, with weight, committed per second
// over loadSecs.
func (k *KindCounts) Stats(msg string, weight, loadSecs float64) KindStats {
	ks := KindStats{Msg: msg, Weight: weight, Sent: k.sent, Accepted: k.accepted, Committed: k.committed, Failed: k.failed}
	if n := k.committed + k.failed; n > 0 {
		ks.GasPerMsg = k.gas / float64(n)
	}
	if loadSecs > 0 {
		ks.CommittedPerSec = float64(k.committed) / loadSecs
	}
	if k.committed > 0 {
		ms := func(q float64) float64 { return float64(k.lat.ValueAtQuantile(q)) / 1000 }
		ks.LatencyP50, ks.LatencyP99, ks.LatencyMax = ms(50), ms(99), float64(k.lat.Max())/1000
	}
	return ks
}
