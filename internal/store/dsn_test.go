package store

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// Every form of a Postgres password stays out of messages; what only
// looks like a database address is refused without repeating it.
func TestDSNSecrets(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://bob:s3cret@db.example/runs":                  "postgres://bob:REDACTED@db.example/runs",
		"POSTGRES://bob:s3cret@db.example/runs":                  "POSTGRES://bob:REDACTED@db.example/runs",
		"postgresql://bob@db.example/runs?password=s3cret":       "postgresql://bob@db.example/runs?password=REDACTED",
		"postgres://db.example/runs?sslpassword=s3cret&x=1":      "postgres://db.example/runs?sslpassword=REDACTED&x=1",
		"postgres://bob:s3cret@db.example:5432/runs?sslmode=off": "postgres://bob:REDACTED@db.example:5432/runs?sslmode=off",
	} {
		got := redact(dsn)
		if strings.Contains(got, "s3cret") || !strings.EqualFold(got, want) {
			t.Errorf("redact(%q) = %q; want %q", dsn, got, want)
		}
	}
	for _, dsn := range []string{"host=db.example user=bob password=s3cret dbname=runs", "mysql://bob:s3cret@db/runs", "password=s3cret"} {
		_, err := Open(context.Background(), dsn)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q): %v; want a refusal that does not repeat the password", dsn, err)
		}
		if _, err := OpenExisting(context.Background(), dsn); err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("OpenExisting(%q): %v", dsn, err)
		}
	}
	// An upper-case scheme is Postgres, not a SQLite file named so: the
	// connection is tried (and fails here: nothing listens), the message
	// keeps the password out.
	_, err := Open(context.Background(), "POSTGRES://bob:s3cret@127.0.0.1:1/runs?connect_timeout=1")
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "REDACTED") {
		t.Errorf("upper-case scheme: %v", err)
	}
}

// FuzzRedact: no address, however malformed, makes redact panic or let a
// password it can see through.
func FuzzRedact(f *testing.F) {
	f.Add("postgres://bob:s3cret@db/runs?password=s3cret")
	f.Add("postgresql://:s3cret@[::1]:5432/x")
	f.Add("POSTGRES://%zz:s3cret@db")
	f.Fuzz(func(t *testing.T, dsn string) {
		got := redact(dsn)
		u, err := url.Parse(got)
		if err != nil {
			return
		}
		if p, ok := u.User.Password(); ok && p != "REDACTED" {
			t.Errorf("redact(%q) = %q: password %q kept", dsn, got, p)
		}
		for k, vs := range u.Query() {
			if strings.Contains(strings.ToLower(k), "password") && (len(vs) != 1 || vs[0] != "REDACTED") {
				t.Errorf("redact(%q) = %q: %s kept", dsn, got, k)
			}
		}
	})
}
