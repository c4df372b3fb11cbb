// Package browser drives a headless Chromium (Debian's) through the
// DevTools protocol, for the dashboard's tests and its page-ready
// benchmark: open a page, wait until its charts are drawn, read what it
// shows, catch every console error and CSP violation, take a screenshot.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
)

// ErrNoChromium says the machine has no Chromium to drive.
var ErrNoChromium = errors.New("chromium not installed (apt-get install chromium)")

// A Browser is one headless Chromium with one tab.
type Browser struct {
	ctx    context.Context
	cancel func()
	mu     sync.Mutex
	errs   []string
}

// Start launches Chromium (its profile in a temp dir it removes at Close).
func Start(ctx context.Context) (*Browser, error) {
	path, err := exec.LookPath("chromium")
	if err != nil {
		return nil, ErrNoChromium
	}
	profile, err := os.MkdirTemp("", "chainperf-chromium-")
	if err != nil {
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		// Chromium's own temp files (org.chromium.Chromium.*) go with
		// the profile, which Close removes.
		chromedp.Env("TMPDIR="+profile),
		chromedp.NoSandbox, // root in CI; the pages are our own
		chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	b := &Browser{ctx: bctx}
	b.cancel = func() {
		bcancel()
		acancel()
		os.RemoveAll(profile)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		b.Close()
		return nil, fmt.Errorf("chromium: %w", err)
	}
	// Console errors, uncaught exceptions and the browser log's errors
	// (CSP violations, failed loads), for Errors.
	msgs := chromedp.Console(bctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				b.mu.Lock()
				b.errs = append(b.errs, m.String()+" "+m.URL)
				b.mu.Unlock()
			}
		}
	}()
	return b, nil
}

// Errors returns the console errors, exceptions and error log entries
// seen since the last call, and forgets them.
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.errs
	b.errs = nil
	return out
}

// Close ends Chromium and removes its profile.
func (b *Browser) Close() { b.cancel() }

// Open loads url and waits until the page says it is drawn (the
// dashboard sets body[data-ready] once its charts are drawn), at most
// timeout; it returns how long that took.
func (b *Browser) Open(url string, timeout time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	start := time.Now()
	err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body[data-ready]")))
	return time.Since(start), err
}

// Text returns the text of the first element the CSS selector matches.
func (b *Browser) Text(sel string) (string, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	return strings.TrimSpace(s), err
}

// Eval evaluates a JavaScript expression and decodes its value into T.
func Eval[T any](b *Browser, js string) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](js))
}

// Painted counts, for each chart canvas on the page, the pixels that are
// not blank: a chart whose count is 0 drew nothing.
func (b *Browser) Painted() ([]int, error) {
	return Eval[[]int](b, `Array.from(document.querySelectorAll('.chart canvas')).map(function (c) {
		var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, n = 0;
		for (var i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
		return n;
	})`)
}

// Screenshot saves the whole page as a PNG.
func (b *Browser) Screenshot(path string) error {
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

// ScreenshotAt saves the window's view (1280x900) with the element the
// CSS selector matches scrolled to its top: a picture of one part of a
// long page.
func (b *Browser) ScreenshotAt(sel, path string) error {
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](fmt.Sprintf(`document.querySelector(%q).scrollIntoView()`, sel))); err != nil {
		return err
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}
