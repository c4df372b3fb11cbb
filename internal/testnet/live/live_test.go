package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// A node that fails to start is explained with its log: the path when the
// testnet dir stays, the log's last lines when it is a temp dir that goes
// at teardown (right after the error is printed).
func TestLogHint(t *testing.T) {
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 1\nfull_nodes = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	tn := testnet.New(s.Testnet, "tn-1", dir, "127.0.0.1", 30000)
	nd := tn.Nodes[0]
	os.MkdirAll(tn.LogDir(), 0o755)
	log := strings.Repeat("height 1 reached\n", 200) + "E panic: the app refused the genesis\n"
	os.WriteFile(filepath.Join(tn.LogDir(), nd.Name+".log"), []byte(log), 0o644)

	kept := &Net{Testnet: tn, State: &testnet.State{Testnet: tn}}
	if got, want := kept.logHint(ctx, nd), "see "+filepath.Join(dir, "logs", nd.Name+".log"); got != want {
		t.Errorf("kept dir: %q; want %q", got, want)
	}
	temp := &Net{Testnet: tn, State: &testnet.State{Testnet: tn, TempDir: true}}
	got := temp.logHint(ctx, nd)
	if !strings.HasSuffix(got, "E panic: the app refused the genesis") || !strings.Contains(got, "--dir D") || len(got) > 2300 {
		t.Errorf("temp dir: %d bytes %q; want the log's last 2 KB ending in its last line, and how to keep the dir", len(got), got)
	}
	os.Remove(filepath.Join(tn.LogDir(), nd.Name+".log"))
	if got := temp.logHint(ctx, nd); !strings.Contains(got, "(empty)") {
		t.Errorf("no log: %q", got)
	}
}

// podLogs is a provider that keeps node logs elsewhere (as pods do).
type podLogs struct {
	testnet.Provider
	log []byte
	err error
}

func (p podLogs) LogTail(_ context.Context, _ *testnet.Node, most int) ([]byte, error) {
	return p.log[max(0, len(p.log)-most):], p.err
}

// A provider that keeps the logs (pods) is asked for the log's end, kept
// dir or not: the dir holds none.
func TestLogHintFromTheProvider(t *testing.T) {
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 1\nfull_nodes = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	tn := testnet.New(s.Testnet, "tn-1", t.TempDir(), "127.0.0.1", 30000)
	nd := tn.Nodes[0]
	log := strings.Repeat("height 1 reached\n", 200) + "E panic: the app refused the genesis\n"
	n := &Net{Testnet: tn, State: &testnet.State{Testnet: tn}, Provider: podLogs{log: []byte(log)}}
	got := n.logHint(context.Background(), nd)
	if !strings.HasSuffix(got, "E panic: the app refused the genesis") || strings.Contains(got, "see ") || len(got) > 2100 {
		t.Errorf("%d bytes %q; want the log's last 2 KB from the provider", len(got), got)
	}
	n.Provider = podLogs{err: errors.New("pods \"v0\" not found")}
	if got := n.logHint(context.Background(), nd); !strings.Contains(got, "could not be read") || !strings.Contains(got, "not found") {
		t.Errorf("unreadable log: %q", got)
	}
	n.Provider = podLogs{}
	if got := n.logHint(context.Background(), nd); !strings.Contains(got, "(empty)") {
		t.Errorf("empty log: %q", got)
	}
}
