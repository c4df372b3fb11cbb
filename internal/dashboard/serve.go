package dashboard

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultAddr is where the dashboard listens unless told otherwise: this
// machine only.
const DefaultAddr = "127.0.0.1:8080"

// Serve serves the dashboard on l until ctx ends, then shuts down.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{
		Handler:           onlyHosts(l.Addr(), s.Handler()),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	// Read every run's figures now, not at the first visitor's request.
	go s.index.rows(ctx)
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

// onlyHosts refuses a request whose Host header does not name the
// loopback address the dashboard listens on (DNS rebinding: a page from
// another site whose name a resolver points at 127.0.0.1 would otherwise
// read the dashboard through the user's browser). A dashboard that listens
// beyond this machine (--allow-remote) takes any Host: it has chosen to
// be reached by names it cannot know.
func onlyHosts(addr net.Addr, next http.Handler) http.Handler {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return next
	}
	port := strconv.Itoa(tcp.Port)
	allowed := map[string]bool{}
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]", tcp.IP.String()} {
		allowed[h+":"+port] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed[strings.ToLower(r.Host)] {
			http.Error(w, "the dashboard answers only to its own address (http://127.0.0.1:"+port+"/ or http://localhost:"+port+"/)", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}
