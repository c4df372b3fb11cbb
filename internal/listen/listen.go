// Package listen opens the TCP listeners of chainperf's own servers (the
// dashboard, the live metrics): this machine only unless asked, with
// errors that name the flag and say what to do.
package listen

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// Open listens on addr, which flag set. An address other machines can
// reach needs remote; then warning says so, for the user to see.
func Open(flag, addr string, remote bool) (l net.Listener, warning string, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("%s %q: write HOST:PORT, e.g. 127.0.0.1:8080", flag, addr)
	}
	loopback := host == "localhost"
	if ip := net.ParseIP(host); ip != nil {
		loopback = ip.IsLoopback()
	}
	if !loopback {
		if !remote {
			return nil, "", fmt.Errorf("%s %s can be reached from other machines and has no login: add --allow-remote if that is what you want", flag, addr)
		}
		warning = fmt.Sprintf("warning: %s %s is open to every machine that can reach it, with no login", flag, addr)
	}
	l, err = net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, "", fmt.Errorf("%s %s is taken by another program: choose another port", flag, addr)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w", flag, addr, err)
	}
	return l, warning, nil
}
