package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/observe"
)

// Samples records one round of node samples in one transaction, many
// rows an INSERT: a round is a few hundred samples, and one statement a
// row cost the harness more CPU than anything but the block follower
// (modernc's SQLite runs each Exec through its whole VM).
func (s *Store) Samples(ctx context.Context, runID string, samples []observe.Sample) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmts := map[int]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	args := make([]any, 0, 5*samplesPerInsert)
	for rest := samples; len(rest) > 0; {
		n := min(len(rest), samplesPerInsert)
		st := stmts[n]
		if st == nil {
			q := `INSERT INTO node_series (run_id, node, series, at, value) VALUES (?, ?, ?, ?, ?)` + strings.Repeat(`, (?, ?, ?, ?, ?)`, n-1)
			if st, err = tx.PrepareContext(ctx, s.q(q)); err != nil {
				return err
			}
			stmts[n] = st
		}
		args = args[:0]
		for _, x := range rest[:n] {
			args = append(args, runID, x.Node, x.Series, ts(x.At), x.Value)
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("record samples of %s: %w", runID, err)
		}
		rest = rest[n:]
	}
	return tx.Commit()
}

// samplesPerInsert is the rows of one INSERT: 5 parameters each, well
// under SQLite's 32,766 and PostgreSQL's 65,535 parameters a statement.
const samplesPerInsert = 200

// Series returns a run's node samples in time order.
func (s *Store) Series(ctx context.Context, runID string) ([]observe.Sample, error) {
	return s.series(ctx, `SELECT node, series, at, value FROM node_series WHERE run_id = ? ORDER BY at, node, series`, runID)
}

// SeriesBetween returns a run's node samples from from to to (both
// included) in time order: what a window's figures need, without reading
// a long run's every sample into memory.
func (s *Store) SeriesBetween(ctx context.Context, runID string, from, to time.Time) ([]observe.Sample, error) {
	return s.series(ctx, `SELECT node, series, at, value FROM node_series WHERE run_id = ? AND at >= ? AND at <= ? ORDER BY at, node, series`, runID, ts(from), ts(to))
}

func (s *Store) series(ctx context.Context, query string, args ...any) ([]observe.Sample, error) {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []observe.Sample
	for rows.Next() {
		var x observe.Sample
		var at string
		if err := rows.Scan(&x.Node, &x.Series, &at, &x.Value); err != nil {
			return nil, err
		}
		x.At, _ = time.Parse(timeFormat, at)
		out = append(out, x)
	}
	return out, rows.Err()
}

// Profile records a captured profile: where its file is and its top list.
func (s *Store) Profile(ctx context.Context, runID string, p *observe.Profile) error {
	top, err := json.Marshal(p.Top)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, s.q(`INSERT INTO profiles (run_id, node, kind, at, file, value_type, top) VALUES (?, ?, ?, ?, ?, ?, ?)`),
		runID, p.Node, p.Kind, ts(p.At), p.File, p.Value, string(top))
	return err
}

// Profiles returns a run's captured profiles in capture order.
func (s *Store) Profiles(ctx context.Context, runID string) ([]observe.Profile, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT node, kind, at, file, value_type, top FROM profiles WHERE run_id = ? ORDER BY at`), runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []observe.Profile
	for rows.Next() {
		var p observe.Profile
		var at, top string
		if err := rows.Scan(&p.Node, &p.Kind, &at, &p.File, &p.Value, &top); err != nil {
			return nil, err
		}
		p.At, _ = time.Parse(timeFormat, at)
		if err := json.Unmarshal([]byte(top), &p.Top); err != nil {
			return nil, fmt.Errorf("profile of run %s: stored top list unreadable: %w", runID, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Events returns a run's events in time order.
func (s *Store) Events(ctx context.Context, runID string) ([]Event, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT at, kind, detail FROM events WHERE run_id = ? ORDER BY at`), runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var at string
		if err := rows.Scan(&at, &e.Kind, &e.Detail); err != nil {
			return nil, err
		}
		e.At, _ = time.Parse(timeFormat, at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// An Event is something that happened during a run: a phase change, a
// fault, a node whose metrics stopped answering.
type Event struct {
	At     time.Time `json:"at"`
	Kind   string    `json:"kind"`
	Detail string    `json:"detail"`
}
