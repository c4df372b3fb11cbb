// Package image makes the node image of the kubernetes provider from
// chainperf's own binary, without a Docker engine (go-containerregistry),
// and delivers it: pushed to a registry, or imported into the containerd of
// a one-machine cluster.
package image

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Binary is where the binary sits in the image.
const Binary = "/chainperf"

// LocalRepo names the image when it is imported, not pushed.
const LocalRepo = "chainperf.local/chainperf-node"

// An Image is the node image and the reference pods name it by.
type Image struct {
	Ref string // repo:tag, the tag from the binary's content
	img v1.Image
}

// ChainPath is where a chain's binary (a Cosmos or EVM chain's node, a
// released CometBFT) sits in the image.
func ChainPath(bin string) string { return "/bin/" + filepath.Base(bin) }

// Build makes an image of exe at /chainperf, and of chain (if not "") at
// ChainPath(chain). A dynamically linked binary brings its ELF interpreter
// and libraries (as ldd finds them here), so a cgo build runs too. The
// tag is a hash of the layer: the same binaries make the same reference.
func Build(exe, repo, chain string) (*Image, error) {
	type file struct{ src, dst string }
	files := []file{{exe, Binary}}
	if chain != "" {
		files = append(files, file{chain, ChainPath(chain)})
	}
	seen := map[string]bool{}
	for _, f := range files[:len(files):len(files)] {
		libs, err := sharedLibs(f.src)
		if err != nil {
			return nil, err
		}
		for _, l := range libs {
			if !seen[l] {
				seen[l] = true
				files = append(files, file{l, l})
			}
		}
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f.src)
		if err != nil {
			return nil, fmt.Errorf("node image: %w", err)
		}
		dst := strings.TrimPrefix(f.dst, "/")
		for _, d := range parents(dst) {
			if !dirs[d] {
				dirs[d] = true
				if err := tw.WriteHeader(&tar.Header{Name: d + "/", Typeflag: tar.TypeDir, Mode: 0o755}); err != nil {
					return nil, err
				}
			}
		}
		if err := tw.WriteHeader(&tar.Header{Name: dst, Mode: 0o755, Size: int64(len(data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777}); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layerBytes := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerBytes)), nil })
	if err != nil {
		return nil, err
	}
	// The platform first (containerd imports only its own), then the
	// layer, which fills in the config's root fs.
	img, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{
		Architecture: runtime.GOARCH, OS: "linux",
		Config: v1.Config{Entrypoint: []string{Binary}, Env: []string{"PATH=/", "TMPDIR=/tmp"}},
		RootFS: v1.RootFS{Type: "layers"},
	})
	if err != nil {
		return nil, err
	}
	if img, err = mutate.AppendLayers(img, layer); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(layerBytes)
	return &Image{Ref: repo + ":" + hex.EncodeToString(sum[:6]), img: img}, nil
}

// parents lists the directories above path, outermost first.
func parents(path string) []string {
	var out []string
	for d := filepath.Dir(path); d != "." && d != "/"; d = filepath.Dir(d) {
		out = append([]string{d}, out...)
	}
	return out
}

// sharedLibs lists what a dynamically linked exe loads (its interpreter
// and libraries, as ldd resolves them); nothing for a static one.
func sharedLibs(exe string) ([]string, error) {
	f, err := elf.Open(exe)
	if err != nil {
		return nil, fmt.Errorf("node image: %s is not an ELF binary: %w", exe, err)
	}
	defer f.Close()
	dynamic := false
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			dynamic = true
		}
	}
	if !dynamic {
		return nil, nil
	}
	out, err := exec.Command("ldd", exe).Output()
	if err != nil {
		return nil, fmt.Errorf("node image: %s is dynamically linked and ldd cannot list its libraries (%v): build it with CGO_ENABLED=0", exe, err)
	}
	var libs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or
		// "/lib64/ld-linux-x86-64.so.2 (0x...)"; "linux-vdso.so.1 (0x...)" is the kernel's.
		fields := strings.Fields(sc.Text())
		for i, fl := range fields {
			// Copied by content to the path the loader looks for.
			if strings.HasPrefix(fl, "/") && (i == 0 || fields[i-1] == "=>") {
				libs = append(libs, fl)
			}
		}
	}
	return libs, nil
}

// Push writes the image to its registry (credentials from the Docker
// config, as docker login leaves them).
func (im *Image) Push(ctx context.Context) error {
	ref, err := name.ParseReference(im.Ref)
	if err != nil {
		return fmt.Errorf("image %s: %w", im.Ref, err)
	}
	if err := remote.Write(ref, im.img, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return fmt.Errorf("push %s: %w", im.Ref, err)
	}
	return nil
}

// Import loads the image into the containerd at socket (namespace k8s.io,
// where the kubelet's images are) with ctr; pods then run it with
// imagePullPolicy Never.
func (im *Image) Import(ctx context.Context, socket string) error {
	tag, err := name.NewTag(im.Ref)
	if err != nil {
		return fmt.Errorf("image %s: %w", im.Ref, err)
	}
	tmp, err := os.CreateTemp("", "chainperf-image-*.tar")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	tmp.Close()
	if err := tarball.WriteToFile(tmp.Name(), tag, im.img); err != nil {
		return fmt.Errorf("image tarball: %w", err)
	}
	out, err := exec.CommandContext(ctx, "ctr", "--address", socket, "-n", "k8s.io", "images", "import", tmp.Name()).CombinedOutput()
	if err != nil {
		return fmt.Errorf("import the node image into containerd at %s: %v: %s", socket, err, strings.TrimSpace(string(out)))
	}
	return nil
}
