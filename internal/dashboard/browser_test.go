package dashboard

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/browser"
)

// TestPagesDrawInABrowser opens every page in headless Chromium: each
// draws its charts (canvases with painted pixels), shows the stored
// numbers, and logs no console error, exception or CSP violation.
func TestPagesDrawInABrowser(t *testing.T) {
	b, err := browser.Start(context.Background())
	if errors.Is(err, browser.ErrNoChromium) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	st, path := newDB(t)
	t0 := time.Now().Add(-time.Hour)
	for i, tps := range []float64{100, 101, 99, 60} {
		fakeRun(t, st, fmt.Sprintf("r%d", i), "nightly", map[string]string{"branch": "main"}, t0.Add(time.Duration(i)*time.Minute), tps)
	}
	ts := testServer(t, path)
	for _, c := range []struct {
		path   string
		charts int
		sel    string
		text   string
	}{
		{"/", 0, `tr[data-run="r3"] td.committed`, "60.00"},
		{"/runs/r1", 9, "#criteria td.num", "101"}, // 8 over time, 1 over heights
		{"/compare?base=r0,r1,r2&cand=r3", 1, "#verdict", "REGRESSED: committed tx/s"},
		{"/trends?scenario=nightly", 1, "#regressions td a", "r3"},
	} {
		if _, err := b.Open(ts.URL+c.path, 20*time.Second); err != nil {
			t.Fatalf("%s: %v (errors: %v)", c.path, err, b.Errors())
		}
		if got, err := b.Text(c.sel); err != nil || got != c.text {
			t.Errorf("%s: %s shows %q (%v), want %q", c.path, c.sel, got, err, c.text)
		}
		painted, err := b.Painted()
		if err != nil {
			t.Fatal(err)
		}
		if len(painted) < c.charts {
			t.Errorf("%s: %d charts drawn, want at least %d", c.path, len(painted), c.charts)
		}
		for i, n := range painted {
			if n == 0 {
				t.Errorf("%s: chart %d is blank", c.path, i)
			}
		}
		if errs := b.Errors(); len(errs) > 0 {
			t.Errorf("%s: console errors: %v", c.path, errs)
		}
	}
}
