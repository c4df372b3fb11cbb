// Package harnesspod is chainperf's harness run as a pod of the cluster
// it tests (testnet.kubernetes.harness = "pod"). In the pod, Serve runs
// the run as `chainperf run` would on the caller's machine, then hands
// its results (the run's database and reports) over HTTP until the
// caller has them; on the caller's side, Unpack writes them into a
// directory, trusting nothing in them.
package harnesspod

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Port is where the pod serves its results (in its own network namespace).
const Port = 8900

// Ready is the line the pod prints when its results can be fetched.
const Ready = "chainperf-harness: results ready"

// Serve runs `exe run args...` with its output as the pod's, then serves
// dir as a tar at /results until /done is asked for or wait has passed,
// and returns the run's exit code. ctx ending (SIGTERM: the caller
// stopped, or the pod is deleted) stops the run with SIGTERM, which tears
// its testnet down, and the results are not served.
func Serve(ctx context.Context, exe string, args []string, dir string, wait time.Duration) int {
	cmd := exec.Command(exe, append([]string{"run"}, args...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "chainperf-harness:", err)
		return 2
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case <-done:
		}
	}()
	err := cmd.Wait()
	close(done)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		code = 2
	}
	if ctx.Err() != nil {
		return code
	}
	ln, err := net.Listen("tcp", ":"+strconv.Itoa(Port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "chainperf-harness:", err)
		return 2
	}
	fetched := make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("GET /results", func(w http.ResponseWriter, _ *http.Request) {
		if err := Pack(w, dir); err != nil {
			// The tar ends without its footer: the caller's Unpack fails.
			fmt.Fprintln(os.Stderr, "chainperf-harness: results:", err)
		}
	})
	mux.HandleFunc("POST /done", func(http.ResponseWriter, *http.Request) { once.Do(func() { close(fetched) }) })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("%s (exit %d)\n", Ready, code)
	select {
	case <-fetched:
	case <-ctx.Done():
	case <-time.After(wait):
		fmt.Fprintf(os.Stderr, "chainperf-harness: nobody fetched the results within %s\n", wait)
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	return code
}

// Pack writes the regular files and directories under dir to w as a tar
// (paths relative to dir); anything else (a symlink) is left out.
func Pack(w io.Writer, dir string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() && !info.IsDir() {
			return nil
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if info.IsDir() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.CopyN(tw, f, info.Size())
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// Unpack writes a tar from a pod (input: it may be anything) into dir,
// which must exist: regular files and directories only, each path inside
// dir (no "..", no absolute path), none written over, at most maxBytes
// of files and maxFiles entries in all. An entry past a bound, or of
// another kind, is an error naming it.
func Unpack(r io.Reader, dir string, maxBytes int64, maxFiles int) error {
	tr := tar.NewReader(r)
	var total int64
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("results: %w", err)
		}
		if n >= maxFiles {
			return fmt.Errorf("results: more than %d entries", maxFiles)
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("results: entry %q is outside the results", h.Name)
		}
		path := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if total += h.Size; h.Size < 0 || total > maxBytes {
				return fmt.Errorf("results: more than %d bytes (at %q)", maxBytes, h.Name)
			}
			if err := writeFile(path, tr, h.Size); err != nil {
				return fmt.Errorf("results: %s: %w", h.Name, err)
			}
		default:
			return fmt.Errorf("results: entry %q is not a file or a directory", h.Name)
		}
	}
}

// writeFile makes path (its directories as needed, none of them a
// symlink: Unpack makes only directories) with exactly size bytes of r.
func writeFile(path string, r io.Reader, size int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(f, r, size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Out is where a harness pod's run writes its database and reports.
const Out = "/out"

// Args are the `chainperf run` arguments of the pod's run: the scenario,
// its database and report dir under Out, and the caller's flags.
func Args(scenario string, flags []string) []string {
	args := []string{scenario, "--db", filepath.Join(Out, "runs.db"), "--report-dir", filepath.Join(Out, "reports")}
	return append(args, flags...)
}
