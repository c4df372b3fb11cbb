package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"
)

// DefaultAddr is where the dashboard listens unless told otherwise: this
// machine only.
const DefaultAddr = "127.0.0.1:8080"

// Listen opens addr for the dashboard. An address other machines can
// reach needs remote (the results may be private, and there is no
// login); then warning says so, for the user to see.
func Listen(addr string, remote bool) (l net.Listener, warning string, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("--addr %q: write HOST:PORT, e.g. %s", addr, DefaultAddr)
	}
	loopback := host == "localhost"
	if ip := net.ParseIP(host); ip != nil {
		loopback = ip.IsLoopback()
	}
	if !loopback {
		if !remote {
			return nil, "", fmt.Errorf("--addr %s can be reached from other machines, and the dashboard has no login: add --allow-remote if that is what you want", addr)
		}
		warning = fmt.Sprintf("warning: the dashboard on %s is open to every machine that can reach it, with no login; anyone there can read every stored run", addr)
	}
	l, err = net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, "", fmt.Errorf("--addr %s is taken by another program: choose another port, e.g. --addr 127.0.0.1:8081", addr)
	}
	if err != nil {
		return nil, "", fmt.Errorf("--addr %s: %w", addr, err)
	}
	return l, warning, nil
}

// Serve serves the dashboard on l until ctx ends, then shuts down.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		<-done
		return nil
	}
}
