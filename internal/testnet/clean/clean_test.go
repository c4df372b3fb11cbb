package clean

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/process"
)

// A crafted registry entry (as a second local user could once write into
// a shared registry) names an unrelated dir to remove and an unrelated
// process (right PID, right start time) to end: clean removes neither.
func TestCleanTrustsNoCraftedState(t *testing.T) {
	reg := t.TempDir()
	os.Chmod(reg, 0o700)
	t.Setenv("CHAINPERF_REGISTRY", reg)
	victim := t.TempDir()
	os.WriteFile(filepath.Join(victim, "precious"), []byte("x"), 0o644)
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	start, err := process.StartTime(sleeper.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	st := &testnet.State{Testnet: &testnet.Testnet{ID: "tn-0badc0", Dir: victim,
		Nodes: []*testnet.Node{{Name: "validator0", Home: filepath.Join(victim, "validator0"), PID: sleeper.Process.Pid, Start: start}}},
		TempDir: true, HarnessPID: 1, Created: time.Now()}
	data, _ := json.Marshal(st)
	os.WriteFile(filepath.Join(reg, st.ID+".json"), data, 0o600)

	if _, errs := Clean(context.Background(), true); len(errs) != 0 {
		t.Logf("clean errors: %v", errs)
	}
	if _, err := os.Stat(filepath.Join(victim, "precious")); err != nil {
		t.Errorf("clean removed a dir a crafted entry named: %v", err)
	}
	if !process.Alive(sleeper.Process.Pid, start) {
		t.Error("clean ended a process a crafted entry named (its command line holds no node home)")
	}
	// `down --dir D` acts on D's own state only: a file in D naming
	// another dir is refused.
	d := t.TempDir()
	st.Dir = victim
	data, _ = json.Marshal(st)
	os.WriteFile(filepath.Join(d, testnet.StateFile), data, 0o600)
	if err := Down(context.Background(), d); err == nil || !strings.Contains(err.Error(), "names another dir") {
		t.Errorf("down of a dir whose state names another: %v", err)
	}
	if _, err := os.Stat(filepath.Join(victim, "precious")); err != nil {
		t.Errorf("down removed the dir a crafted state named: %v", err)
	}
}

// State files chainperf could not have written are refused when read.
func TestCraftedStatesRefused(t *testing.T) {
	reg := t.TempDir()
	os.Chmod(reg, 0o700)
	t.Setenv("CHAINPERF_REGISTRY", reg)
	dir := t.TempDir()
	for name, st := range map[string]*testnet.State{
		"id":   {Testnet: &testnet.Testnet{ID: "../../etc", Dir: dir}},
		"home": {Testnet: &testnet.Testnet{ID: "tn-000001", Dir: dir, Nodes: []*testnet.Node{{Name: "v", Home: "/etc"}}}},
		"tag":  {Testnet: &testnet.Testnet{ID: "tn-000001", Dir: dir, Network: &testnet.Network{Tag: ""}}},
		// Its own namespace is deleted whole: only chainperf-ID may be named so.
		"namespace": {Testnet: &testnet.Testnet{ID: "tn-000001", Dir: dir, Cluster: &testnet.Cluster{Namespace: "kube-system", OwnNamespace: true}}},
	} {
		data, _ := json.Marshal(st)
		os.WriteFile(filepath.Join(dir, testnet.StateFile), data, 0o600)
		if _, err := testnet.ReadState(dir); err == nil {
			t.Errorf("%s: a crafted state was read", name)
		}
	}
	// The same testnet with its own namespace is read.
	ok := &testnet.State{Testnet: &testnet.Testnet{ID: "tn-000001", Dir: dir, Cluster: &testnet.Cluster{Namespace: "chainperf-000001", OwnNamespace: true}}}
	data, _ := json.Marshal(ok)
	os.WriteFile(filepath.Join(dir, testnet.StateFile), data, 0o600)
	if _, err := testnet.ReadState(dir); err != nil {
		t.Errorf("a testnet in its own namespace: %v", err)
	}
	// A registry others can write is not trusted.
	os.Chmod(reg, 0o777)
	if _, errs := testnet.Registered(); len(errs) == 0 || !strings.Contains(errs[0].Error(), "writable by other users") {
		t.Errorf("a world-writable registry: %v", errs)
	}
	if err := testnet.MakeRegistry(); err == nil {
		t.Error("MakeRegistry accepted a world-writable registry")
	}
	os.Chmod(reg, 0o700)
	if os.Geteuid() == 0 {
		os.Chown(reg, 65534, 65534)
		if err := testnet.MakeRegistry(); err == nil || !strings.Contains(err.Error(), "another user") {
			t.Errorf("a registry of another user: %v", err)
		}
		os.Chown(reg, 0, 0)
	}
}

// A testnet is not set up in a dir holding node folders no state records,
// nor one holding a state file chainperf cannot use.
func TestSetupRefusesForeignDirs(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "validator0"), 0o755)
	os.WriteFile(filepath.Join(dir, "validator0", "data"), []byte("someone's"), 0o644)
	if err := testnet.CheckDir(dir); err == nil || !strings.Contains(err.Error(), "holds validator0/") {
		t.Errorf("node folder: %v", err)
	}
	dir = t.TempDir()
	os.WriteFile(filepath.Join(dir, testnet.StateFile), []byte(`{"id":"../x","dir":"/etc"}`), 0o644)
	if err := testnet.CheckDir(dir); err == nil || !strings.Contains(err.Error(), "cannot use") {
		t.Errorf("foreign state file: %v", err)
	}
	if err := testnet.CheckDir(t.TempDir()); err != nil {
		t.Errorf("an empty dir: %v", err)
	}
}

// A testnet dir crafted with symlinks (a node home that is a link out,
// a home reached through a linked component, a link inside a home):
// `down` removes the links and the real homes, never what they point at,
// and says which path it refused.
func TestDownFollowsNoSymlinkOut(t *testing.T) {
	t.Setenv("CHAINPERF_REGISTRY", t.TempDir())
	precious := t.TempDir()
	os.MkdirAll(filepath.Join(precious, "validator2"), 0o755)
	os.WriteFile(filepath.Join(precious, "keep"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(precious, "validator2", "keep"), []byte("x"), 0o644)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "validator0", "data"), 0o755)
	os.Symlink(precious, filepath.Join(dir, "validator0", "data", "out")) // inside a real home
	os.Symlink(precious, filepath.Join(dir, "validator1"))                // the home is a link
	os.Symlink(precious, filepath.Join(dir, "sub"))                       // a component on the way
	st := &testnet.State{Testnet: &testnet.Testnet{ID: "tn-5e3a1c", Dir: dir, Nodes: []*testnet.Node{
		{Name: "validator0", Home: filepath.Join(dir, "validator0")},
		{Name: "validator1", Home: filepath.Join(dir, "validator1")},
		{Name: "validator2", Home: filepath.Join(dir, "sub", "validator2")},
	}}, Created: time.Now()}
	data, _ := json.Marshal(st)
	os.WriteFile(filepath.Join(dir, testnet.StateFile), data, 0o600)

	err := Down(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "sub", "validator2")) {
		t.Errorf("down through a linked component: %v; want a refusal naming the path", err)
	}
	for _, p := range []string{filepath.Join(precious, "keep"), filepath.Join(precious, "validator2", "keep")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed through a symlink: %v", p, err)
		}
	}
	for _, p := range []string{filepath.Join(dir, "validator0"), filepath.Join(dir, "validator1")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s stayed: %v", p, err)
		}
	}
}
