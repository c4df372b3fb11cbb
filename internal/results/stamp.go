package results

import "time"

// Layout is how chainperf writes a moment for people, everywhere: in UTC,
// with the zone said, to the second. (Data files keep RFC 3339.)
const Layout = "2006-01-02 15:04:05 UTC"

// Stamp writes t in Layout; the zero time is "-".
func Stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(Layout)
}

// StampMilli is Stamp to the millisecond, for events a second apart.
func StampMilli(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000 UTC")
}

// Clock is the time of day of t in UTC, with the zone: progress lines,
// where the day goes without saying.
func Clock(t time.Time) string { return t.UTC().Format("15:04:05 UTC") }
