package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/secret"
)

const timeFormat = "2006-01-02T15:04:05.000000000Z07:00" // fixed width: sorts as text

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeFormat)
}

// Owner identifies the harness process that writes a run, so that a later
// chainperf can tell a run in progress from one whose harness died.
type Owner struct {
	PID   int
	Start uint64 // process start time, clock ticks since boot
	Host  string
	Boot  string // the kernel's boot ID ("" when not known)
}

// Begin records a new run as running, with its labels.
func (s *Store) Begin(ctx context.Context, r *results.Run, o Owner) error {
	if err := s.reserve(r.ID); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO runs (id, scenario, scenario_text, status, started_at, harness_pid, harness_start, harness_host, harness_boot)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`), r.ID, r.Scenario, secret.Redact(r.Text), string(results.StatusRunning), ts(r.Start), o.PID, int64(o.Start), o.Host, o.Boot); err != nil {
		return fmt.Errorf("record run %s: %w", r.ID, err)
	}
	for k, v := range r.Labels {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO run_labels (run_id, key, value) VALUES (?, ?, ?)`), r.ID, k, secret.Redact(v)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Event records something that happened during a run (a phase change, a
// fault).
func (s *Store) Event(ctx context.Context, runID, kind, detail string) error {
	return s.EventAt(ctx, runID, time.Now(), kind, detail)
}

// EventAt records an event of a run that happened at at.
func (s *Store) EventAt(ctx context.Context, runID string, at time.Time, kind, detail string) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO events (run_id, at, kind, detail) VALUES (?, ?, ?, ?)`), runID, ts(at), kind, secret.Redact(detail))
	return err
}

// Block records one block of a run's phase as soon as it is known.
func (s *Store) Block(ctx context.Context, runID string, phase int, b observe.Block) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO blocks (run_id, phase, height, time, seen, txs, ours, failed, bytes, round, proposer, latency_mean, latency_max)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		runID, phase, b.Height, ts(b.Time), ts(b.Seen), b.Txs, b.Ours, b.Failed, b.Bytes, b.Round, b.Proposer, b.LatencyMean, b.LatencyMax)
	return err
}

// Finish records how a run ended: status, figures, checks, per-second
// series. Blocks were recorded as they came and are not repeated.
//
// On a full disk it gives up the room Begin kept and tries once more:
// the run's end is what tells it from one whose harness died.
func (s *Store) Finish(ctx context.Context, r *results.Run) error {
	defer s.release(r.ID)
	err := s.finish(ctx, r)
	if Full(err) {
		s.release(r.ID)
		err = s.finish(ctx, r)
	}
	return err
}

func (s *Store) finish(ctx context.Context, r *results.Run) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i, p := range r.Phases {
		for sec, v := range p.Ledger.PerSecond {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO seconds (run_id, phase, second, sent, accepted, rejected, send_error, committed)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), r.ID, i, sec, v.Sent, v.Accepted, v.Rejected, v.SendError, v.Committed); err != nil {
				return fmt.Errorf("record seconds of %s: %w", r.ID, err)
			}
		}
	}
	record, err := json.Marshal(stripBlocks(r))
	if err != nil {
		return err
	}
	var passed any
	if r.Status == results.StatusComplete {
		passed = r.Passed
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE runs SET status = ?, error = ?, ended_at = ?, passed = ?, record = ? WHERE id = ?`),
		string(r.Status), secret.Redact(r.Error), ts(r.End), passed, secret.Redact(string(record)), r.ID); err != nil {
		return fmt.Errorf("record end of %s: %w", r.ID, err)
	}
	return tx.Commit()
}

// stripBlocks returns a copy of r whose phases hold no blocks (they live
// in the blocks table).
func stripBlocks(r *results.Run) *results.Run {
	c := *r
	c.Phases = make([]*results.Phase, len(r.Phases))
	for i, p := range r.Phases {
		pc := *p
		pc.Blocks = nil
		c.Phases[i] = &pc
	}
	return &c
}

// A Listing is one row of `runs list`.
type Listing struct {
	ID       string
	Scenario string
	Status   results.Status
	Passed   *bool
	Start    time.Time
	End      time.Time
	Labels   map[string]string
}

// Filter narrows a listing; zero fields match everything.
type Filter struct {
	Scenario string
	Status   string
	Since    time.Time
	Labels   map[string]string // every one must match
	// Commit matches runs labelled commit=C where C starts with it.
	Commit string
	Limit  int
}

// List returns runs matching f, newest first.
func (s *Store) List(ctx context.Context, f Filter) ([]Listing, error) {
	query := `SELECT id, scenario, status, passed, started_at, ended_at FROM runs WHERE 1=1`
	var args []any
	if f.Scenario != "" {
		query += ` AND scenario = ?`
		args = append(args, f.Scenario)
	}
	if f.Status != "" {
		query += ` AND status = ?`
		args = append(args, f.Status)
	}
	if !f.Since.IsZero() {
		query += ` AND started_at >= ?`
		args = append(args, ts(f.Since))
	}
	keys := make([]string, 0, len(f.Labels))
	for k := range f.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		query += ` AND EXISTS (SELECT 1 FROM run_labels l WHERE l.run_id = runs.id AND l.key = ? AND l.value = ?)`
		args = append(args, k, f.Labels[k])
	}
	if f.Commit != "" {
		query += ` AND EXISTS (SELECT 1 FROM run_labels l WHERE l.run_id = runs.id AND l.key = 'commit' AND l.value LIKE ?)`
		args = append(args, strings.ReplaceAll(strings.ReplaceAll(f.Commit, "%", ""), "_", "")+"%")
	}
	query += ` ORDER BY started_at DESC`
	if f.Limit > 0 {
		query += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Listing
	for rows.Next() {
		var l Listing
		if err := scanListing(rows, &l); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Labels, err = s.labels(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scanListing reads a row of id, scenario, status, passed, started_at,
// ended_at and then extra.
func scanListing(rows *sql.Rows, l *Listing, extra ...any) error {
	var status, start, end string
	var passed sql.NullBool
	if err := rows.Scan(append([]any{&l.ID, &l.Scenario, &status, &passed, &start, &end}, extra...)...); err != nil {
		return err
	}
	l.Status = results.Status(status)
	if passed.Valid {
		l.Passed = &passed.Bool
	}
	l.Start, _ = time.Parse(timeFormat, start)
	l.End, _ = time.Parse(timeFormat, end)
	return nil
}

func (s *Store) labels(ctx context.Context, id string) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT key, value FROM run_labels WHERE run_id = ?`), id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// Run returns the stored run with its blocks. A run that never finished
// (interrupted) comes back with what it had: its blocks and status.
func (s *Store) Run(ctx context.Context, id string) (*results.Run, error) {
	var status, errText, start, end, record, name, text string
	err := s.db.QueryRowContext(ctx, s.q(`SELECT status, error, started_at, ended_at, record, scenario, scenario_text FROM runs WHERE id = ?`), id).
		Scan(&status, &errText, &start, &end, &record, &name, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	r := &results.Run{}
	if err := json.Unmarshal([]byte(record), r); err != nil {
		return nil, fmt.Errorf("run %s: stored record unreadable: %w", id, err)
	}
	r.ID, r.Scenario, r.Text, r.Status, r.Error = id, name, text, results.Status(status), errText
	r.Start, _ = time.Parse(timeFormat, start)
	r.End, _ = time.Parse(timeFormat, end)
	if r.Labels, err = s.labels(ctx, id); err != nil {
		return nil, err
	}
	blocks, err := s.Blocks(ctx, id)
	if err != nil {
		return nil, err
	}
	for phase, bs := range blocks {
		for len(r.Phases) <= phase {
			r.Phases = append(r.Phases, &results.Phase{Ledger: load.Summary{Fates: map[load.Fate]int64{}}})
		}
		r.Phases[phase].Blocks = bs
	}
	return r, nil
}

// Blocks returns a run's blocks per phase, in height order.
func (s *Store) Blocks(ctx context.Context, id string) (map[int][]observe.Block, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT phase, height, time, seen, txs, ours, failed, bytes, round, proposer, latency_mean, latency_max
		FROM blocks WHERE run_id = ? ORDER BY phase, height`), id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int][]observe.Block{}
	for rows.Next() {
		var b observe.Block
		var phase int
		var t, seen string
		if err := rows.Scan(&phase, &b.Height, &t, &seen, &b.Txs, &b.Ours, &b.Failed, &b.Bytes, &b.Round, &b.Proposer, &b.LatencyMean, &b.LatencyMax); err != nil {
			return nil, err
		}
		b.Time, _ = time.Parse(timeFormat, t)
		b.Seen, _ = time.Parse(timeFormat, seen)
		out[phase] = append(out[phase], b)
	}
	return out, rows.Err()
}

// Delete removes a run and everything recorded with it.
//
// A run still marked running is refused: its harness would go on writing
// blocks and samples for a run that is gone. (Callers first mark the runs
// of dead harnesses interrupted: experiment.Recover.)
func (s *Store) Delete(ctx context.Context, id string) error {
	if s.readOnly != "" {
		return fmt.Errorf("results database %s is read-only here (%s): run %s not deleted", s.where, s.readOnly, id)
	}
	res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM runs WHERE id = ? AND status <> ?`), id, string(results.StatusRunning))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	var host string
	var pid int64
	switch err := s.db.QueryRowContext(ctx, s.q(`SELECT harness_host, harness_pid FROM runs WHERE id = ?`), id).Scan(&host, &pid); {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("run %s: %w", id, ErrNotFound)
	case err != nil:
		return err
	}
	return fmt.Errorf("run %s is still running (harness pid %d on %s): end it first (Ctrl-C where it runs), then delete it", id, pid, host)
}

// Running returns the runs recorded as running on host, with their owners.
func (s *Store) Running(ctx context.Context, host string) (map[string]Owner, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, harness_pid, harness_start, harness_boot FROM runs WHERE status = ? AND harness_host = ?`),
		string(results.StatusRunning), host)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]Owner{}
	for rows.Next() {
		var id, boot string
		var pid, start int64
		if err := rows.Scan(&id, &pid, &start, &boot); err != nil {
			return nil, err
		}
		out[id] = Owner{PID: int(pid), Start: uint64(start), Host: host, Boot: boot}
	}
	return out, rows.Err()
}

// MarkInterrupted ends a run whose harness is gone, keeping what it had.
func (s *Store) MarkInterrupted(ctx context.Context, id, why string) error {
	s.release(id) // the room its harness kept
	_, err := s.db.ExecContext(ctx, s.q(`UPDATE runs SET status = ?, error = ? WHERE id = ? AND status = ?`),
		string(results.StatusInterrupted), why, id, string(results.StatusRunning))
	return err
}

// SecondsCSV writes a run's per-second series as CSV rows.
func (s *Store) SecondsCSV(ctx context.Context, id string, w func(record []string) error) error {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT phase, second, sent, accepted, rejected, send_error, committed FROM seconds WHERE run_id = ? ORDER BY phase, second`), id)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := w(strings.Split("phase,second,sent,accepted,rejected,send_error,committed", ",")); err != nil {
		return err
	}
	for rows.Next() {
		var v [7]int64
		if err := rows.Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]); err != nil {
			return err
		}
		rec := make([]string, len(v))
		for i, x := range v {
			rec[i] = fmt.Sprint(x)
		}
		if err := w(rec); err != nil {
			return err
		}
	}
	return rows.Err()
}

// An Entry is one run of the index: its listing and, once it has ended,
// its stored record (JSON) for a reader that wants figures from it.
type Entry struct {
	Listing
	Error string
}

// Index returns every run, newest first, with its labels, in two queries
// (List reads labels run by run).
func (s *Store) Index(ctx context.Context) ([]Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, scenario, status, passed, started_at, ended_at, error FROM runs ORDER BY started_at DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	at := map[string]int{}
	for rows.Next() {
		var e Entry
		if err := scanListing(rows, &e.Listing, &e.Error); err != nil {
			return nil, err
		}
		e.Labels = map[string]string{}
		at[e.ID] = len(out)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	lrows, err := s.db.QueryContext(ctx, `SELECT run_id, key, value FROM run_labels`)
	if err != nil {
		return nil, err
	}
	defer lrows.Close()
	for lrows.Next() {
		var id, k, v string
		if err := lrows.Scan(&id, &k, &v); err != nil {
			return nil, err
		}
		if i, ok := at[id]; ok { // a run added between the two reads has none yet
			out[i].Labels[k] = v
		}
	}
	return out, lrows.Err()
}

// Records calls fn with the stored record (JSON) of every run that has
// ended, one row at a time.
func (s *Store) Records(ctx context.Context, fn func(id string, record []byte) error) error {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, record FROM runs WHERE status <> ?`), string(results.StatusRunning))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var rec []byte
		if err := rows.Scan(&id, &rec); err != nil {
			return err
		}
		if err := fn(id, rec); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Record returns one run's stored record (JSON).
func (s *Store) Record(ctx context.Context, id string) ([]byte, error) {
	var rec []byte
	err := s.db.QueryRowContext(ctx, s.q(`SELECT record FROM runs WHERE id = ?`), id).Scan(&rec)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	return rec, err
}

// Find turns what a user types for one run into its ID: an ID, a unique
// start of one (20261129-0630), "latest" (the newest run, whatever its
// status) or "latest~N" (the run N before the newest). A start that fits
// several runs is an error naming them.
func (s *Store) Find(ctx context.Context, ref string) (string, error) {
	if rest, ok := strings.CutPrefix(ref, "latest"); ok && (rest == "" || rest[0] == '~') {
		n := 0
		if rest != "" {
			var err error
			if n, err = strconv.Atoi(rest[1:]); err != nil || n < 0 {
				return "", fmt.Errorf("%q: write latest or latest~N, N the runs to go back (latest~1 is the one before the newest)", ref)
			}
		}
		runs, err := s.List(ctx, Filter{Limit: n + 1})
		if err != nil {
			return "", err
		}
		if len(runs) <= n {
			return "", fmt.Errorf("%s: the database holds %d run(s): %w", ref, len(runs), ErrNotFound)
		}
		return runs[n].ID, nil
	}
	// A whole ID as stored (whatever it holds: its readers check it).
	var id string
	switch err := s.db.QueryRowContext(ctx, s.q(`SELECT id FROM runs WHERE id = ?`), ref).Scan(&id); {
	case err == nil:
		return id, nil
	case !errors.Is(err, sql.ErrNoRows):
		return "", err
	}
	// The start of an ID: its own characters only, so that it stays a
	// prefix in LIKE (no % or _ of the user's).
	if ref == "" || strings.Trim(ref, "0123456789abcdefghijklmnopqrstuvwxyz-") != "" {
		return "", fmt.Errorf("run %q: %w (an ID has digits, lower-case letters and dashes; `chainperf runs list` shows them)", ref, ErrNotFound)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id FROM runs WHERE id LIKE ? ORDER BY id LIMIT 4`), ref+"%")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return "", err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("run %s: %w", ref, ErrNotFound)
	case 1:
		return ids[0], nil
	}
	more := ""
	if len(ids) == 4 {
		ids, more = ids[:3], " and more"
	}
	return "", fmt.Errorf("run %q: the start of %s%s; give more of the ID", ref, strings.Join(ids, ", "), more)
}
