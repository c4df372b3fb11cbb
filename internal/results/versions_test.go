package results

import (
	"slices"
	"testing"
)

// TestNodeVersions: a mixed network and an upgraded node are said, one
// line a group; one binary that said one version is not.
func TestNodeVersions(t *testing.T) {
	r := &Run{Setup: Setup{Nodes: []Node{
		{Name: "validator0", Version: "embedded", Reported: "0.38.19", ReportedEnd: "0.38.26"},
		{Name: "validator1", Version: "embedded", Reported: "0.38.19", ReportedEnd: "0.38.19"},
		{Name: "validator2", Version: "module:x@v0.38.26", Reported: "0.38.26", ReportedEnd: "0.38.26"},
		{Name: "full0", Version: "embedded", Reported: "0.38.19"},
	}}}
	want := []string{"embedded: validator0 (said 0.38.19, then 0.38.26)", "embedded: validator1, full0 (said 0.38.19)",
		"module:x@v0.38.26: validator2 (said 0.38.26)"}
	if got := r.NodeVersions(); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// An upgrade that swapped the binary says so even when the node said
	// one version before and after (a patch of the application).
	app := &Run{Setup: Setup{Nodes: []Node{{Name: "validator0", Version: "module:w@v1", VersionEnd: "module:w@v1 +sdk@v2", Reported: "0.38.21", ReportedEnd: "0.38.21"}}}}
	if got, want := app.NodeVersions(), []string{"module:w@v1 -> module:w@v1 +sdk@v2: validator0 (said 0.38.21)"}; !slices.Equal(got, want) {
		t.Errorf("upgraded binary: got %q\nwant %q", got, want)
	}
	same := &Run{Setup: Setup{Nodes: []Node{{Name: "validator0", Version: "embedded", Reported: "0.38.19"}, {Name: "validator1", Version: "embedded", Reported: "0.38.19", ReportedEnd: "0.38.19"}}}}
	if got := same.NodeVersions(); got != nil {
		t.Errorf("one version: got %q", got)
	}
}
