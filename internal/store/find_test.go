package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestFind: what a user types for one run, on both backends: an ID, a
// unique start of one, latest and latest~N; a start that fits several runs
// names them, and what is no ID is refused before any query (a % of the
// user's would match every run in LIKE).
func TestFind(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			start := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
			s, _ := begun(t, dsn, "20261129-060000-aaaa", start)
			for i, id := range []string{"20261129-060100-bbbb", "20261129-060100-bbbc", "20261129-070000-cccc"} {
				if err := s.Begin(ctx, sampleRun(id, start.Add(time.Duration(i+1)*time.Minute)), Owner{PID: 42, Start: 7, Host: "h"}); err != nil {
					t.Fatal(err)
				}
			}
			for ref, want := range map[string]string{
				"20261129-060000-aaaa": "20261129-060000-aaaa",
				"20261129-06000":       "20261129-060000-aaaa",
				"20261129-07":          "20261129-070000-cccc",
				"latest":               "20261129-070000-cccc", // the newest start
				"latest~0":             "20261129-070000-cccc",
				"latest~3":             "20261129-060000-aaaa",
			} {
				if got, err := s.Find(ctx, ref); err != nil || got != want {
					t.Errorf("Find(%q) = %q, %v; want %q", ref, got, err, want)
				}
			}
			for ref, want := range map[string]string{
				"20261129-0601": "the start of 20261129-060100-bbbb, 20261129-060100-bbbc",
				"2026":          "and more",
				"latest~4":      "holds 4 run(s)",
				"latest~x":      "write latest or latest~N",
				"%":             "an ID has digits",
				"2026_":         "an ID has digits",
				"":              "an ID has digits",
				"19990101":      "no such run",
			} {
				_, err := s.Find(ctx, ref)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Find(%q): %v; want an error saying %q", ref, err, want)
				}
			}
			if _, err := s.Find(ctx, "19990101"); !errors.Is(err, ErrNotFound) {
				t.Errorf("a start of no run: %v; want ErrNotFound", err)
			}
		})
	}
}
