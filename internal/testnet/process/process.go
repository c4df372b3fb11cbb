// Package process is the provider that runs every node as a local OS
// process listening on 127.0.0.1. Nodes get their own process group (so a
// Ctrl-C on the terminal reaches only the harness, which tears down in
// order) and, unless detached, a parent-death signal so that they die with
// the harness even when it is SIGKILLed.
package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chainperf/chainperf/internal/testnet"
)

// Host is the address every node of this provider listens on.
const Host = "127.0.0.1"

// StopTimeout is how long Stop waits after SIGTERM before SIGKILL.
const StopTimeout = 10 * time.Second

// A Provider runs the nodes of one testnet as local processes.
type Provider struct {
	net    *testnet.Testnet
	exe    string // the chainperf binary, re-executed as `chainperf node`
	detach bool
	log    *slog.Logger

	mu    sync.Mutex
	procs map[string]*proc // by node name
	// wrap, if set, is a command prefix for a node (the netns provider
	// execs each node in its namespace).
	wrap func(*testnet.Node) []string
}

type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // exit status, valid after done
}

var (
	_ testnet.Provider      = (*Provider)(nil)
	_ testnet.Killer        = (*Provider)(nil)
	_ testnet.Pauser        = (*Provider)(nil)
	_ testnet.ProcessLister = (*Provider)(nil)
)

// An Option configures a Provider.
type Option func(*Provider)

// Detached makes nodes outlive the harness: no parent-death signal.
func Detached() Option { return func(p *Provider) { p.detach = true } }

// Wrapped runs each node's command behind the prefix wrap returns for it
// (e.g. `ip netns exec NS`).
func Wrapped(wrap func(*testnet.Node) []string) Option { return func(p *Provider) { p.wrap = wrap } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option {
	return func(p *Provider) {
		if l != nil {
			p.log = l
		}
	}
}

// New returns a provider for t. exe is the chainperf binary that runs
// embedded nodes (os.Executable in production, a built binary in tests).
func New(t *testnet.Testnet, exe string, opts ...Option) *Provider {
	p := &Provider{net: t, exe: exe, log: slog.New(slog.DiscardHandler), procs: map[string]*proc{}}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Name is "process".
func (p *Provider) Name() string { return "process" }

// Open has nothing to make: the nodes listen on loopback ports.
func (p *Provider) Open(context.Context) error { return nil }

// Endpoint is n's services on its host and ports.
func (p *Provider) Endpoint(n *testnet.Node) testnet.Endpoint { return n.Endpoint() }

// Start starts each node's process with its log in the testnet's log dir.
func (p *Provider) Start(ctx context.Context, nodes ...*testnet.Node) error {
	for _, n := range nodes {
		if err := p.start(n); err != nil {
			return fmt.Errorf("start %s: %w", n.Name, err)
		}
	}
	return nil
}

func (p *Provider) start(n *testnet.Node) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr, ok := p.procs[n.Name]; ok && !exited(pr) {
		return fmt.Errorf("already running as pid %d", pr.cmd.Process.Pid)
	}
	logf, err := os.OpenFile(filepath.Join(p.net.LogDir(), n.Name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child keeps its own descriptor
	var cmd *exec.Cmd
	if bin, argv := p.net.Exec(n); bin == "" {
		cmd = exec.Command(p.exe, "node", "--home", n.Home)
	} else {
		args := make([]string, len(argv))
		for i, a := range argv {
			args[i] = strings.ReplaceAll(a, "{home}", n.Home)
		}
		cmd = exec.Command(bin, args...)
	}
	if p.wrap != nil {
		wrap := append(p.wrap(n), cmd.Args...)
		cmd = exec.Command(wrap[0], wrap[1:]...)
		if cmd.Err != nil {
			return cmd.Err
		}
	}
	if p.net.NodeNice > 0 {
		// nice execs the rest: the node is this process, every thread of
		// it at the lower priority.
		niced := append([]string{"nice", "-n", strconv.Itoa(p.net.NodeNice)}, cmd.Args...)
		cmd = exec.Command(niced[0], niced[1:]...)
		if cmd.Err != nil {
			return fmt.Errorf("testnet.node_nice: %w (nice, from coreutils, starts the nodes)", cmd.Err)
		}
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if env := p.net.NodeEnv(); len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Dir = n.Home
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if !p.detach {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	pr := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		pr.err = cmd.Wait()
		close(pr.done)
	}()
	p.procs[n.Name] = pr
	n.PID = cmd.Process.Pid
	n.Start, _ = StartTime(n.PID)
	p.log.Info("node started", "node", n.Name, "pid", n.PID)
	return nil
}

func exited(pr *proc) bool {
	select {
	case <-pr.done:
		return true
	default:
		return false
	}
}

// Exited reports whether n's process has ended by itself (a crash, or a
// kill from outside), and with what status. ok is false while it runs or
// when the provider never started it.
func (p *Provider) Exited(n *testnet.Node) (err error, ok bool) {
	p.mu.Lock()
	pr := p.procs[n.Name]
	p.mu.Unlock()
	if pr == nil || !exited(pr) {
		return nil, false
	}
	return pr.err, true
}

// take removes n's process from the provider's care (nil if it has none):
// what ends it next is the harness's doing, not a crash.
func (p *Provider) take(n *testnet.Node) *proc {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := p.procs[n.Name]
	delete(p.procs, n.Name)
	return pr
}

// Stop sends SIGTERM to each node's process group, then SIGKILL to those
// still running after StopTimeout (or when ctx ends).
func (p *Provider) Stop(ctx context.Context, nodes ...*testnet.Node) error {
	var wg sync.WaitGroup
	for _, n := range nodes {
		pr := p.take(n)
		if pr == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			terminate(ctx, pr.cmd.Process.Pid, pr.done)
			n.PID, n.Start = 0, 0
			p.log.Info("node stopped", "node", n.Name)
		}()
	}
	wg.Wait()
	return nil
}

// Kill ends each node's process group with SIGKILL at once, as a crash
// would; the node can be started again. A killed node is not reported by
// Exited: the harness did it.
func (p *Provider) Kill(_ context.Context, nodes ...*testnet.Node) error {
	for _, n := range nodes {
		pr := p.take(n)
		if pr == nil {
			continue
		}
		_ = syscall.Kill(-pr.cmd.Process.Pid, syscall.SIGKILL)
		<-pr.done
		n.PID, n.Start = 0, 0
		p.log.Info("node killed", "node", n.Name)
	}
	return nil
}

// Pause stops each node's process group (SIGSTOP): the process stays, but
// neither reads nor writes its sockets.
func (p *Provider) Pause(_ context.Context, nodes ...*testnet.Node) error {
	return p.signal(true, nodes)
}

// Resume lets paused nodes go on (SIGCONT).
func (p *Provider) Resume(_ context.Context, nodes ...*testnet.Node) error {
	return p.signal(false, nodes)
}

func (p *Provider) signal(pause bool, nodes []*testnet.Node) error {
	sig := syscall.SIGCONT
	if pause {
		sig = syscall.SIGSTOP
	}
	for _, n := range nodes {
		p.mu.Lock()
		pr := p.procs[n.Name]
		p.mu.Unlock()
		if pr == nil || exited(pr) {
			return fmt.Errorf("%s does not run", n.Name)
		}
		if err := syscall.Kill(-pr.cmd.Process.Pid, sig); err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
	}
	return nil
}

// PID returns the PID of n's process, 0 when it does not run.
func (p *Provider) PID(n *testnet.Node) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr := p.procs[n.Name]; pr != nil && !exited(pr) {
		return pr.cmd.Process.Pid
	}
	return 0
}

// terminate ends the process group led by pid: SIGTERM, then SIGKILL after
// StopTimeout. done closes when the process has exited.
func terminate(ctx context.Context, pid int, done <-chan struct{}) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	_ = syscall.Kill(-pid, syscall.SIGCONT) // a paused node must wake to die
	t := time.NewTimer(StopTimeout)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	case <-ctx.Done():
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-done
}

// Close stops every node the provider started.
func (p *Provider) Close(ctx context.Context) error {
	return p.Stop(ctx, p.net.Nodes...)
}

// StartTime returns the start time of process pid in clock ticks since
// boot (field 22 of /proc/PID/stat), which tells a process from a later one
// that reuses its PID.
func StartTime(pid int) (uint64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; fields after it are plain.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("unreadable /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, errors.New("short /proc stat")
	}
	var v uint64
	_, err = fmt.Sscan(f[19], &v)
	return v, err
}

// Alive reports whether the process pid that started at start still runs
// (a zombie counts as gone).
func Alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	st, err := StartTime(pid)
	if err != nil || st != start {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// StopRecorded ends the node processes a state file records, for a testnet
// whose harness is gone. Only a process whose PID and start time both match
// the record is signalled, so a reused PID is never hit.
func StopRecorded(ctx context.Context, st *testnet.State) (stopped int) {
	var live []*testnet.Node
	for _, n := range st.Nodes {
		if Alive(n.PID, n.Start) && Runs(n.PID, n.Home) {
			_ = syscall.Kill(-n.PID, syscall.SIGTERM)
			_ = syscall.Kill(-n.PID, syscall.SIGCONT)
			live = append(live, n)
		}
	}
	deadline := time.Now().Add(StopTimeout)
	for _, n := range live {
		for Alive(n.PID, n.Start) && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
		}
		if Alive(n.PID, n.Start) {
			_ = syscall.Kill(-n.PID, syscall.SIGKILL)
		}
		for i := 0; Alive(n.PID, n.Start) && i < 100; i++ {
			time.Sleep(20 * time.Millisecond)
		}
		n.PID, n.Start = 0, 0
	}
	return len(live)
}

// Runs reports whether process pid's command line holds want (a node's
// home, "chainperf"): with the start time, what says a recorded PID is
// still the process it was, and not another one a crafted file names.
func Runs(pid int, want string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && want != "" && bytes.Contains(cmdline, []byte(want))
}

// HarnessAlive reports whether the harness that owns st still runs.
func HarnessAlive(st *testnet.State) bool {
	return !st.Detached && Alive(st.HarnessPID, st.HarnessStart)
}

// AnyAlive reports whether a node st records still runs.
func AnyAlive(st *testnet.State) bool {
	for _, n := range st.Nodes {
		if Alive(n.PID, n.Start) {
			return true
		}
	}
	return false
}
