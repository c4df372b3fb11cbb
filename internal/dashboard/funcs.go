package dashboard

import (
	"fmt"
	"html/template"
	"path/filepath"
	"time"

	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/results"
)

var funcs = template.FuncMap{
	"when": results.Stamp, // chainperf's one way to write a moment
	"n":    compare.Num,   // a figure with the digits it deserves
	"base": filepath.Base,
	"pct":  func(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) },
	"dur": func(d time.Duration) string {
		if d == 0 {
			return "-"
		}
		return d.String()
	},
}
