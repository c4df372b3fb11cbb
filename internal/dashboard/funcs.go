package dashboard

import (
	"fmt"
	"html/template"
	"path/filepath"
	"time"

	"github.com/chainperf/chainperf/internal/compare"
)

var funcs = template.FuncMap{
	// when shows a time in the server's zone, to the second.
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.Local().Format("2006-01-02 15:04:05")
	},
	"n":    compare.Num, // a figure with the digits it deserves
	"base": filepath.Base,
	"pct":  func(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) },
	"dur": func(d time.Duration) string {
		if d == 0 {
			return "-"
		}
		return d.String()
	},
}
