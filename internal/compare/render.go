package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/chainperf/chainperf/internal/finding"
)

// Cells are the row as the verdict table shows it (Header names them).
func (r Row) Cells() []string {
	change := "-"
	if r.Verdict != Missing {
		change = fmt.Sprintf("%+.1f %s", r.Change, r.ChangeIn)
		if math.IsInf(r.Change, 0) {
			change = "from 0"
		}
	}
	ci := "no interval"
	switch {
	case r.Tested && r.Rounds > 0 && r.Pooled > 0:
		ci = fmt.Sprintf("%+.1f..%+.1f %d rounds, spread +%d A/A", r.Low, r.High, r.Rounds, r.Pooled)
	case r.Tested && r.Rounds > 0:
		ci = fmt.Sprintf("%+.1f..%+.1f %d rounds", r.Low, r.High, r.Rounds)
	case r.Tested:
		ci = fmt.Sprintf("%+.1f..%+.1f n=%d+%d", r.Low, r.High, len(r.Base), len(r.Cand))
	}
	verdict := r.Verdict
	switch {
	case !r.Gated && r.Coarse != "":
		verdict += " (not gated, coarse)"
	case !r.Gated:
		verdict += " (not gated)"
	case r.Coarse != "":
		verdict += " (coarse)"
	}
	name := r.Figure
	if r.Unit != "" && r.Unit != "share" {
		name += " (" + r.Unit + ")"
	}
	return []string{name, side(r.Base, r.BaseMean), side(r.Cand, r.CandMean), change, ci, verdict}
}

func side(xs []float64, center float64) string {
	switch len(xs) {
	case 0:
		return "-"
	case 1:
		return Num(center)
	}
	return fmt.Sprintf("%s (%d samples)", Num(center), len(xs))
}

// Num shows a figure with the digits it deserves (the verdict table's
// and the dashboard's format); "-" for NaN or infinity.
func Num(x float64) string { return finding.Num(x) }

// Header names the columns of the verdict table.
var Header = []string{"figure", "baseline", "candidate", "change", "95 % interval", "verdict"}

// Summary is the comparison's verdict in one line.
func (res *Result) Summary() string {
	switch {
	case len(res.Regressed) > 0:
		return fmt.Sprintf("REGRESSED: %s", strings.Join(res.Regressed, ", "))
	case len(res.Inconclusive) > 0:
		return fmt.Sprintf("INCONCLUSIVE: %s (the data cannot tell a change of the threshold from none)", strings.Join(res.Inconclusive, ", "))
	}
	return "no gated figure regressed"
}

// Shown is the rows a reader sees first, gated figures first (in their
// order), then the figures not gated that moved (regressed or improved);
// the rest folded into a line a group: "cpu: 12 figures unchanged or
// undecided". all shows every row, gated first, no line folded.
func (res *Result) Shown(all bool) (rows []Row, folded []string) {
	var gated, moved, rest []Row
	for _, r := range res.Rows {
		switch {
		case r.Gated:
			gated = append(gated, r)
		case all || r.Verdict == Regressed || r.Verdict == Improved:
			moved = append(moved, r)
		default:
			rest = append(rest, r)
		}
	}
	count, order := map[string]int{}, []string{}
	for _, r := range rest {
		g := group(r.Figure)
		if count[g] == 0 {
			order = append(order, g)
		}
		count[g]++
	}
	for _, g := range order {
		folded = append(folded, fmt.Sprintf("%s: %d figure%s unchanged or undecided", g, count[g], pluralS(count[g])))
	}
	return append(gated, moved...), folded
}

// group is a figure's group: its first word ("cpu validator0" -> "cpu").
func group(figure string) string {
	g, _, _ := strings.Cut(figure, " ")
	return g
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Text writes the comparison as a terminal table: gated figures first,
// the figures not gated that did not move folded by group (Shown).
func (res *Result) Text(w io.Writer) { res.TextAll(w, false) }

// TextAll is Text, with every figure's row when all.
func (res *Result) TextAll(w io.Writer, all bool) {
	fmt.Fprintf(w, "baseline:  %s\ncandidate: %s\n", strings.Join(res.Baseline, ", "), strings.Join(res.Candidate, ", "))
	for _, c := range res.Changed {
		fmt.Fprintf(w, "changed:   %s\n", c)
	}
	for _, c := range res.Why {
		fmt.Fprintf(w, "why:       %s\n", c)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(Header, "\t"))
	rows, folded := res.Shown(all)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.Cells(), "\t"))
	}
	tw.Flush()
	if len(folded) > 0 {
		fmt.Fprintf(w, "folded (--all shows them): %s\n", strings.Join(folded, "; "))
	}
	fmt.Fprintln(w)
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintln(w, res.Summary())
}

// Markdown writes the comparison for a pull-request comment: the gated
// figures and those that moved in the table, the rest in a collapsed one.
func (res *Result) Markdown(w io.Writer) {
	fmt.Fprintf(w, "### chainperf compare: %s\n\nBaseline %s; candidate %s.\n\n", res.Summary(),
		code(res.Baseline), code(res.Candidate))
	for _, c := range res.Changed {
		fmt.Fprintf(w, "Changed: %s\n\n", c)
	}
	for _, c := range res.Why {
		fmt.Fprintf(w, "Why: %s\n\n", c)
	}
	table := func(rows []Row) {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(Header, " | "), strings.Repeat("---|", len(Header)))
		for _, r := range rows {
			c := r.Cells()
			if r.Gated && (r.Verdict == Regressed || r.Verdict == Inconclusive) {
				c[5] = "**" + c[5] + "**"
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
		}
	}
	shown, folded := res.Shown(false)
	table(shown)
	if len(folded) > 0 {
		all, _ := res.Shown(true)
		fmt.Fprintf(w, "\n<details><summary>%s</summary>\n\n", strings.Join(folded, "; "))
		table(all[len(shown):])
		fmt.Fprintf(w, "\n</details>\n")
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "\n_Note: %s._\n", n)
	}
}

func code(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "`" + id + "`"
	}
	return strings.Join(out, ", ")
}

// JSON writes the comparison for machines (infinite changes as null).
func (res *Result) JSON(w io.Writer) error {
	out := *res
	out.Rows = append([]Row(nil), res.Rows...)
	for i := range out.Rows {
		r := &out.Rows[i]
		if math.IsInf(r.Change, 0) {
			r.Change = 0
			r.ChangeIn = "from 0"
		}
		for _, x := range []*float64{&r.Low, &r.High, &r.P} {
			if math.IsInf(*x, 0) || math.IsNaN(*x) {
				*x = 0
			}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
