package process_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet/process"
	"github.com/chainperf/chainperf/internal/testnet/providertest"
)

// The process provider passes the checks every provider passes, on real
// CometBFT nodes (the chainperf binary re-executed as `chainperf node`).
func TestProcessConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("real nodes")
	}
	exe := providertest.Chainperf(t)
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 4\nfull_nodes = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	tn := providertest.Testnet(t, s.Testnet)
	p := process.New(tn, exe)
	providertest.Setup(t, tn)
	providertest.Conformance(t, providertest.Subject{Provider: p, Testnet: tn, Patience: 30 * time.Second, Block: 1300 * time.Millisecond,
		Gone: func(t *testing.T) { providertest.NoProcessUnder(t, tn.Dir) }})
}

// The nodes run testnet.node_nice below the harness, every thread of
// them (a node started with 0 runs at the harness's own nice).
func TestNodesRunBelowTheHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("real nodes")
	}
	exe := providertest.Chainperf(t)
	own := niceOf(t, os.Getpid())
	for _, want := range []int{5, 0} {
		s, err := scenario.Parse("t.toml", []byte(fmt.Sprintf("[testnet]\nvalidators = 1\nfull_nodes = 0\nnode_nice = %d\n", want)))
		if err != nil {
			t.Fatal(err)
		}
		tn := providertest.Testnet(t, s.Testnet)
		p := process.New(tn, exe)
		providertest.Setup(t, tn)
		n := tn.Nodes[0]
		if err := p.Start(context.Background(), n); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond) // its threads started
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", n.PID))
		for _, task := range tasks {
			tid, _ := strconv.Atoi(task.Name())
			if got := niceOf(t, tid); got != min(19, own+want) {
				t.Errorf("node_nice %d: thread %d of the node at nice %d; want %d (the harness at %d)", want, tid, got, min(19, own+want), own)
			}
		}
		if len(tasks) < 2 {
			t.Errorf("node_nice %d: %d threads read", want, len(tasks))
		}
		if err := p.Stop(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
}

// niceOf is a thread's or process's nice (field 19 of its stat).
func niceOf(t *testing.T, id int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", id))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command's closing parenthesis: state is field 3.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	nice, err := strconv.Atoi(f[16])
	if err != nil {
		t.Fatal(err)
	}
	return nice
}
