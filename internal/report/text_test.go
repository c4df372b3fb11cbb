package report

import (
	"strings"
	"testing"
)

func TestMarkdownToText(t *testing.T) {
	md := "# Run r1: **PASS**\n\n## steady\n\n| figure | value |\n|---|---|\n| committed tx/s | **500** |\n| a \\| b | `x` |\n\n- host: h\n" +
		"<details><summary>Findings: 2 tables</summary>\n\n## Steady\n\n</details>\n"
	got := MarkdownToText(md)
	for _, bad := range []string{"**", "|---|", "`", "| figure", "<details>", "</summary>", "</details>"} {
		if strings.Contains(got, bad) {
			t.Errorf("text holds %q:\n%s", bad, got)
		}
	}
	for _, want := range []string{"Run r1: PASS\n============", "steady\n------", "figure          value", "committed tx/s  500", "a | b           x", "- host: h", "Findings: 2 tables\n=================="} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
}
