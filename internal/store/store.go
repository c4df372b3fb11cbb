// Package store is the results database: every run, its blocks and its
// per-second series, in SQLite (one file, WAL, the default) or PostgreSQL.
// One schema and one set of queries serve both; versioned migrations run
// at open, and a database written by a newer chainperf is refused.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	"golang.org/x/sys/unix"
	_ "modernc.org/sqlite" // registers "sqlite"

	"github.com/chainperf/chainperf/internal/files"
	"github.com/chainperf/chainperf/internal/secret"
)

// DefaultPath is the SQLite file used when neither --db nor CHAINPERF_DB
// says otherwise: in the working dir.
const DefaultPath = "chainperf.db"

// A Store is an open results database.
type Store struct {
	db       *sql.DB
	postgres bool
	where    string // for messages: the file or the server, never a password
	readOnly string // why a reader opened it read-only ("" when it can write)
}

// ReadOnly says why the database was opened read-only: "" when it was
// opened to be written.
func (s *Store) ReadOnly() string { return s.readOnly }

// Locate picks the database: flag, then CHAINPERF_DB, then DefaultPath.
func Locate(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv("CHAINPERF_DB"); env != "" {
		return env
	}
	return DefaultPath
}

// checkPath checks a SQLite path before it is opened: a directory, a
// device or a FIFO is no database (SQLite's own error for a directory is
// "out of memory"), and with mustExist a missing file is an error instead
// of a new database. A postgres URL passes.
func checkPath(dsn string, mustExist bool) error {
	if isPostgres(dsn) {
		return nil
	}
	fi, err := os.Stat(dsn)
	switch {
	case errors.Is(err, fs.ErrNotExist) && mustExist:
		return fmt.Errorf("no results database at %s (a run makes one; --db or CHAINPERF_DB names another)", dsn)
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("results database %s: %w", dsn, err)
	case fi.IsDir():
		return fmt.Errorf("results database %s is a directory: name a file, e.g. %s", dsn, filepath.Join(dsn, DefaultPath))
	case !fi.Mode().IsRegular():
		return fmt.Errorf("results database %s is %s, not a regular file", dsn, files.Kind(fi.Mode()))
	}
	return nil
}

func isPostgres(dsn string) bool {
	scheme, _, ok := strings.Cut(dsn, "://")
	return ok && (strings.EqualFold(scheme, "postgres") || strings.EqualFold(scheme, "postgresql"))
}

// checkDSN refuses what looks like a database address but is not one
// chainperf reads: another URL scheme, or a keyword DSN ("host=...
// password=..."), which would otherwise become a SQLite file name (and
// its password part of every message). The error never repeats dsn.
func checkDSN(dsn string) error {
	rememberSecrets(dsn)
	if !isPostgres(dsn) && mistypedURL.MatchString(dsn) {
		return fmt.Errorf("results database: %q looks like a database URL with a mistyped scheme: use a postgres:// URL (user and password before the host, then @) or a SQLite file path", secret.Redact(dsn))
	}
	if scheme, _, ok := strings.Cut(dsn, "://"); ok && !isPostgres(dsn) {
		return fmt.Errorf("results database: unknown URL scheme %q: use a postgres:// URL (user and password before the host, then @) or a SQLite file path", scheme)
	}
	if keywordDSN.MatchString(dsn) {
		return fmt.Errorf("results database: a keyword DSN (host=... and so on) is not read: write it as a postgres:// URL (user and password before the host, then @)")
	}
	return nil
}

// mistypedURL: a scheme with one slash or none, or credentials, in what
// would otherwise be taken for a SQLite file name.
var mistypedURL = regexp.MustCompile(`(?i)^postgres(ql)?(:|//)|^[a-z][a-z0-9+.-]*:/[^/]|^[^/@]*:[^/]*@`)

// rememberSecrets has every password in dsn masked from now on, however a
// library's error quotes it.
func rememberSecrets(dsn string) {
	u, err := url.Parse(dsn)
	if err != nil {
		return
	}
	// A password that is also the user's or the database's name is
	// shown with them anyway (and masking the word everywhere would
	// garble every message that names them).
	shown := func(v string) bool { return v == u.User.Username() || v == strings.Trim(u.Path, "/") }
	if pw, ok := u.User.Password(); ok && !shown(pw) {
		secret.Remember(pw, url.QueryEscape(pw), u.User.String())
	}
	for k, vs := range u.Query() {
		if strings.Contains(strings.ToLower(k), "password") {
			for _, v := range vs {
				if !shown(v) {
					secret.Remember(v, url.QueryEscape(v))
				}
			}
		}
	}
}

var keywordDSN = regexp.MustCompile(`(?i)(^|\s)(host|hostaddr|port|dbname|user|password|sslmode)\s*=`)

// Open opens (and creates or migrates) the database at dsn: a
// postgres:// or postgresql:// URL, or a SQLite file path.
func Open(ctx context.Context, dsn string) (*Store, error) {
	return open(ctx, dsn, false)
}

// OpenExisting opens the database at dsn for a reader: one that does not
// exist is an error, not made. A SQLite file this process cannot write
// (read-only media, another user's file) is opened read-only, as
// OpenReadOnly does: it can be read, not migrated (ReadOnly says why).
func OpenExisting(ctx context.Context, dsn string) (*Store, error) {
	return open(ctx, dsn, true)
}

// OpenReadOnly opens an existing database for a reader that must change
// nothing (the dashboard): SQLite in read-only mode, PostgreSQL sessions
// with read-only transactions; no migration, and a schema other than this
// chainperf's is refused with what to do.
func OpenReadOnly(ctx context.Context, dsn string) (*Store, error) {
	s, err := openDB(ctx, dsn, true, true)
	if err != nil {
		return nil, err
	}
	return s.readable(ctx)
}

// readable checks that s, opened read-only, holds this chainperf's schema.
func (s *Store) readable(ctx context.Context) (*Store, error) {
	var v int
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("results database %s: no chainperf schema in it (%v)", s.where, err)
	}
	if v != SchemaVersion {
		s.db.Close()
		return nil, fmt.Errorf("results database %s has schema version %d, this chainperf reads %d: open it once with a chainperf command that writes (e.g. `chainperf runs list`) to migrate it, or use the chainperf that wrote it", s.where, v, SchemaVersion)
	}
	return s, nil
}

func open(ctx context.Context, dsn string, mustExist bool) (*Store, error) {
	s, err := openDB(ctx, dsn, mustExist, false)
	if err != nil {
		return nil, err
	}
	if s.readOnly != "" {
		return s.readable(ctx)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("results database %s: %w", s.where, err)
	}
	return s, nil
}

// DefaultConnectTimeout is the seconds a PostgreSQL server has to take a
// connection and answer its start-up, unless the URL's connect_timeout
// says otherwise.
const DefaultConnectTimeout = 5

// DefaultStatementTimeout bounds one statement on PostgreSQL unless the
// URL's statement_timeout (ms) says otherwise: generous beside the
// longest chainperf makes (a long run's node samples, read back in one),
// short beside for ever.
const DefaultStatementTimeout = 60 * time.Second

func openDB(ctx context.Context, dsn string, mustExist, readOnly bool) (*Store, error) {
	s := &Store{}
	if err := checkDSN(dsn); err != nil {
		return nil, err
	}
	if err := checkPath(dsn, mustExist); err != nil {
		return nil, err
	}
	var err error
	if isPostgres(dsn) {
		s.postgres, s.where = true, redact(dsn)
		// pgx wants the scheme in lower case; the user may not write it so.
		scheme, rest, _ := strings.Cut(dsn, "://")
		param := func(kv string) {
			sep := "?"
			if strings.Contains(rest, "?") {
				sep = "&"
			}
			rest += sep + kv
		}
		// A server (or a proxy) that takes the connection and says
		// nothing would hold every command for ever: the connection,
		// its start-up included, gets a bound unless the URL sets one.
		if !strings.Contains(strings.ToLower(rest), "connect_timeout=") {
			param("connect_timeout=" + strconv.Itoa(DefaultConnectTimeout))
		}
		// And one that answers the start-up, then holds a statement
		// (a lock another session keeps, a stalled proxy): bounded too.
		if !strings.Contains(strings.ToLower(rest), "statement_timeout=") {
			param("statement_timeout=" + strconv.Itoa(int(DefaultStatementTimeout/time.Millisecond)))
		}
		if readOnly {
			// pgx passes unknown parameters to the server as settings.
			param("default_transaction_read_only=on")
		}
		s.db, err = sql.Open("pgx", strings.ToLower(scheme)+"://"+rest)
	} else {
		s.where = dsn
		dir := filepath.Dir(dsn)
		if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
			return nil, fmt.Errorf("results database %s: directory %s does not exist", dsn, dir)
		}
		// SQLite opens a file it cannot write read-only without a word,
		// and the first write fails as "attempt to write a readonly
		// database" or "out of memory (14)": a writer is told here, a
		// reader reads it read-only.
		if why := unwritable(dsn); why != "" && !readOnly {
			if !mustExist {
				return nil, fmt.Errorf("results database %s cannot be written by this process (%s): a run stores into a database it can write (--db or CHAINPERF_DB name another); runs list/show/export, report and compare can read this one", dsn, why)
			}
			readOnly, s.readOnly = true, why
		}
		s.db, err = sql.Open("sqlite", "file:"+uriPath(dsn)+sqliteOptions(dsn, readOnly))
		if err == nil && !readOnly {
			s.db.SetMaxOpenConns(1)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("results database %s: %w", s.where, err)
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		if s.postgres && (errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout")) {
			return nil, fmt.Errorf("results database %s: cannot connect: no answer in time (the server took the connection and said nothing; ?connect_timeout=SECONDS in the URL waits longer): %w", s.where, err)
		}
		return nil, fmt.Errorf("results database %s: cannot connect: %w", s.where, err)
	}
	return s, nil
}

// sqliteOptions are the URI parameters a SQLite database at dsn is
// opened with, to write or only to read.
func sqliteOptions(dsn string, readOnly bool) string {
	// WAL: readers never block the writer of a run in progress;
	// busy_timeout: two chainperf processes may share the file.
	// temp_store: a statement's journal (a many-row INSERT's, a
	// second's samples) in memory, not written to a temporary file.
	opts := "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)"
	if readOnly {
		// The writer made it WAL; a reader in WAL mode never blocks it.
		opts = "?mode=ro&_pragma=busy_timeout(10000)"
		// A WAL reader needs the -shm file beside the database, which
		// a read-only directory cannot take. With no -wal file nobody
		// writes the database (a writer keeps one while it is open):
		// it is read as immutable, without that file or any lock.
		if unwritable(dsn) != "" {
			if _, werr := os.Lstat(dsn + "-wal"); errors.Is(werr, fs.ErrNotExist) {
				opts = "?mode=ro&immutable=1"
			}
		}
	}
	return opts
}

// unwritable says why this process cannot write the SQLite file at dsn
// or its directory (where SQLite keeps the -wal and -shm files): read-only
// media, another user's file or dir. "" when it can, or when neither
// exists yet but the directory takes files.
func unwritable(dsn string) string {
	for _, p := range []string{dsn, filepath.Dir(dsn)} {
		if err := unix.Access(p, unix.W_OK); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("%s: %v", p, err)
		}
	}
	return ""
}

// uriPath is a file path as the path of a SQLite URI: its '%', '?' and
// '#' escaped, so that a file named "runs?1.db" is that file and not
// "runs" with a parameter (the path is taken as a path, as printed).
func uriPath(p string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Where names the database for messages (passwords removed).
func (s *Store) Where() string { return s.where }

// redact removes the password from a URL.
// redact returns a postgres URL fit for messages: the password of its
// user and of its query (password=, sslpassword=) replaced.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Opaque != "" || !isPostgres(dsn) {
		return "(a postgres address that does not parse)" // no part of it: any could be the password
	}
	u.Fragment, u.RawFragment = "", ""
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "REDACTED")
	}
	q := u.Query()
	for k := range q {
		if strings.Contains(strings.ToLower(k), "password") {
			q.Set(k, "REDACTED")
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// q rewrites '?' placeholders to PostgreSQL's $1, $2, ...
func (s *Store) q(query string) string {
	if !s.postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ErrNotFound is returned for a run ID the database does not hold.
var ErrNotFound = errors.New("no such run")
