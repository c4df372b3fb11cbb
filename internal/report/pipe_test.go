package report

import (
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/results"
)

// TestCellWithABar: a cell that holds a | (a CometBFT log line's
// timestamp) stays one cell in report.md and in the text `runs show`
// prints.
func TestCellWithABar(t *testing.T) {
	r := &results.Run{Record: results.Record{ID: "20261129-070000-abcd", Status: results.StatusComplete}}
	line := "E[2026-11-29|07:34:55.779] Failed to read request"
	r.SetFinding(finding.Finding{Source: "logs", Title: "Node logs", Tables: []finding.Table{{Columns: []string{"node", "first error"}, Rows: [][]string{{"validator0", line}}}}})
	var md strings.Builder
	Markdown(&md, r)
	if !strings.Contains(md.String(), `| validator0 | E[2026-11-29\|07:34:55.779] Failed to read request |`) {
		t.Errorf("report.md row:\n%s", md.String())
	}
	text := MarkdownToText(md.String())
	if !strings.Contains(text, "validator0  "+line) {
		t.Errorf("text row:\n%s", text)
	}
}
