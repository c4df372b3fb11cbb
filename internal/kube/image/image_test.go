package image

import (
	"archive/tar"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
)

// The image holds chainperf at /chainperf and a chain binary at
// /bin/NAME, each with what the loader needs when it is dynamically
// linked; it is for this platform, and the same binaries make the same
// reference.
func TestBuild(t *testing.T) {
	exe, err := os.Executable() // this test binary
	if err != nil {
		t.Fatal(err)
	}
	chain, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no /bin/true")
	}
	im, err := Build(exe, LocalRepo, chain)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := im.img.ConfigFile()
	if err != nil || cfg.OS != "linux" || cfg.Architecture != runtime.GOARCH || cfg.Config.Entrypoint[0] != Binary {
		t.Fatalf("config %+v, %v", cfg, err)
	}
	layers, err := im.img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
	for _, want := range []string{"chainperf", "bin/true", "tmp/"} {
		if !slices.Contains(names, want) {
			t.Errorf("the layer has %v; want %s", names, want)
		}
	}
	// /bin/true is dynamically linked on Debian: its loader and libc come along.
	libs, err := sharedLibs(chain)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range libs {
		if !slices.Contains(names, l[1:]) {
			t.Errorf("%s needs %s; the layer has %v", chain, l, names)
		}
	}
	again, err := Build(exe, LocalRepo, chain)
	if err != nil || again.Ref != im.Ref {
		t.Errorf("rebuilt: %s, %v; first %s", again.Ref, err, im.Ref)
	}
	if _, err := Build("/etc/passwd", LocalRepo, ""); err == nil {
		t.Error("a file that is no binary made an image")
	}
}
