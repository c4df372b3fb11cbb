package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version and commit are set by a release build (scripts/release.sh: -ldflags
// "-X main.version=v1.2.3 -X main.commit=HASH"); otherwise the module
// version go install recorded (or "devel") and the VCS stamp of a build
// in a git checkout.
var version, commit = "", ""

// versionText is the version, commit and Go version of this binary, from
// what the build recorded (the VCS stamp of a build in a git checkout).
func versionText() string {
	v, rev, dirty := version, commit, ""
	if rev == "" {
		rev = "unknown (built without VCS stamps)"
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = " (modified)"
				}
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	return fmt.Sprintf("chainperf %s, commit %s%s, %s %s/%s", v, rev, dirty, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print chainperf's version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionText())
			return err
		},
	}
}
