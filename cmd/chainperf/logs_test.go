package main

import (
	"strings"
	"testing"
	"time"
)

// --since and --until read a time the way chainperf prints it (UTC), a
// clock time on the run's day in UTC, RFC 3339, or a time after the start.
func TestLogWindowTimes(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	want := time.Date(2026, 11, 29, 14, 5, 30, 0, time.UTC)
	for _, s := range []string{"5m30s", "2026-11-29 14:05:30 UTC", "14:05:30", "14:05:30 UTC", "2026-11-29T15:05:30+01:00"} {
		if got, err := when("--since", s, start.In(time.FixedZone("far", 9*3600))); err != nil || !got.Equal(want) {
			t.Errorf("--since %q: %v (%v); want %v", s, got, err, want)
		}
	}
	if _, err := when("--since", "yesterday", start); err == nil || !strings.Contains(err.Error(), "2026-11-29 14:05:30 UTC") {
		t.Errorf("--since yesterday: %v", err)
	}
}
