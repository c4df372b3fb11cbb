package report

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/chainperf/chainperf/internal/files"
	"github.com/chainperf/chainperf/internal/secret"
)

// A Log is one node's output, as the run kept it.
type Log struct {
	Node string
	Text []byte
}

// LogsDir is the report folder's folder of node logs, NODE.log.gz each.
const LogsDir = "logs"

// logNode is a node name that can name a file: the store is input.
var logNode = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// WriteLogs writes each node's log into dir's logs folder, compressed,
// secrets masked, for report.html to link; a node whose name cannot be a
// file name is left out. It returns the files written.
func WriteLogs(dir string, logs []Log) ([]string, error) {
	if len(logs) == 0 {
		return nil, nil
	}
	to := filepath.Join(dir, LogsDir)
	if err := os.MkdirAll(to, 0o755); err != nil {
		return nil, err
	}
	var out []string
	for _, l := range logs {
		if !logNode.MatchString(l.Node) {
			continue
		}
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write([]byte(secret.Redact(string(l.Text))))
		if err := w.Close(); err != nil {
			return out, err
		}
		p := filepath.Join(to, l.Node+".log.gz")
		if err := files.WriteAtomic(p, z.Bytes(), 0o644); err != nil {
			return out, err
		}
		out = append(out, p)
	}
	return out, nil
}

// keptLogs are the nodes whose logs dir's logs folder holds (regular
// files only), for report.html's links.
func keptLogs(dir string) []string {
	entries, err := os.ReadDir(filepath.Join(dir, LogsDir))
	if err != nil {
		return nil
	}
	var nodes []string
	for _, e := range entries {
		node, ok := strings.CutSuffix(e.Name(), ".log.gz")
		if ok && e.Type().IsRegular() && logNode.MatchString(node) {
			nodes = append(nodes, node)
		}
	}
	sort.Strings(nodes)
	return nodes
}
