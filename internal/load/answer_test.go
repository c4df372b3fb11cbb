package load

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

const (
	plainAnswer   = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"id\":1,.}\n"
	chunkedAnswer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nDate: x\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: t\r\n\r\n"
)

func TestParseAnswer(t *testing.T) {
	two := plainAnswer + chunkedAnswer
	n, a, scratch, err := parseAnswer([]byte(two), nil)
	if err != nil || n != len(plainAnswer) || a.status != 200 || string(a.body) != "{\"id\":1,.}\n" || a.close {
		t.Fatalf("first: %d %+v %v", n, a, err)
	}
	m, a, _, err := parseAnswer([]byte(two[n:]), scratch)
	if err != nil || m != len(chunkedAnswer) || string(a.body) != "hello world" {
		t.Fatalf("second: %d %q %v", m, a.body, err)
	}
	// Cut anywhere, an answer has not come yet.
	for _, s := range []string{plainAnswer, chunkedAnswer} {
		for i := range len(s) {
			if n, _, _, err := parseAnswer([]byte(s[:i]), nil); n != 0 || err != nil {
				t.Fatalf("%q cut at %d: %d, %v", s, i, n, err)
			}
		}
	}
	closing := "HTTP/1.1 503 Service Unavailable\r\nconnection: Close\r\ncontent-length: 0\r\n\r\n"
	if n, a, _, err := parseAnswer([]byte(closing), nil); n != len(closing) || a.status != 503 || !a.close || err != nil {
		t.Fatalf("closing: %d %+v %v", n, a, err)
	}
	for _, bad := range []string{
		"HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\n",
		"HTTP/1.1 200 OK\r\n\r\n", // no length
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd",
		"HTTP/1.1 200 OK\r\nBad Name: 1\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX: a\x01b\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-" + strings.Repeat("a", maxAnswerHead) + ": 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-" + strings.Repeat("a", maxAnswerHead), // never ends
	} {
		if n, _, _, err := parseAnswer([]byte(bad), nil); err == nil {
			t.Errorf("%.60q: took %d bytes, want an error", bad, n)
		}
	}
}

// FuzzParseAnswer: an answer parseAnswer reads, net/http reads the same
// (status and body), and it is as long as parseAnswer says.
func FuzzParseAnswer(f *testing.F) {
	f.Add([]byte(plainAnswer + chunkedAnswer))
	f.Add([]byte(chunkedAnswer))
	f.Add([]byte("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 500 x\r\nConnection: close\r\nContent-Length: 2\r\n\r\nab"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, a, _, err := parseAnswer(b, nil)
		if err != nil || n == 0 {
			return
		}
		if n > len(b) {
			t.Fatalf("took %d of %d bytes", n, len(b))
		}
		r := bufio.NewReader(bytes.NewReader(b[:n]))
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("parseAnswer read %q; net/http: %v", b[:n], err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("parseAnswer read %q; net/http's body: %v", b[:n], err)
		}
		if resp.StatusCode != a.status || !bytes.Equal(body, a.body) {
			t.Fatalf("%q: parseAnswer %d %q, net/http %d %q", b[:n], a.status, a.body, resp.StatusCode, body)
		}
		if r.Buffered() != 0 {
			t.Fatalf("%q: net/http left %d bytes of what parseAnswer took", b[:n], r.Buffered())
		}
	})
}
