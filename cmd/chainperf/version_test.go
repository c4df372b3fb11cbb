package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestVersion: `chainperf version` and `--version` say the version, the
// commit (or that the build has none) and the Go version; a release
// build's version (-X main.version) wins.
func TestVersion(t *testing.T) {
	// No node, nothing timed: the beside tier.
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, code := cli(t, t.TempDir(), args...)
		if code != 0 || !strings.HasPrefix(out, "chainperf ") || !strings.Contains(out, "commit ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("%v: exit %d\n%s", args, code, out)
		}
	}
	old, oldCommit := version, commit
	defer func() { version, commit = old, oldCommit }()
	version, commit = "v9.9.9", "abc123"
	if v := versionText(); !strings.HasPrefix(v, "chainperf v9.9.9, commit ") {
		t.Errorf("release build: %q", v)
	}
	// A test binary has no VCS stamp: the commit the release build set
	// is what it says.
	if v := versionText(); !strings.Contains(v, "commit abc123") {
		t.Errorf("release build's commit: %q", v)
	}
}
