package dashboard

import (
	"context"
	"net"
	"net/http"
	"time"
)

// DefaultAddr is where the dashboard listens unless told otherwise: this
// machine only.
const DefaultAddr = "127.0.0.1:8080"

// Serve serves the dashboard on l until ctx ends, then shuts down.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
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
