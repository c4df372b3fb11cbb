package dashboard

import (
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"time"
)

var funcs = template.FuncMap{
	// when shows a time in the server's zone, to the second.
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.Local().Format("2006-01-02 15:04:05")
	},
	"n":    Figure,
	"base": filepath.Base,
	"pct":  func(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) },
	"dur": func(d time.Duration) string {
		if d == 0 {
			return "-"
		}
		return d.String()
	},
}

// Figure shows a figure as the pages do: with the digits it deserves.
func Figure(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "-"
	case x == 0:
		return "0"
	case math.Abs(x) >= 100:
		return fmt.Sprintf("%.0f", x)
	case math.Abs(x) >= 1:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.3f", x)
}
