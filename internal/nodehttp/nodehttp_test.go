package nodehttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// Each cap is an error that names the address and the cap; an answer
// within the caps is read whole; a redirect to another host is refused.
func TestCaps(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			chunk := bytes.Repeat([]byte("a"), 64<<10)
			for range 64 { // 4 MiB, chunked
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "/declared":
			w.Header().Set("Content-Length", "100000000")
			w.Write([]byte("x"))
		case "/slow":
			w.Write([]byte("{"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/away":
			http.Redirect(w, r, "http://127.0.0.2:1/", http.StatusFound)
		case "/here":
			http.Redirect(w, r, "/ok", http.StatusFound)
		default:
			w.Write(bytes.Repeat([]byte("b"), 3<<20+5))
		}
	}))
	defer srv.Close()
	c := Client(Limits{Bytes: 3<<20 + 5, Time: 300 * time.Millisecond})
	ctx := context.Background()
	data, err := Get(ctx, c, srv.URL+"/ok")
	if err != nil || len(data) != 3<<20+5 {
		t.Fatalf("an answer at the cap: %d bytes, %v", len(data), err)
	}
	if data, err := Get(ctx, c, srv.URL+"/here"); err != nil || len(data) != 3<<20+5 {
		t.Errorf("a redirect on the same host: %d bytes, %v", len(data), err)
	}
	for path, want := range map[string]string{
		"/big":      "answered more than 3 MiB: not read",
		"/declared": "answered more than 3 MiB: not read",
		"/slow":     "did not answer within 300ms",
		"/away":     "redirected to another host (http://127.0.0.2:1/): not followed",
	} {
		_, err := Get(ctx, c, srv.URL+path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), srv.URL+path) {
			t.Errorf("%s: %v; want %q naming the address", path, err, want)
		}
		if _, over := OverCap(err); !over {
			t.Errorf("%s: OverCap does not know %v", path, err)
		}
	}
	// The caller's own deadline is the caller's, not a node's slowness.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := Get(short, c, srv.URL+"/slow"); err == nil || errors.As(err, new(*TooSlow)) {
		t.Errorf("the caller's deadline: %v; want a plain context error", err)
	}
}

func TestCanonical(t *testing.T) {
	for _, ok := range []struct{ in, want string }{
		{"http://127.0.0.1:26657", "http://127.0.0.1:26657"},
		{"HTTP://LocalHost:26657/", "http://localhost:26657"},
		{"https://user:p%40ss@rpc.example.com/cosmos/", "https://user:p%40ss@rpc.example.com/cosmos"},
		{"http://[::1]:26657", "http://[::1]:26657"},
	} {
		got, _, err := Canonical(ok.in)
		if err != nil || got != ok.want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", ok.in, got, err, ok.want)
		}
	}
	for _, bad := range []string{
		"http://127.0.0.1:26657#@evil.com",
		"http://127.0.0.1:26657@evil.com@x",
		"http://127.0.0.1\\@evil.com",
		"http://evil.com%2f@127.0.0.1",
		"http://127.0.0.1:26657/?x=1",
		"http://127.0.0.1:99999",
		"http://exa mple.com",
		"http://ex\u00e4mple.com",
		"ftp://127.0.0.1",
		"http://",
		"http://127.0.0.1:26657\r\nHost: evil",
		"http://%31%32%37.0.0.1",
		"http://under_score.example",
	} {
		if got, _, err := Canonical(bad); err == nil {
			t.Errorf("Canonical(%q) = %q; want it refused", bad, got)
		}
	}
	if _, _, err := Canonical("http://u:Zecret99@127.0.0.1@x"); err == nil || strings.Contains(err.Error(), "Zecret99") {
		t.Errorf("a refusal shows the password: %v", err)
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:26657", "http://a@b", "https://h/p/", "http://[::1]:1", "http://1.2.3.4#x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, u, err := Canonical(s)
		if err != nil {
			return
		}
		// The canonical form is a fixed point, and the host checked is
		// the one it names.
		again, u2, err := Canonical(out)
		if err != nil || again != out || u2.Host != u.Host {
			t.Fatalf("Canonical(%q) = %q, then %q (%v)", s, out, again, err)
		}
	})
}

// readAll gives back exactly what was sent, across its chunk sizes, with
// and without a length said up front.
func TestReadAll(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 4096, 4097, 3<<20 + 5} {
		want := bytes.Repeat([]byte{'x'}, n)
		for _, length := range []int64{-1, int64(n)} {
			var r io.Reader = bytes.NewReader(want)
			if n < 5000 {
				r = iotest.OneByteReader(r) // a read at a time
			}
			got, err := readAll(r, length)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%d bytes (length %d): got %d, %v", n, length, len(got), err)
			}
		}
	}
}
