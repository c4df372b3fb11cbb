package sdkchain

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/chainperf/chainperf/internal/testnet"
)

// otelFile is where a Cosmos SDK v0.54+ node reads its OpenTelemetry
// settings (the SDK's telemetry.OtelFileName); its init writes it empty.
const otelFile = "otel.yaml"

// NoTracing is what Decided says of a chain whose init wrote no otel.yaml.
const NoTracing = "init wrote no config/otel.yaml: the chain has no OpenTelemetry tracing (the Cosmos SDK's, v0.54 and later); no spans asked"

// traceTo sets n's OpenTelemetry settings to send its spans, named by the
// node, to the OTLP/HTTP url in batches. It says false when the chain's
// init wrote no otel.yaml (a chain without the SDK's tracing), and never
// writes through a link.
func traceTo(n *testnet.Node, url string) (bool, error) {
	path := filepath.Join(n.Home, "config", otelFile)
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case !info.Mode().IsRegular():
		return false, fmt.Errorf("%s is not a regular file: chainperf writes the node's tracing settings there", path)
	}
	// Batches of up to 2,048 spans each second, a queue that holds a few
	// seconds of a loaded node's spans (past it the SDK drops, and says so).
	q := strconv.Quote
	yaml := `file_format: "1.0"
resource:
  attributes:
    - name: service.name
      value: ` + q(n.Name) + `
tracer_provider:
  processors:
    - batch:
        schedule_delay: 1000
        max_queue_size: 65536
        max_export_batch_size: 2048
        exporter:
          otlp_http:
            endpoint: ` + q(url) + `
`
	return true, os.WriteFile(path, []byte(yaml), 0o600)
}
