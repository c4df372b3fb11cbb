package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/observe"
)

// BenchmarkSamples records rounds as the default job's watcher makes
// them: 5 nodes of 68 series each, a round a second (340 samples), into
// SQLite, after a minute of rounds already stored. Per sample.
func BenchmarkSamples(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "runs.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Unix(1_800_000_000, 0).UTC()
	r := sampleRun("bench", start)
	if err := s.Begin(ctx, r, Owner{}); err != nil {
		b.Fatal(err)
	}
	round := func(at time.Time) []observe.Sample {
		var out []observe.Sample
		for n := range 5 {
			for i := range 68 {
				out = append(out, observe.Sample{At: at, Node: fmt.Sprintf("validator%d", n),
					Series: fmt.Sprintf(`cometbft_p2p_message_send_bytes_total{message_type="consensus_%03d"}`, i), Value: float64(i)})
			}
		}
		return out
	}
	for i := range 60 {
		if err := s.Samples(ctx, r.ID, round(start.Add(time.Duration(i)*time.Second))); err != nil {
			b.Fatal(err)
		}
	}
	rounds := make([][]observe.Sample, b.N)
	for i := range rounds {
		rounds[i] = round(start.Add(time.Duration(60+i) * time.Second))
	}
	b.ResetTimer()
	for i := range b.N {
		if err := s.Samples(ctx, r.ID, rounds[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*340), "us/sample")
}
