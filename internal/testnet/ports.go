package testnet

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// FirstAutoPort is where the automatic port search starts, unless
// CHAINPERF_FIRST_PORT says otherwise (FirstPort).
const FirstAutoPort = 26600

// FirstPort is where this process's automatic port search starts:
// CHAINPERF_FIRST_PORT when set, else FirstAutoPort. Harnesses with
// registries of their own (each with its own port lock) that run at once
// take apart ranges this way: a port is free when probed and bound by its
// node only later, so two searches of one range can both take it.
func FirstPort() (int, error) {
	v := os.Getenv("CHAINPERF_FIRST_PORT")
	if v == "" {
		return FirstAutoPort, nil
	}
	p, err := strconv.Atoi(v)
	if err != nil || p < 1024 || p > 64000 {
		return 0, fmt.Errorf("CHAINPERF_FIRST_PORT=%q: want a port from 1024 to 64000", v)
	}
	return p, nil
}

// LockPorts takes the machine-wide lock that port allocation and the first
// save of a testnet's state hold together, so that two testnets starting at
// once never pick the same ports. Call the returned func to release it.
func LockPorts() (func(), error) {
	if err := MakeRegistry(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(RegistryDir(), ".ports.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("port lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("port lock: %w", err)
	}
	return func() { f.Close() }, nil
}

// AllocatePorts returns the first port of a block of count free ports on
// host. With base > 0 that block must be free, else it is an error naming
// the port in use; with base 0 blocks from FirstPort up are tried. Ports
// held by registered testnets count as taken even if nothing listens yet.
func AllocatePorts(host string, base, count int) (int, error) {
	held := map[int]bool{}
	states, _ := Registered()
	for _, s := range states {
		for _, n := range s.Nodes {
			for _, p := range n.Ports.All() {
				held[p] = true
			}
		}
	}
	if base > 0 {
		if p, ok := firstTaken(host, base, count, held); ok {
			return 0, fmt.Errorf("port %d on %s is in use (testnet.base_port = %d needs %d ports from there): set another base_port or 0 for automatic", p, host, base, count)
		}
		return base, nil
	}
	first, err := FirstPort()
	if err != nil {
		return 0, err
	}
	for b := first; b+count <= 65000; {
		p, ok := firstTaken(host, b, count, held)
		if !ok {
			return b, nil
		}
		b = p + 1
	}
	return 0, fmt.Errorf("no block of %d free ports on %s from %d up", count, host, first)
}

func firstTaken(host string, base, count int, held map[int]bool) (int, bool) {
	for p := base; p < base+count; p++ {
		if held[p] || !free(host, p) {
			return p, true
		}
	}
	return 0, false
}

func free(host string, port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
