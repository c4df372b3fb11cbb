package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/observe"
)

// Samples records one round of node samples in one transaction: a row a
// node and time (most rounds are a row a node), many rows an INSERT.
// A row a value cost the harness more CPU than anything but the pacer
// in the default job (modernc's SQLite runs each row through its whole VM).
func (s *Store) Samples(ctx context.Context, runID string, samples []observe.Sample) error {
	type key struct {
		node string
		at   time.Time
	}
	var keys []key
	rounds := map[key][]sampleValue{}
	for _, x := range samples {
		k := key{x.Node, x.At.UTC()}
		if _, ok := rounds[k]; !ok {
			keys = append(keys, k)
		}
		rounds[k] = append(rounds[k], sampleValue{x.Series, x.Value})
	}
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
	args := make([]any, 0, 4*roundsPerInsert)
	var text []byte
	for rest := keys; len(rest) > 0; {
		n := min(len(rest), roundsPerInsert)
		st := stmts[n]
		if st == nil {
			q := `INSERT INTO node_rounds (run_id, node, at, samples) VALUES (?, ?, ?, ?)` + strings.Repeat(`, (?, ?, ?, ?)`, n-1)
			if st, err = tx.PrepareContext(ctx, s.q(q)); err != nil {
				return err
			}
			stmts[n] = st
		}
		args = args[:0]
		for _, k := range rest[:n] {
			text = encodeRound(text[:0], rounds[k])
			args = append(args, runID, k.node, ts(k.at), string(text))
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("record samples of %s: %w", runID, err)
		}
		rest = rest[n:]
	}
	return tx.Commit()
}

// roundsPerInsert is the rows of one INSERT: 4 parameters each, well
// under SQLite's 32,766 and PostgreSQL's 65,535 parameters a statement.
const roundsPerInsert = 200

// Series returns a run's node samples in time order.
func (s *Store) Series(ctx context.Context, runID string) ([]observe.Sample, error) {
	return s.series(ctx, "run_id = ?", runID)
}

// SeriesBetween returns a run's node samples from from to to (both
// included) in time order: what a window's figures need, without reading
// a long run's every sample into memory.
func (s *Store) SeriesBetween(ctx context.Context, runID string, from, to time.Time) ([]observe.Sample, error) {
	return s.series(ctx, "run_id = ? AND at >= ? AND at <= ?", runID, ts(from), ts(to))
}

// series reads the samples where says, from node_rounds and from the
// row-a-value node_series earlier builds wrote, in time order (then by
// node and series).
func (s *Store) series(ctx context.Context, where string, args ...any) ([]observe.Sample, error) {
	var out []observe.Sample
	err := s.each(ctx, `SELECT node, at, samples FROM node_rounds WHERE `+where, args, func(rows *sql.Rows) error {
		var node, at, text string
		if err := rows.Scan(&node, &at, &text); err != nil {
			return err
		}
		t, _ := time.Parse(timeFormat, at)
		if err := decodeRound(text, func(series string, v float64) {
			out = append(out, observe.Sample{At: t, Node: node, Series: series, Value: v})
		}); err != nil {
			return fmt.Errorf("stored samples of %s at %s unreadable: %w", node, at, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.each(ctx, `SELECT node, series, at, value FROM node_series WHERE `+where, args, func(rows *sql.Rows) error {
		var x observe.Sample
		var at string
		if err := rows.Scan(&x.Node, &x.Series, &at, &x.Value); err != nil {
			return err
		}
		x.At, _ = time.Parse(timeFormat, at)
		out = append(out, x)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b observe.Sample) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Node, b.Node), cmp.Compare(a.Series, b.Series))
	})
	return out, nil
}

// each runs query and calls row for each row it returns.
func (s *Store) each(ctx context.Context, query string, args []any, row func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// SeriesCSV writes a run's node samples as CSV records through w: a
// header, then at (RFC 3339, nanoseconds), node, series, value, in time
// order.
func (s *Store) SeriesCSV(ctx context.Context, id string, w func(record []string) error) error {
	series, err := s.Series(ctx, id)
	if err != nil {
		return err
	}
	if err := w([]string{"at", "node", "series", "value"}); err != nil {
		return err
	}
	for _, x := range series {
		if err := w([]string{ts(x.At), x.Node, x.Series, strconv.FormatFloat(x.Value, 'g', -1, 64)}); err != nil {
			return err
		}
	}
	return nil
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
