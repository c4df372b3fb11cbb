package report

import (
	"bufio"
	"strings"
	"text/tabwriter"
)

// MarkdownToText turns chainperf's own Markdown (headings, pipe tables,
// **bold**, `code`, lists, <details> sections: their summary a heading)
// into plain aligned text.
func MarkdownToText(md string) string {
	var out strings.Builder
	var table [][]string
	flush := func() {
		if len(table) == 0 {
			return
		}
		tw := tabwriter.NewWriter(&out, 0, 4, 2, ' ', 0)
		for i, row := range table {
			tw.Write([]byte(strings.Join(row, "\t") + "\t\n"))
			if i == 0 {
				rule := make([]string, len(row))
				for j, c := range row {
					rule[j] = strings.Repeat("-", max(3, len([]rune(c))))
				}
				tw.Write([]byte(strings.Join(rule, "\t") + "\t\n"))
			}
		}
		tw.Flush()
		table = nil
	}
	sc := bufio.NewScanner(strings.NewReader(md))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "|") {
			cells := splitRow(trimmed)
			if isRule(cells) {
				continue
			}
			table = append(table, cells)
			continue
		}
		flush()
		switch {
		case trimmed == "</details>":
			// A collapsed section ends: nothing to show on a terminal.
		case strings.HasPrefix(trimmed, "<details><summary>") && strings.HasSuffix(trimmed, "</summary>"):
			title := plain(strings.TrimSuffix(strings.TrimPrefix(trimmed, "<details><summary>"), "</summary>"))
			out.WriteString(title + "\n" + strings.Repeat("=", len([]rune(title))) + "\n")
		case strings.HasPrefix(line, "# "):
			title := plain(line[2:])
			out.WriteString(title + "\n" + strings.Repeat("=", len([]rune(title))) + "\n")
		case strings.HasPrefix(line, "## "), strings.HasPrefix(line, "### "):
			title := plain(strings.TrimLeft(line, "# "))
			out.WriteString(title + "\n" + strings.Repeat("-", len([]rune(title))) + "\n")
		default:
			out.WriteString(plain(line) + "\n")
		}
	}
	flush()
	return out.String()
}

// splitRow splits a pipe table row at its unescaped pipes.
func splitRow(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, plain(strings.TrimSpace(cur.String())))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, plain(strings.TrimSpace(cur.String())))
}

// isRule: the |---|:---:| line under a table's header.
func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" || c == "" {
			return false
		}
	}
	return true
}

// plain drops Markdown's emphasis and code marks.
func plain(s string) string {
	return strings.NewReplacer("**", "", "`", "").Replace(s)
}
