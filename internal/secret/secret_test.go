package secret

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	t.Cleanup(Forget)
	Remember("hunter2-long", "ab") // "ab" is too short to mask by value
	for _, tc := range []struct{ in, gone, kept string }{
		{"postgres://chainperf:s3cret@127.0.0.1:5432/db", "s3cret", "postgres://127.0.0.1:5432/db"},
		{"postgress://u:s3cret@h/db", "s3cret", "postgress://h/db"},
		{"postgres:/u:s3cret@h/db", "s3cret", "h/db"},
		{"postgres//u:s3cret@h/db", "s3cret", "h/db"},
		{"https://TOKENxyz@rpc.example.com", "TOKENxyz", "https://rpc.example.com"},
		{"postgres://h/db?sslmode=require&password=s3cret&x=1", "s3cret", "password=" + Mask + "&x=1"},
		{"postgres://h/db?sslpassword=s3cret", "s3cret", "sslpassword=" + Mask},
		{"host=h password='s 3cret' dbname=d", "3cret", "dbname=d"},
		{`{"password": "s3cret", "user": "u"}`, "s3cret", `"user": "u"`},
		{"dial: hunter2-long refused", "hunter2-long", "refused"},
		{`"x\"y": hunter2-long`, "hunter2-long", ""},
		// Not secrets: a P2P address, a time, a plain URL.
		{"abc123@127.0.0.1:26656", "", "abc123@127.0.0.1:26656"},
		{"at 12:30:01 height 5", "", "at 12:30:01 height 5"},
		{"http://127.0.0.1:26657/status", "", "http://127.0.0.1:26657/status"},
		{"a bab cab", "", "a bab cab"},
		{`binary = "module:PKG@VERSION"`, "", `"module:PKG@VERSION"`},
		// A word, then a message: a run ID that ends in "passwd".
		{"run 20261129-abc-passwd: no such run", "", "passwd: no such run"},
		{"password:s3cret", "s3cret", "password:" + Mask},
	} {
		got := Redact(tc.in)
		if tc.gone != "" && strings.Contains(got, tc.gone) {
			t.Errorf("Redact(%q) = %q: still holds %q", tc.in, got, tc.gone)
		}
		if !strings.Contains(got, tc.kept) {
			t.Errorf("Redact(%q) = %q: lost %q", tc.in, got, tc.kept)
		}
	}
}

func TestRememberedInJSON(t *testing.T) {
	t.Cleanup(Forget)
	Remember(`pa"ss\word`)
	got := Redact(`{"err":"auth pa\"ss\\word failed"}`)
	if strings.Contains(got, `ss\\word`) {
		t.Fatalf("the JSON form of a remembered secret stayed: %s", got)
	}
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{"postgres://u:p@h/d", "a:b@c", "password=x", `"token":"y"`, "http://h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Redact(s)
		// Masking is idempotent and never grows a secret back.
		if Redact(out) != out {
			t.Fatalf("Redact is not idempotent on %q: %q then %q", s, out, Redact(out))
		}
	})
}
