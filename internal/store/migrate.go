package store

import (
	"context"
	"fmt"
)

// migrations are applied in order; the schema version is how many ran.
// Never edit a released one: add the next.
var migrations = [][]string{
	1: {
		`CREATE TABLE runs (
			id            TEXT PRIMARY KEY,
			scenario      TEXT NOT NULL,
			scenario_text TEXT NOT NULL,
			status        TEXT NOT NULL,
			error         TEXT NOT NULL DEFAULT '',
			started_at    TEXT NOT NULL,
			ended_at      TEXT NOT NULL DEFAULT '',
			harness_pid   BIGINT NOT NULL DEFAULT 0,
			harness_start BIGINT NOT NULL DEFAULT 0,
			harness_host  TEXT NOT NULL DEFAULT '',
			passed        BOOLEAN,
			record        TEXT NOT NULL DEFAULT '{}'
		)`,
		`CREATE INDEX runs_started ON runs (started_at)`,
		`CREATE TABLE run_labels (
			run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
			key    TEXT NOT NULL,
			value  TEXT NOT NULL,
			PRIMARY KEY (run_id, key)
		)`,
		`CREATE TABLE events (
			run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
			at     TEXT NOT NULL,
			kind   TEXT NOT NULL,
			detail TEXT NOT NULL DEFAULT ''
		)`,
		`CREATE TABLE blocks (
			run_id   TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
			phase    INTEGER NOT NULL,
			height   BIGINT NOT NULL,
			time     TEXT NOT NULL,
			seen     TEXT NOT NULL,
			txs      INTEGER NOT NULL,
			ours     INTEGER NOT NULL,
			failed   INTEGER NOT NULL,
			bytes    INTEGER NOT NULL,
			round    INTEGER NOT NULL,
			proposer TEXT NOT NULL,
			PRIMARY KEY (run_id, phase, height)
		)`,
		`CREATE TABLE seconds (
			run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
			phase      INTEGER NOT NULL,
			second     INTEGER NOT NULL,
			sent       BIGINT NOT NULL,
			accepted   BIGINT NOT NULL,
			rejected   BIGINT NOT NULL,
			send_error BIGINT NOT NULL,
			committed  BIGINT NOT NULL,
			PRIMARY KEY (run_id, phase, second)
		)`,
	},
	2: {
		// Node series: Prometheus scrapes and /proc samples, one row a
		// value (node "machine" for load1, "chainperf" for the harness).
		`CREATE TABLE node_series (
			run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
			node   TEXT NOT NULL,
			series TEXT NOT NULL,
			at     TEXT NOT NULL,
			value  DOUBLE PRECISION NOT NULL
		)`,
		`ALTER TABLE blocks ADD COLUMN latency_mean DOUBLE PRECISION NOT NULL DEFAULT 0`,
		`ALTER TABLE blocks ADD COLUMN latency_max DOUBLE PRECISION NOT NULL DEFAULT 0`,
		`CREATE INDEX node_series_run ON node_series (run_id, series, node, at)`,
		`CREATE TABLE profiles (
			run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
			node       TEXT NOT NULL,
			kind       TEXT NOT NULL,
			at         TEXT NOT NULL,
			file       TEXT NOT NULL,
			value_type TEXT NOT NULL,
			top        TEXT NOT NULL
		)`,
	},
	3: {
		// The boot the harness ran in: after a reboot a PID and start
		// time can belong to another process.
		`ALTER TABLE runs ADD COLUMN harness_boot TEXT NOT NULL DEFAULT ''`,
	},
	4: {
		// Node series indexed in the order they are written (a run's
		// rounds, by time), not by series first: each round's few hundred
		// rows went to as many places in the old index, 60 us a row in
		// SQLite against 9 in time order (BenchmarkSamples), the harness's
		// largest cost after the pacer in the default job. Every read of them is
		// a run's, whole or between two times.
		`DROP INDEX node_series_run`,
		`CREATE INDEX node_series_at ON node_series (run_id, at)`,
	},
	5: {
		// A node's samples of one round in one row (encodeRound): a row a
		// value cost 9-19 us each in SQLite, a round of 340 a few ms every
		// second. node_series keeps what earlier builds wrote; both are read.
		`CREATE TABLE node_rounds (
			run_id  TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
			node    TEXT NOT NULL,
			at      TEXT NOT NULL,
			samples TEXT NOT NULL
		)`,
		`CREATE INDEX node_rounds_at ON node_rounds (run_id, at)`,
	},
	6: {
		// Each node's output, gzipped, kept with the run (a testnet's
		// temp dir goes at teardown): size is what the node wrote, text
		// what was kept of it (store.MaxLog).
		`CREATE TABLE node_logs (
			run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
			node   TEXT NOT NULL,
			size   BIGINT NOT NULL,
			kept   BIGINT NOT NULL,
			text   BYTEA NOT NULL,
			PRIMARY KEY (run_id, node)
		)`,
	},
}

// SchemaVersion is the schema this chainperf writes.
var SchemaVersion = len(migrations) - 1

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v)
	if err != nil {
		return fmt.Errorf("schema version: %w", err)
	}
	if v > SchemaVersion {
		return fmt.Errorf("written by a newer chainperf (schema version %d; this one knows up to %d): upgrade chainperf or use another database", v, SchemaVersion)
	}
	for next := v + 1; next <= SchemaVersion; next++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for _, stmt := range migrations[next] {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				tx.Rollback()
				return fmt.Errorf("migration %d: %w", next, err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_version (version) VALUES (?)`), next); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: %w", next, err)
		}
	}
	return nil
}
