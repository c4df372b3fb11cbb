// Package browsertest starts the headless Chromium a test drives.
package browsertest

import (
	"context"
	"errors"
	"testing"

	"github.com/chainperf/chainperf/internal/browser"
)

// Start launches Chromium for t and closes it when t ends; a machine
// without Chromium skips t.
func Start(t testing.TB) *browser.Browser {
	t.Helper()
	b, err := browser.Start(context.Background())
	if errors.Is(err, browser.ErrNoChromium) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}
