package traces

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// BenchmarkFlood is a node that sends spans without end through the real
// receiver: every request 2,048 spans of traces whose root never comes,
// each with a message type never seen before and a long one. It reports
// the receiver's heap after it all (the bounds hold it, whatever the
// count) and the spans it takes a second. bench/traces-flood.sh runs it.
func BenchmarkFlood(b *testing.B) {
	r, err := Listen()
	if err != nil {
		b.Fatal(err)
	}
	long := strings.Repeat("x", 1000) // 2 MiB a request, under the bound
	var bodies [][]byte
	for i := range 16 {
		var spans []*tracepb.Span
		for j := range 2048 {
			tr := byte(i*7 + j)
			spans = append(spans, sp("msgHandler", tr, byte(j), 1, float64(j), 1, str("msg_type", fmt.Sprintf("/flood.Msg%d%s", i*2048+j, long))),
				sp("runTx", tr+1, byte(j), 2, float64(j), 2))
		}
		bodies = append(bodies, export(b, fmt.Sprintf("validator%d", i), spans...))
	}
	b.ResetTimer()
	for i := range b.N {
		res, err := http.Post(r.URL(), "application/x-protobuf", strings.NewReader(string(bodies[i%len(bodies)])))
		if err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("export refused: %s", res.Status)
		}
	}
	b.StopTimer()
	agg := r.Close()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(b.N*4096)/b.Elapsed().Seconds(), "spans/s")
	held := 0
	for _, n := range agg.Nodes() {
		held += n.Unresolved()
	}
	b.ReportMetric(float64(held), "spans-held")
}
