package report

import "github.com/chainperf/chainperf/internal/printable"

// Printable returns s with every control character (escape sequences,
// newlines included) written escaped: names and labels read back from a
// database reach a terminal as text, never as commands to it.
func Printable(s string) string { return printable.Line(s) }
