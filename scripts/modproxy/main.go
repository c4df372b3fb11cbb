// Command modproxy writes this module's tree as one version of it into a
// file-based Go module proxy (DIR/github.com/chainperf/chainperf/@v/), as
// a tag would publish it: scripts/install-check.sh then runs `go install
// MODULE/cmd/chainperf@VERSION` against it from an empty GOPATH.
//
//	go run ./scripts/modproxy DIR VERSION
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

const path = "github.com/chainperf/chainperf"

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/modproxy DIR VERSION")
		os.Exit(2)
	}
	if err := write(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func write(dir, version string) error {
	v := module.Version{Path: path, Version: version}
	if err := module.Check(v.Path, v.Version); err != nil {
		return err
	}
	at := filepath.Join(dir, path, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		return err
	}
	// The module's files as go would publish them: nested modules
	// (chains/*), vendor and VCS dirs left out by CreateFromDir.
	if err := zip.CreateFromDir(f, v, "."); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(at, version+".mod"), mod, 0o644); err != nil {
		return err
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":%q}`, version, time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(at, version+".info"), []byte(info), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(at, "list"), []byte(version+"\n"), 0o644)
}
