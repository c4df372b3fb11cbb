package main

import (
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/dashboard"
	"github.com/chainperf/chainperf/internal/listen"
	"github.com/chainperf/chainperf/internal/store"
)

func serveCmd() *cobra.Command {
	var addr string
	var remote bool
	cmd := &cobra.Command{
		Use:     "serve [--addr 127.0.0.1:8080]",
		Short:   "Serve the web dashboard over the results database (read-only)",
		Example: `  chainperf serve --addr 127.0.0.1:8080`,
		Long: `serve opens the results database read-only and serves the dashboard:
every run (filter, sort, pages), one run with its charts (updated live
while it goes), comparisons with compare's verdicts, and trends of a
figure across runs. It changes nothing in the database. It listens on
this machine only unless --allow-remote is given with another address.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := store.OpenReadOnly(cmd.Context(), store.Locate(dbFlag))
			if err != nil {
				return err
			}
			defer st.Close()
			srv, err := dashboard.New(st, slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil)))
			if err != nil {
				return err
			}
			l, warning, err := listen.Open("--addr", addr, remote)
			if err != nil {
				return err
			}
			if warning != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), warning)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "dashboard of %s on http://%s/ (Ctrl-C ends it)\n", st.Where(), l.Addr())
			return srv.Serve(cmd.Context(), l)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", dashboard.DefaultAddr, "address to listen on")
	cmd.Flags().BoolVar(&remote, "allow-remote", false, "allow an --addr other machines can reach (the dashboard has no login)")
	return cmd
}
