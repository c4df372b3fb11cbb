package observe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A node's mempool as CometBFT lists it is read; what is not one is an
// error naming the node and what is wrong.
func TestReadUnconfirmed(t *testing.T) {
	answers := map[string]string{
		"/ok":      `{"jsonrpc":"2.0","id":-1,"result":{"n_txs":"2","total":"7","total_bytes":"300","txs":["YT0x","Yj0y"]}}`,
		"/empty":   `{"result":{"n_txs":"0","total":"0","total_bytes":"0","txs":null}}`,
		"/notjson": `<html>`,
		"/total":   `{"result":{"total":"-3","txs":[]}}`,
		"/more":    `{"result":{"total":"1","txs":["YT0x","Yj0y"]}}`,
		"/base64":  `{"result":{"total":"1","txs":["!!"]}}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		node, _ := strings.CutSuffix(r.URL.Path, "/unconfirmed_txs")
		if r.URL.Query().Get("limit") != "100" {
			http.Error(w, "limit", 400)
			return
		}
		w.Write([]byte(answers[node]))
	}))
	defer srv.Close()
	ctx := context.Background()
	u, err := ReadUnconfirmed(ctx, srv.URL+"/ok")
	if err != nil || u.Total != 7 || len(u.Txs) != 2 || string(u.Txs[0]) != "a=1" || string(u.Txs[1]) != "b=2" {
		t.Errorf("ok: %+v, %v", u, err)
	}
	if u, err := ReadUnconfirmed(ctx, srv.URL+"/empty"); err != nil || u.Total != 0 || len(u.Txs) != 0 {
		t.Errorf("empty: %+v, %v", u, err)
	}
	for node, want := range map[string]string{
		"/notjson": "not a CometBFT answer",
		"/total":   `total "-3": not a height or count`,
		"/more":    "2 txs listed of 1 in all",
		"/base64":  "tx 0 is not base64",
	} {
		_, err := ReadUnconfirmed(ctx, srv.URL+node)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), node+"/unconfirmed_txs") {
			t.Errorf("%s: %v; want an error naming the node and %q", node, err, want)
		}
	}
}

// The parser never panics, and what it returns holds together.
func FuzzParseUnconfirmed(f *testing.F) {
	f.Add([]byte(`{"result":{"total":"2","txs":["YT0x","Yj0y"]}}`))
	f.Add([]byte(`{"result":{"total":"99999999999999999999","txs":[]}}`))
	f.Add([]byte(`{"result":null}`))
	f.Add([]byte(`{"result":{"total":3,"txs":["", "AA=="]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := parseUnconfirmed("n", data)
		if err != nil {
			return
		}
		if u.Total < 0 || int64(len(u.Txs)) > u.Total || len(u.Txs) > maxListed {
			t.Errorf("%+v from %q", u, data)
		}
	})
}
