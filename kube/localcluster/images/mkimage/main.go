// Command mkimage makes an image tarball of one static binary (the pod
// sandbox's pause program) for `ctr images import`: no Docker engine, no
// registry.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"io"
	"log"
	"os"
	"runtime"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	bin := flag.String("binary", "", "static binary to put at /BASENAME")
	ref := flag.String("name", "", "image name, e.g. chainperf.local/pause:1")
	out := flag.String("out", "", "image tarball to write")
	flag.Parse()
	data, err := os.ReadFile(*bin)
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "pause", Mode: 0o755, Size: int64(len(data))}); err != nil {
		log.Fatal(err)
	}
	if _, err := tw.Write(data); err != nil {
		log.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		log.Fatal(err)
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
	if err != nil {
		log.Fatal(err)
	}
	// containerd imports only images for its platform: say which (before
	// the layer, which fills in the config's root fs).
	img, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{
		Architecture: runtime.GOARCH, OS: "linux",
		Config: v1.Config{Entrypoint: []string{"/pause"}},
		RootFS: v1.RootFS{Type: "layers"},
	})
	if err != nil {
		log.Fatal(err)
	}
	img, err = mutate.AppendLayers(img, layer)
	if err != nil {
		log.Fatal(err)
	}
	tag, err := name.NewTag(*ref)
	if err != nil {
		log.Fatal(err)
	}
	if err := tarball.WriteToFile(*out, tag, img); err != nil {
		log.Fatal(err)
	}
}
