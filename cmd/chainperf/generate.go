package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"

	"github.com/chainperf/chainperf/internal/experiment"
)

func generateCmd() *cobra.Command {
	var specFile, specDir string
	cmd := &cobra.Command{
		Use:    "generate --spec FILE | --spec-dir DIR",
		Short:  "Send one generator's share of a phase (in a generator pod) and print its ledger as JSON",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if specDir != "" {
				// A pod of an indexed Job: its spec by its index.
				specFile = filepath.Join(specDir, "spec-"+os.Getenv("JOB_COMPLETION_INDEX")+".json")
			}
			data, err := os.ReadFile(specFile)
			if err != nil {
				return err
			}
			var spec experiment.GeneratorSpec
			if err := json.Unmarshal(data, &spec); err != nil {
				return fmt.Errorf("%s: %w", specFile, err)
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			// A line a second while it runs, for the coordinator's live view.
			enc := json.NewEncoder(cmd.OutOrStdout())
			var mu sync.Mutex // the last "load" second and the first "drain" one may come at once
			live := func(g experiment.GeneratorLive) { mu.Lock(); _ = enc.Encode(g); mu.Unlock() }
			res, err := experiment.RunGenerator(cmd.Context(), spec, log, live)
			if err != nil {
				return err
			}
			out, err := json.Marshal(res)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", out)
			return err
		},
	}
	cmd.Flags().StringVar(&specFile, "spec", "", "the generator's spec (JSON)")
	cmd.Flags().StringVar(&specDir, "spec-dir", "", "dir of specs spec-INDEX.json, INDEX from $JOB_COMPLETION_INDEX")
	return cmd
}
