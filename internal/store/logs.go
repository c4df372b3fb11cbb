package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"io"
)

// MaxLog is the most of one node's output a run keeps: its first eighth
// and its end when it wrote more (live.Net.Log), gzipped in the store
// (a node's info-level log compresses about tenfold).
const MaxLog = 8 << 20

// A NodeLog is one node's output kept with a run: Size bytes written,
// Text what was kept of them.
type NodeLog struct {
	Node string
	Size int64
	Text []byte
}

// Log keeps one node's output with run id.
func (s *Store) Log(ctx context.Context, id string, l NodeLog) error {
	if len(l.Text) > MaxLog {
		return fmt.Errorf("log of %s: %d bytes, more than the %d a run keeps", l.Node, len(l.Text), MaxLog)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(l.Text)
	if err := w.Close(); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO node_logs (run_id, node, size, kept, text) VALUES (?, ?, ?, ?, ?)`),
		id, l.Node, l.Size, len(l.Text), z.Bytes())
	return err
}

// Logs returns the node logs kept with run id, by node name (none for a
// run stored before logs were kept, or of an external network).
func (s *Store) Logs(ctx context.Context, id string) ([]NodeLog, error) {
	var out []NodeLog
	err := s.each(ctx, `SELECT node, size, kept, text FROM node_logs WHERE run_id = ? ORDER BY node`, []any{id}, func(rows *sql.Rows) error {
		var l NodeLog
		var kept int64
		var z []byte
		if err := rows.Scan(&l.Node, &l.Size, &kept, &z); err != nil {
			return err
		}
		r, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			return fmt.Errorf("log of %s: %w", l.Node, err)
		}
		// What the store says it holds, and no more: a database is input.
		if l.Text, err = io.ReadAll(io.LimitReader(r, min(kept, MaxLog))); err != nil {
			return fmt.Errorf("log of %s: %w", l.Node, err)
		}
		out = append(out, l)
		return nil
	})
	return out, err
}
