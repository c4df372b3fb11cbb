package report

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestHTMLRendersInChromium renders report.html in headless Chromium and
// looks at the screenshot: a page of the expected size whose charts drew
// (many colours, and the perturbation band's orange over white) across
// the page's width. CI
// installs Debian's chromium; without it the test is skipped.
func TestHTMLRendersInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (apt-get install chromium)")
	}
	r, series := fixture()
	dir := t.TempDir()
	if _, err := Write(dir, r, series); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--window-size=1200,6000", "--screenshot="+shot, "file://"+filepath.Join(dir, "report.html"))
	cmd.Env = append(os.Environ(), "HOME="+dir, "TMPDIR="+dir) // chromium writes a profile and temp files there
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != 1200 || b.Dy() != 6000 {
		t.Fatalf("screenshot %v; want 1200x6000", b)
	}
	colours := map[[3]uint32]bool{}
	band, right := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if r>>8 < 200 || g>>8 < 200 || bl>>8 < 200 {
				right = max(right, x)
			}
			// NRGBA(255,140,0,50) over white is about (255,235,204).
			if r>>8 == 255 && g>>8 >= 225 && g>>8 <= 245 && bl>>8 >= 190 && bl>>8 <= 215 {
				band++
			}
		}
	}
	t.Logf("%d colours, %d band pixels, drawn to x = %d", len(colours), band, right)
	if len(colours) < 50 {
		t.Errorf("%d colours in the screenshot: the charts did not draw", len(colours))
	}
	// The page is 1100 px wide at most, centred in 1200: a chart at its
	// full width draws to x = 1136; at 7 inches wide the page's widest
	// thing (a table) ended at 980.
	if right < 1080 {
		t.Errorf("nothing drawn right of x = %d: the charts do not use the page's width", right)
	}
	if band < 1000 {
		t.Errorf("%d band-orange pixels: the perturbation bands did not draw", band)
	}
}
