package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// The wait for a height, on a made-up clock: each case is what the nodes
// answered at which second, and what WaitHeight decides after it.
func TestClimb(t *testing.T) {
	type obs struct {
		at   int // seconds after the wait began
		node string
		h    int64
	}
	for _, tc := range []struct {
		name    string
		seen    []obs
		at      int // when the decision is read
		done    bool
		stalled bool
		lowest  string
	}{
		{"no answer yet", nil, 5, false, false, "a"},
		{"no answer for longer than stall", nil, 11, false, true, "a"},
		{"both at the target", []obs{{1, "a", 5}, {1, "b", 6}}, 2, true, false, "a"},
		{"one short of it", []obs{{1, "a", 5}, {1, "b", 4}}, 2, false, false, "b"},
		{"one rising keeps the wait alive", []obs{{1, "a", 3}, {1, "b", 1}, {9, "a", 4}}, 18, false, false, "b"},
		{"the same height again is no rise", []obs{{1, "a", 3}, {1, "b", 1}, {9, "a", 3}, {9, "b", 1}}, 12, false, true, "b"},
		{"a height going down is no rise", []obs{{1, "a", 3}, {1, "b", 2}, {9, "a", 2}}, 12, false, true, "b"},
	} {
		t0 := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
		at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
		c := newClimb(5, 10*time.Second, t0)
		for _, o := range tc.seen {
			c.saw(at(o.at), o.node, o.h)
		}
		nodes := []string{"a", "b"}
		if c.done(nodes) != tc.done || c.stalled(at(tc.at)) != tc.stalled || c.lowest(nodes) != tc.lowest {
			t.Errorf("%s: done %v stalled %v lowest %s; want %v %v %s", tc.name, c.done(nodes), c.stalled(at(tc.at)), c.lowest(nodes), tc.done, tc.stalled, tc.lowest)
		}
	}
}

// A node that panicked fills the end of its log with the stack trace: the
// cause, above it, is what the user needs first.
func TestPanickedNamesTheCause(t *testing.T) {
	log := "INF starting\npanic: first\n" + "panic: failed to execute DeliverTx for '{" + strings.Repeat("x", 2000) + "}': insufficient fee\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:13 +0x32\n"
	got := panicked([]byte(log))
	if !strings.HasPrefix(got, "it stopped with panic: failed to execute DeliverTx") || !strings.HasSuffix(got, "}': insufficient fee\n") {
		t.Errorf("got %q", got)
	}
	if n := len([]rune(got)); n > 700 {
		t.Errorf("%d runes: the line should be cut", n)
	}
	if got := panicked([]byte("fatal error: concurrent map writes\n\x1b[31mgoroutine 7")); got != "it stopped with fatal error: concurrent map writes\n" {
		t.Errorf("got %q", got)
	}
	if got := panicked([]byte("ERR something went wrong\nexit\n")); got != "" {
		t.Errorf("a log with no panic: got %q", got)
	}
	if got := panicked([]byte("panic: \x1b]0;title\x07 bad")); strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("control characters printed: %q", got)
	}
}
