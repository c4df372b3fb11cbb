package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/observe"
	"github.com/chainperf/chainperf/internal/results"
)

// backends returns a fresh database per backend: SQLite always, and a real
// PostgreSQL server when CHAINPERF_TEST_POSTGRES holds its URL (CI starts
// one; the test then fails rather than skips if it cannot connect).
func backends(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{"sqlite": filepath.Join(t.TempDir(), "runs.db")}
	base := os.Getenv("CHAINPERF_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must set CHAINPERF_TEST_POSTGRES: the store suite runs on a real PostgreSQL there")
		}
		t.Log("CHAINPERF_TEST_POSTGRES not set: PostgreSQL backend not tested")
		return out
	}
	// A database of its own per test, dropped at the end.
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("chainperf_test_%d", time.Now().UnixNano())
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE " + name + " WITH (FORCE)")
		admin.Close()
	})
	i := strings.LastIndex(base, "/")
	rest := ""
	if q := strings.IndexByte(base[i:], '?'); q >= 0 {
		rest = base[i+q:]
	}
	out["postgres"] = base[:i+1] + name + rest
	return out
}

func sampleRun(id string, start time.Time) *results.Run {
	return &results.Run{Record: results.Record{
		ID: id, Scenario: "default", Text: "name = \"default\"\n", Status: results.StatusRunning,
		Start: start, Labels: map[string]string{"branch": "main"},
	}}
}

// begun opens the database at dsn (closed when the test ends) and begins
// a sample run in it, owned by pid 42 on host h.
func begun(t *testing.T, dsn, id string, start time.Time) (*Store, *results.Run) {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := sampleRun(id, start)
	if err := s.Begin(context.Background(), r, Owner{PID: 42, Start: 7, Host: "h"}); err != nil {
		t.Fatal(err)
	}
	return s, r
}

func TestStoreSuite(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
			s, r := begun(t, dsn, "run-a", start)
			for h := int64(10); h < 15; h++ {
				b := observe.Block{Height: h, Time: start.Add(time.Duration(h) * time.Second), Seen: start.Add(time.Duration(h)*time.Second + 5*time.Millisecond), Txs: int(h), Ours: int(h), Round: 0, Proposer: "AB", LatencyMean: 1.5, LatencyMax: float64(h)}
				if err := s.Block(ctx, r.ID, 0, b); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Event(ctx, r.ID, "phase", "steady 1/1"); err != nil {
				t.Fatal(err)
			}
			samples := []observe.Sample{
				{At: start.Add(time.Second), Node: "validator0", Series: "cometbft_mempool_size", Value: 12},
				{At: start.Add(time.Second), Node: "validator0", Series: `cometbft_mempool_failed_txs{reason="full"}`, Value: 0.5},
				{At: start.Add(2 * time.Second), Node: observe.Machine, Series: observe.SeriesLoad1, Value: 1.75},
			}
			if err := s.Samples(ctx, r.ID, samples); err != nil {
				t.Fatal(err)
			}
			prof := &observe.Profile{Node: "validator0", Kind: "allocs", At: start.Add(3 * time.Second), File: "/x/validator0-allocs.pb.gz",
				Value: "alloc_space (bytes)", Top: []observe.TopFunc{{Func: "cachekv.NewStore", Flat: 1 << 30, Share: 0.4}}}
			if err := s.Profile(ctx, r.ID, prof); err != nil {
				t.Fatal(err)
			}
			// Before it finishes, the run is listed as running.
			running, err := s.Running(ctx, "h")
			if err != nil || running["run-a"].PID != 42 {
				t.Fatalf("Running = %v, %v; want run-a owned by pid 42", running, err)
			}
			r.Phases = []*results.Phase{{
				Model: "constant 10 tx/s for 5s",
				Ledger: load.Summary{Sent: 60, Fates: map[load.Fate]int64{load.FateCommitted: 60},
					PerSecond: []load.Second{{Sent: 10, Committed: 8}, {Sent: 10, Committed: 12}}},
				Figures: results.Figures{CommittedTPS: 10},
			}}
			r.Status, r.End, r.Passed = results.StatusComplete, start.Add(time.Minute), true
			if err := s.Finish(ctx, r); err != nil {
				t.Fatal(err)
			}
			got, err := s.Run(ctx, "run-a")
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != results.StatusComplete || !got.Start.Equal(start) || got.Labels["branch"] != "main" {
				t.Errorf("Run = status %s start %s labels %v", got.Status, got.Start, got.Labels)
			}
			if len(got.Phases) != 1 || len(got.Phases[0].Blocks) != 5 || got.Phases[0].Blocks[4].Height != 14 {
				t.Fatalf("phases/blocks not restored: %+v", got.Phases)
			}
			if b := got.Phases[0].Blocks[4]; b.LatencyMean != 1.5 || b.LatencyMax != 14 {
				t.Errorf("block latency not restored: %+v", b)
			}
			if got.Phases[0].Figures.CommittedTPS != 10 || got.Phases[0].Ledger.Fates[load.FateCommitted] != 60 {
				t.Errorf("figures not restored: %+v", got.Phases[0])
			}
			series, err := s.Series(ctx, "run-a")
			if err != nil || len(series) != 3 || series[0].Series != `cometbft_mempool_failed_txs{reason="full"}` || series[0].Value != 0.5 ||
				!series[2].At.Equal(start.Add(2*time.Second)) || series[2].Node != observe.Machine {
				t.Errorf("Series = %+v, %v", series, err)
			}
			window, err := s.SeriesBetween(ctx, "run-a", start.Add(1500*time.Millisecond), start.Add(2*time.Second))
			if err != nil || len(window) != 1 || window[0].Node != observe.Machine {
				t.Errorf("SeriesBetween 1.5 s..2 s = %+v, %v; want load1 alone", window, err)
			}
			profs, err := s.Profiles(ctx, "run-a")
			if err != nil || len(profs) != 1 || profs[0].Top[0].Func != "cachekv.NewStore" || profs[0].Top[0].Flat != 1<<30 || !profs[0].At.Equal(prof.At) {
				t.Errorf("Profiles = %+v, %v", profs, err)
			}
			events, err := s.Events(ctx, "run-a")
			if err != nil || len(events) != 1 || events[0].Detail != "steady 1/1" {
				t.Errorf("Events = %+v, %v", events, err)
			}
			var rows [][]string
			if err := s.SecondsCSV(ctx, "run-a", func(rec []string) error { rows = append(rows, rec); return nil }); err != nil || len(rows) != 3 {
				t.Errorf("SecondsCSV = %v rows, %v; want header + 2", len(rows), err)
			}
			rows = nil
			if err := s.SeriesCSV(ctx, "run-a", func(rec []string) error { rows = append(rows, rec); return nil }); err != nil || len(rows) != 4 ||
				strings.Join(rows[1], ",") != ts(start.Add(time.Second))+`,validator0,cometbft_mempool_failed_txs{reason="full"},0.5` {
				t.Errorf("SeriesCSV = %q, %v; want header + 3, the labelled series first", rows, err)
			}

			// A second run, interrupted: it keeps what it had.
			r2 := sampleRun("run-b", start.Add(time.Hour))
			r2.Labels = map[string]string{"branch": "feature"}
			if err := s.Begin(ctx, r2, Owner{PID: 43, Host: "h"}); err != nil {
				t.Fatal(err)
			}
			s.Block(ctx, "run-b", 0, observe.Block{Height: 3, Time: start, Seen: start, Proposer: "CD"})
			if err := s.MarkInterrupted(ctx, "run-b", "harness gone"); err != nil {
				t.Fatal(err)
			}
			b, err := s.Run(ctx, "run-b")
			if err != nil || b.Status != results.StatusInterrupted || len(b.Phases) != 1 || len(b.Phases[0].Blocks) != 1 {
				t.Fatalf("interrupted run = %+v, %v", b, err)
			}

			for _, tc := range []struct {
				f    Filter
				want string
			}{
				{Filter{}, "run-b run-a"}, // newest first
				{Filter{Status: "complete"}, "run-a"},
				{Filter{Labels: map[string]string{"branch": "feature"}}, "run-b"},
				{Filter{Since: start.Add(30 * time.Minute)}, "run-b"},
				{Filter{Scenario: "other"}, ""},
				{Filter{Limit: 1}, "run-b"},
			} {
				list, err := s.List(ctx, tc.f)
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, l := range list {
					ids = append(ids, l.ID)
				}
				if got := strings.Join(ids, " "); got != tc.want {
					t.Errorf("List(%+v) = %q; want %q", tc.f, got, tc.want)
				}
			}
			if err := s.Delete(ctx, "run-a"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Run(ctx, "run-a"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Run(deleted) = %v; want ErrNotFound", err)
			}
			if blocks, _ := s.Blocks(ctx, "run-a"); len(blocks) != 0 {
				t.Errorf("deleted run keeps %d block phases", len(blocks))
			}
			if series, _ := s.Series(ctx, "run-a"); len(series) != 0 {
				t.Errorf("deleted run keeps %d samples", len(series))
			}
			if err := s.Delete(ctx, "run-a"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Delete twice = %v; want ErrNotFound", err)
			}
		})
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			s.db.Exec(s.q(`INSERT INTO schema_version (version) VALUES (?)`), SchemaVersion+1)
			s.Close()
			_, err = Open(ctx, dsn)
			if err == nil || !strings.Contains(err.Error(), "written by a newer chainperf") {
				t.Errorf("Open(newer schema) = %v; want a refusal", err)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, "/nonexistent/dir/runs.db"); err == nil || !strings.Contains(err.Error(), "directory /nonexistent/dir does not exist") {
		t.Errorf("Open(missing dir) = %v", err)
	}
	_, err := Open(ctx, "postgres://chainperf:wrongpass@127.0.0.1:1/chainperf?connect_timeout=2")
	if err == nil || !strings.Contains(err.Error(), "cannot connect") || strings.Contains(err.Error(), "wrongpass") {
		t.Errorf("Open(unreachable postgres) = %v; want 'cannot connect' and no password", err)
	}
}

// A server that takes the connection and never answers its start-up: the
// default bound ends the wait with an error that says what to set.
func TestOpenMutePostgres(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never written to
		}
	}()
	start := time.Now()
	_, err = Open(context.Background(), "postgres://chainperf:pw@"+l.Addr().String()+"/chainperf?sslmode=disable")
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "connect_timeout") || strings.Contains(err.Error(), ":pw@") {
		t.Errorf("Open(mute server) = %v; want a refusal naming connect_timeout, no password", err)
	}
	if took > time.Duration(DefaultConnectTimeout+5)*time.Second {
		t.Errorf("Open(mute server) took %v; want about %d s", took, DefaultConnectTimeout)
	}
}

// TestReadOnlyReadsAndRefusesWrites: the dashboard's open reads every run
// and cannot write, on both backends; a database without chainperf's
// schema is refused with what to do.
func TestReadOnlyReadsAndRefusesWrites(t *testing.T) {
	ctx := context.Background()
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			st, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			r := sampleRun("ro-1", time.Now())
			if err := st.Begin(ctx, r, Owner{}); err != nil {
				t.Fatal(err)
			}
			r.Status, r.End = results.StatusComplete, time.Now()
			if err := st.Finish(ctx, r); err != nil {
				t.Fatal(err)
			}
			st.Close()
			ro, err := OpenReadOnly(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			idx, err := ro.Index(ctx)
			if err != nil || len(idx) != 1 || idx[0].ID != "ro-1" || idx[0].Labels["branch"] != "main" || idx[0].Status != results.StatusComplete {
				t.Fatalf("index %+v %v", idx, err)
			}
			n := 0
			if err := ro.Records(ctx, func(id string, rec []byte) error { n++; return nil }); err != nil || n != 1 {
				t.Fatalf("records: %d %v", n, err)
			}
			if err := ro.Event(ctx, "ro-1", "x", "y"); err == nil {
				t.Fatal("a write through the read-only store succeeded")
			}
			if err := ro.Delete(ctx, "ro-1"); err == nil {
				t.Fatal("a delete through the read-only store succeeded")
			}
		})
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	os.WriteFile(empty, nil, 0o644)
	if _, err := OpenReadOnly(ctx, empty); err == nil || !strings.Contains(err.Error(), "no chainperf schema") {
		t.Fatalf("an empty file: %v", err)
	}
	if _, err := OpenReadOnly(ctx, filepath.Join(t.TempDir(), "none.db")); err == nil || !strings.Contains(err.Error(), "no results database") {
		t.Fatalf("a missing file: %v", err)
	}
}

// A run an earlier chainperf stored with its chain's record under a key of
// its own ("cosmos", before findings were data) reads back, on SQLite and
// PostgreSQL alike, with that record as the chain's finding: its balance
// check and its figures, as the chain package reads them.
func TestRunStoredBeforeFindings(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, r := begun(t, dsn, "old-cosmos", time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
			r.Status, r.End, r.Passed = results.StatusComplete, r.Start.Add(time.Minute), true
			if err := s.Finish(ctx, r); err != nil {
				t.Fatal(err)
			}
			// The record as the build before wrote it (its keys, trimmed).
			old := `{"id":"old-cosmos","scenario":"default","status":"complete","phases":[],"checks":[],"passed":true,` +
				`"cosmos":{"binary":"/bin/sdkd","wallets":200,"genesis_bytes":1,"genesis_s":0.1,"workload":"cosmos-mix",` +
				`"stats":{"kinds":[{"msg":"send","weight":3,"committed":370,"committed_msgs_per_s":37.4,"latency_p99_ms":1947,"gas_per_msg":71885}]},` +
				`"balances":{"conserved":true,"wallets":200,"checked":200,"denom":"stake"}}}`
			if _, err := s.db.ExecContext(ctx, s.q(`UPDATE runs SET record = ? WHERE id = ?`), old, r.ID); err != nil {
				t.Fatal(err)
			}
			got, err := s.Run(ctx, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			c := chain.CosmosOf(got)
			if c == nil || c.Wallets != 200 || c.Balances == nil || !c.Balances.Conserved || len(c.Stats.Kinds) != 1 {
				t.Fatalf("the old cosmos record read as %+v (findings %+v)", c, got.Found)
			}
			f, _ := got.Finding(chain.SourceCosmos)
			if x, ok := f.Figure("msg/s send"); !ok || x.Value != 37.4 {
				t.Errorf("msg/s send %+v %v", x, ok)
			}
		})
	}
}

// A database of schema 3 (a row a value in node_series, indexed by
// series first) opens migrated, in both backends: its samples read back
// as they were, beside rounds written after, and node_series's index is
// the one in time order.
func TestSeriesMigrated(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			start := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
			s, r := begun(t, dsn, "run-3", start)
			for _, q := range []string{`DROP TABLE node_logs`, `DROP TABLE node_rounds`, `DROP INDEX node_series_at`,
				`CREATE INDEX node_series_run ON node_series (run_id, series, node, at)`, `DELETE FROM schema_version WHERE version > 3`} {
				if _, err := s.db.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			// As schema 3's chainperf wrote them.
			for _, x := range []observe.Sample{
				{At: start.Add(time.Second), Node: "validator0", Series: "cometbft_mempool_size", Value: 12},
				{At: start, Node: "validator1", Series: "cometbft_consensus_height", Value: 4},
			} {
				if _, err := s.db.ExecContext(ctx, s.q(`INSERT INTO node_series (run_id, node, series, at, value) VALUES (?, ?, ?, ?, ?)`),
					r.ID, x.Node, x.Series, ts(x.At), x.Value); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			s, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			q := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'node_series'`
			if name == "postgres" {
				q = `SELECT indexname FROM pg_indexes WHERE tablename = 'node_series'`
			}
			var idx []string
			if err := s.each(ctx, q, nil, func(rows *sql.Rows) error {
				var n string
				err := rows.Scan(&n)
				idx = append(idx, n)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if len(idx) != 1 || idx[0] != "node_series_at" {
				t.Errorf("node_series indexes after the migration: %q; want node_series_at alone", idx)
			}
			if err := s.Samples(ctx, r.ID, []observe.Sample{{At: start.Add(time.Second), Node: "validator0", Series: "cometbft_consensus_height", Value: 5}}); err != nil {
				t.Fatal(err)
			}
			got, err := s.Series(ctx, r.ID)
			if err != nil || len(got) != 3 || got[0].Node != "validator1" || got[1].Value != 5 || got[2].Value != 12 {
				t.Errorf("Series after the migration = %+v, %v; want the old two and the new one in time, node and series order", got, err)
			}
			between, err := s.SeriesBetween(ctx, r.ID, start.Add(time.Second), start.Add(time.Second))
			if err != nil || len(between) != 2 {
				t.Errorf("SeriesBetween the second second = %+v, %v; want an old and a new sample", between, err)
			}
		})
	}
}

// Samples of more nodes and times than one INSERT takes go in whole, each
// sample once, in both backends, whatever bytes a series holds and
// whatever a value is; a round that cannot be written leaves none of its
// samples behind.
func TestSamplesInManyInserts(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			start := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
			s, r := begun(t, dsn, "run-many", start)
			var samples []observe.Sample
			odd := []float64{math.Inf(1), math.Inf(-1), math.Copysign(0, -1), math.SmallestNonzeroFloat64, math.MaxFloat64, 1e21}
			for i := range 2*roundsPerInsert + 51 {
				for j := range 2 {
					x := observe.Sample{At: start.Add(time.Duration(i/5) * time.Second), Node: fmt.Sprintf("validator%d", i%5),
						Series: fmt.Sprintf("s%03d_%d", i, j), Value: float64(i) / 4}
					if i < len(odd) {
						x.Series += "{v=\"a\\\"b\nc\xff\x00\"}"
						x.Value = odd[i]
					}
					samples = append(samples, x)
				}
			}
			if err := s.Samples(ctx, r.ID, samples); err != nil {
				t.Fatal(err)
			}
			got, err := s.Series(ctx, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(samples) {
				t.Fatalf("%d samples read back; want %d", len(got), len(samples))
			}
			want := map[string]observe.Sample{}
			for _, x := range samples {
				want[x.Series] = x
			}
			for _, x := range got {
				w := want[x.Series]
				if x.Node != w.Node || x.Value != w.Value || math.Signbit(x.Value) != math.Signbit(w.Value) || !x.At.Equal(w.At) {
					t.Fatalf("read back %+v; want %+v", x, w)
				}
				delete(want, x.Series)
			}
			// The last insert of a round fails (a run that is not there):
			// its first inserts are not kept either.
			if err := s.Samples(ctx, "no-such-run", samples); err == nil {
				t.Fatal("samples of a run that does not exist were taken")
			}
			if n, err := s.Series(ctx, "no-such-run"); err != nil || len(n) != 0 {
				t.Fatalf("%d samples of the refused round kept (%v)", len(n), err)
			}
		})
	}
}

// A SQLite path with '?', '#' or '%' in a name is that file: not cut at
// the '?' as a URI's parameters, nor read as an escape.
func TestPathWithURICharacters(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"runs?x=1.db", "runs#2.db", "runs%3f.db"} {
		p := filepath.Join(t.TempDir(), name)
		st, err := Open(ctx, p)
		if err != nil {
			t.Fatalf("Open(%q) = %v", name, err)
		}
		if err := st.Begin(ctx, sampleRun("r1", time.Now()), Owner{PID: 1, Host: "test"}); err != nil {
			t.Fatal(err)
		}
		st.Close()
		entries, _ := os.ReadDir(filepath.Dir(p))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if _, err := os.Stat(p); err != nil || len(names) == 0 {
			t.Errorf("%q: the file is not there under its name (%v); the folder holds %q", name, err, names)
		}
		for _, n := range names {
			if !strings.HasPrefix(n, name) {
				t.Errorf("%q: the folder holds %q, not a file of that name", name, n)
			}
		}
		st, err = OpenExisting(ctx, p)
		if err != nil {
			t.Fatalf("OpenExisting(%q) = %v", name, err)
		}
		if _, err := st.Run(ctx, "r1"); err != nil {
			t.Errorf("%q: the run is not read back: %v", name, err)
		}
		st.Close()
	}
}

// A statement PostgreSQL holds is bounded: by default
// (DefaultStatementTimeout) and by the URL's statement_timeout, which
// wins.
func TestStatementTimeout(t *testing.T) {
	url, ok := backends(t)["postgres"]
	if !ok {
		t.Skip("no PostgreSQL")
	}
	ctx := context.Background()
	for _, c := range []struct{ param, want string }{{"", "1min"}, {"statement_timeout=300", "300ms"}} {
		u := url
		if c.param != "" {
			sep := "?"
			if strings.Contains(u, "?") {
				sep = "&"
			}
			u += sep + c.param
		}
		s, err := Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := s.db.QueryRowContext(ctx, "SHOW statement_timeout").Scan(&got); err != nil || got != c.want {
			t.Errorf("%q: statement_timeout %q, %v; want %q", c.param, got, err, c.want)
		}
		if c.param != "" {
			if _, err := s.db.ExecContext(ctx, "SELECT pg_sleep(2)"); err == nil || !strings.Contains(err.Error(), "statement timeout") {
				t.Errorf("a 2 s statement under a 300 ms bound: %v", err)
			}
		}
		s.Close()
	}
}
