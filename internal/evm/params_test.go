package evm

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/chainperf/chainperf/internal/nodehttp"
)

// GasDenom reads evm_denom out of x/vm's QueryParamsResponse, other
// fields around it; an answer without it, or not protobuf, is refused.
func TestGasDenom(t *testing.T) {
	str := func(b []byte, f protowire.Number, s string) []byte {
		return protowire.AppendString(protowire.AppendTag(b, f, protowire.BytesType), s)
	}
	params := protowire.AppendVarint(protowire.AppendTag(str(nil, 1, "atheirs"), 4, protowire.VarintType), 3855)
	for _, c := range []struct {
		name  string
		value []byte
		want  string
	}{
		{"params", str(nil, 1, string(params)), "atheirs"},
		{"no evm_denom", str(nil, 1, string(protowire.AppendVarint(protowire.AppendTag(nil, 4, protowire.VarintType), 1))), ""},
		{"empty", nil, ""},
		{"not protobuf", []byte{0x0a, 0xff}, ""},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"result":{"response":{"code":0,"value":%q}}}`, base64.StdEncoding.EncodeToString(c.value))
		}))
		got, err := GasDenom(context.Background(), nodehttp.Client(nodehttp.Query), srv.URL)
		srv.Close()
		if got != c.want || (err == nil) != (c.want != "") {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}
