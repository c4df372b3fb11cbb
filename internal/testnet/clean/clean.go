// Package clean takes down what a testnet left when its harness is gone:
// the processes a state file records (only while their identity still
// matches), its namespaces, its dirs, its registry entry.
package clean

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/chainperf/chainperf/internal/files"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes"
	"github.com/chainperf/chainperf/internal/testnet/netns"
	"github.com/chainperf/chainperf/internal/testnet/process"
)

// Down takes down the testnet recorded in dir. A testnet owned by a running
// foreground harness is handed to that harness (SIGINT) so that it tears
// down in order; otherwise the recorded processes are ended here. The node
// homes and the state go; logs stay unless chainperf made the dir.
func Down(ctx context.Context, dir string) error {
	st, err := testnet.ReadState(dir)
	if err != nil {
		return err
	}
	if process.HarnessAlive(st) && process.Runs(st.HarnessPID, "chainperf") {
		_ = syscall.Kill(st.HarnessPID, syscall.SIGINT)
		for i := 0; i < 300 && process.Alive(st.HarnessPID, st.HarnessStart); i++ {
			time.Sleep(100 * time.Millisecond)
		}
		if process.Alive(st.HarnessPID, st.HarnessStart) {
			return fmt.Errorf("harness pid %d did not end within 30s", st.HarnessPID)
		}
		if _, err := testnet.ReadState(dir); err != nil {
			return nil // the harness cleaned up
		}
	}
	process.StopRecorded(ctx, st)
	return Remove(st)
}

// Remove deletes what a stopped testnet left on disk: the whole dir when
// chainperf made it, else the node homes; then the state and registry entry.
// Nothing outside the dir is removed: a symlink in any component of what
// it removes is removed as a link or refused, and the refusal returned.
func Remove(st *testnet.State) error {
	var errs []error
	if st.Network != nil {
		_ = netns.Remove(context.Background(), st.Network.Tag)
	}
	if st.Cluster != nil {
		_ = kubernetes.Remove(context.Background(), *st.Cluster, st.ID)
	}
	switch {
	case st.OwnsDir():
		errs = append(errs, files.RemoveBeneath(st.Dir, st.Dir))
	case hasOwnState(st):
		// The homes only, and only while the dir still holds this
		// testnet's state.
		for _, n := range st.Nodes {
			errs = append(errs, files.RemoveBeneath(st.Dir, n.Home))
		}
	}
	st.Forget()
	return errors.Join(errs...)
}

// hasOwnState reports whether st's dir holds a state file of st's testnet.
func hasOwnState(st *testnet.State) bool {
	inDir, err := testnet.ReadState(st.Dir)
	return err == nil && inDir.ID == st.ID
}

// A Leftover is one testnet `Clean` dealt with.
type Leftover struct {
	ID      string
	Dir     string
	Stopped int // node processes ended
}

// Clean removes what killed harnesses left: for every registered testnet
// whose owner is gone, its processes, its temp dir and its registry entry.
// Detached testnets are left alone unless all is set, or unless none of
// their nodes runs any more.
func Clean(ctx context.Context, all bool) ([]Leftover, []error) {
	states, errs := testnet.Registered()
	var out []Leftover
	for _, st := range states {
		if process.HarnessAlive(st) {
			continue
		}
		if st.Detached && !all && process.AnyAlive(st) {
			continue
		}
		out = append(out, Leftover{ID: st.ID, Dir: st.Dir, Stopped: process.StopRecorded(ctx, st)})
		if err := Remove(st); err != nil {
			errs = append(errs, fmt.Errorf("testnet %s: %w", st.ID, err))
		}
	}
	// With all: namespaces no state file of this registry records and in
	// which no process runs (every testnet saves its state before making
	// its namespaces, so these come from another registry or an older
	// chainperf; without all they are left alone).
	if all && os.Geteuid() == 0 {
		known := map[string]bool{}
		for _, st := range states {
			known[testnet.NetworkTag(st.ID)] = true
		}
		nss, err := netns.Namespaces(ctx, "")
		if err != nil {
			errs = append(errs, err)
		}
		for _, ns := range nss {
			tag, _, _ := strings.Cut(ns, "-")
			if known[tag] || netns.Busy(ctx, tag) {
				continue
			}
			known[tag] = true
			if err := netns.Remove(ctx, tag); err != nil {
				errs = append(errs, err)
			}
			out = append(out, Leftover{ID: "tn-" + strings.TrimPrefix(tag, "cp"), Dir: "(network namespaces " + tag + "-*)"})
		}
	}
	// With all: namespaces chainperf made in the cluster of the default
	// kubeconfig (by label) for testnets that no live harness owns.
	if all {
		keep := map[string]bool{}
		for _, st := range states {
			if process.HarnessAlive(st) || st.Detached {
				keep[st.ID] = true
			}
		}
		ids, err := kubernetes.Leftovers(ctx, keep)
		if err != nil {
			errs = append(errs, err)
		}
		for _, id := range ids {
			out = append(out, Leftover{ID: id, Dir: "(Kubernetes namespace " + testnet.ClusterNamespace(id) + ")"})
		}
	}
	return out, errs
}

// Mine tears down, best effort, the foreground testnets this process runs
// (a second Ctrl-C: no time for the orderly way): their recorded processes
// are stopped, their dirs, namespaces and registry entries removed.
func Mine(ctx context.Context) int {
	states, _ := testnet.Registered()
	start, _ := process.StartTime(os.Getpid())
	n := 0
	for _, st := range states {
		if st.Detached || st.HarnessPID != os.Getpid() || st.HarnessStart != start {
			continue
		}
		process.StopRecorded(ctx, st)
		Remove(st)
		n++
	}
	return n
}
