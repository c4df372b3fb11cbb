package cosmos

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestBlockMaxGasRidesOutAFreshBlock: a node asked just after a commit
// has no parameters for its newest height yet; BlockMaxGas asks again,
// and gives up with the node's words when the answer never comes or is
// another error.
func TestBlockMaxGasRidesOutAFreshBlock(t *testing.T) {
	const missing = `{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"Internal error","data":"could not find consensus params for height #48: value retrieved from db is empty"}}`
	const params = `{"jsonrpc":"2.0","id":-1,"result":{"block_height":"48","consensus_params":{"block":{"max_bytes":"22020096","max_gas":"10000000"}}}}`
	for _, tc := range []struct {
		name    string
		answers []string // the last repeats
		want    int64
		err     string
	}{
		{"ready", []string{params}, 10000000, ""},
		{"a moment late", []string{missing, missing, params}, 10000000, ""},
		{"never", []string{missing}, 0, "could not find consensus params for height #48"},
		{"another error", []string{`{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"Internal error","data":"pruned"}}`, params}, 0, "pruned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := min(int(n.Add(1))-1, len(tc.answers)-1)
				fmt.Fprint(w, tc.answers[i])
			}))
			defer srv.Close()
			got, err := BlockMaxGas(context.Background(), srv.Client(), srv.URL)
			if tc.err == "" && (err != nil || got != tc.want) {
				t.Fatalf("%d, %v; want %d", got, err, tc.want)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("%d, %v; want an error saying %q", got, err, tc.err)
			}
		})
	}
}
