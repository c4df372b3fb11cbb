package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/browser"
	"github.com/chainperf/chainperf/internal/browser/browsertest"
	"github.com/chainperf/chainperf/internal/load"
)

// TestChartTextReadsRight opens report.html in Chromium and reads every
// chart's text as a reader does: tick labels in the values' own precision
// ("500", not "500.00"; "30,000", not "30000"), the percentile chart's
// latency axis labelled more than once (gonum's log ticks labelled only
// powers of ten: 1,000 alone over 500-2,000 ms), and no text cut by its
// chart's edge.
func TestChartTextReadsRight(t *testing.T) {
	b := browsertest.Start(t)
	r, series := fixture()
	// Latencies of 400-4,000 ms: one power of ten among them.
	r.Phases[0].Ledger.LatencyCurve = []load.Quantile{{Percent: 0, MS: 400}, {Percent: 90, MS: 900}, {Percent: 99, MS: 1500}, {Percent: 100, MS: 4000}}
	openReport(t, b, r, series)
	type fig struct {
		Caption string
		Texts   []string
		Cut     []string
	}
	figs, err := browser.Eval[[]fig](b, `Array.from(document.querySelectorAll('figure')).map(function (f) {
		const svg = f.querySelector('svg'), box = svg ? svg.getBoundingClientRect() : null, out = {Caption: (f.querySelector('figcaption') || {}).innerText || '', Texts: [], Cut: []};
		if (!svg) return out;
		svg.querySelectorAll('text').forEach(function (t) {
			const r = t.getBoundingClientRect();
			out.Texts.push(t.textContent);
			if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) out.Cut.push(t.textContent);
		});
		return out;
	})`)
	if err != nil {
		t.Fatal(err)
	}
	zeros, decimals, ungrouped := regexp.MustCompile(`^-?[\d,]+\.0+$`), regexp.MustCompile(`^-?[\d,]+\.\d+$`), regexp.MustCompile(`^-?\d{5,}(\.\d+)?$`)
	number := regexp.MustCompile(`^-?[\d,]+(\.\d+)?$`)
	curves := 0
	for _, f := range figs {
		// Decimals only where a label needs them: 0.0, 0.5 and 1.0 on an
		// axis, never 500.00 and 1000.00 alone.
		var withDecimals, needless []string
		for _, s := range f.Texts {
			if ungrouped.MatchString(s) {
				t.Errorf("%s: tick label %q: thousands not grouped", f.Caption, s)
			}
			if decimals.MatchString(s) {
				withDecimals = append(withDecimals, s)
				if zeros.MatchString(s) {
					needless = append(needless, s)
				}
			}
		}
		if len(needless) > 0 && len(needless) == len(withDecimals) {
			t.Errorf("%s: tick labels %q: decimals no label needs", f.Caption, needless)
		}
		if len(f.Cut) > 0 {
			t.Errorf("%s: text cut by the chart's edge: %q", f.Caption, f.Cut)
		}
		if strings.HasPrefix(f.Caption, "Commit latency by percentile") {
			curves++
			var ms []string
			for _, s := range f.Texts {
				if number.MatchString(s) {
					ms = append(ms, s)
				}
			}
			if len(ms) < 3 {
				t.Errorf("%s: latency labels %q; want at least 3", f.Caption, ms)
			}
		}
	}
	if len(figs) < 10 || curves != 1 {
		t.Fatalf("%d charts, %d latency curves: the report did not draw", len(figs), curves)
	}
}
