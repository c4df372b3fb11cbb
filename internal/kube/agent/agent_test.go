package agent

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Requests the agent cannot act on are refused before anything changes
// in the pod: addresses that are not IPv4, bodies that are not JSON, an
// RTT target that is not IP:PORT, a link with a negative delay.
func TestBadRequests(t *testing.T) {
	srv := httptest.NewServer((&server{port: 1023}).routes())
	defer srv.Close()
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "/cut", `{"peers": ["10.0.0.1", "fe80::1"]}`, `peer "fe80::1" is not an IPv4 address`},
		{"POST", "/cut", `{"peers": [`, "bad request"},
		{"POST", "/delay", `{"links": {"nope": {}}}`, `peer "nope" is not an IPv4 address`},
		{"POST", "/delay", `{"links": {"10.0.0.2": {"Delay": -5}}}`, "peer 10.0.0.2: delay -5ns"},
		{"GET", "/rtt?to=10.0.0.1", "", "give IP:PORT"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		buf := new(strings.Builder)
		_, _ = io.Copy(buf, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(buf.String(), c.want) {
			t.Errorf("%s %s %s: %s %q; want 400 and %q", c.method, c.path, c.body, resp.Status, buf.String(), c.want)
		}
	}
}
