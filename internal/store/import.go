package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/chainperf/chainperf/internal/results"
)

// Import copies run id, and everything recorded with it (events, blocks,
// node samples, profiles), from another store into s: a run a harness
// made elsewhere (in a cluster) lands in the caller's database as if it
// had run here. file renames the paths of the run's report dir and
// profile files (where they were copied to). The run must have ended; a
// run of that ID here already is refused. On error nothing of it stays.
func (s *Store) Import(ctx context.Context, from *Store, id string, file func(string) string) (err error) {
	r, err := from.Run(ctx, id)
	if err != nil {
		return err
	}
	if r.Status == results.StatusRunning {
		return fmt.Errorf("run %s has not ended: nothing to import yet", id)
	}
	if _, err := s.Run(ctx, id); err == nil {
		return fmt.Errorf("run %s is in %s already", id, s.Where())
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	events, err := from.Events(ctx, id)
	if err != nil {
		return err
	}
	series, err := from.Series(ctx, id)
	if err != nil {
		return err
	}
	profiles, err := from.Profiles(ctx, id)
	if err != nil {
		return err
	}
	if err := s.Begin(ctx, r, Owner{Host: r.Host.Hostname}); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			s.release(id)
			_ = s.Delete(context.WithoutCancel(ctx), id)
		}
	}()
	for _, e := range events {
		if _, err := s.db.ExecContext(ctx, s.q(`INSERT INTO events (run_id, at, kind, detail) VALUES (?, ?, ?, ?)`), id, ts(e.At), e.Kind, e.Detail); err != nil {
			return err
		}
	}
	for phase, p := range r.Phases {
		for _, b := range p.Blocks {
			if err := s.Block(ctx, id, phase, b); err != nil {
				return err
			}
		}
	}
	if err := s.Samples(ctx, id, series); err != nil {
		return err
	}
	for i := range profiles {
		profiles[i].File = file(profiles[i].File)
		if err := s.Profile(ctx, id, &profiles[i]); err != nil {
			return err
		}
	}
	for i := range r.Profiles {
		r.Profiles[i].File = file(r.Profiles[i].File)
	}
	if r.ReportDir != "" {
		r.ReportDir = file(r.ReportDir)
	}
	return s.Finish(ctx, r)
}
