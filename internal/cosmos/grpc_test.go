package cosmos

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"
)

// A gRPC server that answers any method with a balance of 42 of the denom
// asked, or an error for an address it does not know: the query's bytes
// go out and come back as they are, with no generated types.
func TestGRPCQueryRawBytes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var asked string
	srv := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		var req []byte
		if err := stream.RecvMsg(&req); err != nil {
			return err
		}
		asked, _ = grpc.MethodFromServerStream(stream)
		var addr, denom string
		Fields(req, func(num protowire.Number, _ uint64, b []byte) { //nolint:errcheck // test input
			if num == 1 {
				addr = string(b)
			} else {
				denom = string(b)
			}
		})
		if addr != "cosmos1known" {
			return errUnknown
		}
		coin := appendString(appendString(nil, 1, denom), 2, "42")
		answer := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), coin)
		return stream.SendMsg(&answer)
	}))
	go srv.Serve(ln) //nolint:errcheck // stopped below
	defer srv.Stop()
	g, err := DialGRPC(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	resp, err := g.Query(context.Background(), "/cosmos.bank.v1beta1.Query/Balance", appendString(appendString(nil, 1, "cosmos1known"), 2, "stake"))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := coinIn(resp); err != nil || n != 42 || asked != "/cosmos.bank.v1beta1.Query/Balance" {
		t.Fatalf("balance %d, %v, method %q", n, err, asked)
	}
	if _, err := g.Query(context.Background(), "/cosmos.bank.v1beta1.Query/Balance", appendString(nil, 1, "cosmos1other")); err == nil ||
		!strings.Contains(err.Error(), "no such account") {
		t.Fatalf("an error answer: %v", err)
	}
}

var errUnknown = errors.New("no such account")

// A REST gateway that answers without a balance is a failed read that
// says what the node said.
func TestRESTBalanceRefusals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "cosmos1known") && r.URL.Query().Get("denom") == "stake" {
			w.Write([]byte(`{"balance":{"denom":"stake","amount":"7"}}`))
			return
		}
		w.Write([]byte(`{"code":3,"message":"invalid address \u001b[2J"}`))
	}))
	defer srv.Close()
	c := srv.Client()
	if err := restBalance(context.Background(), c, srv.URL, "cosmos1known", "stake"); err != nil {
		t.Fatal(err)
	}
	err := restBalance(context.Background(), c, srv.URL, "bad", "stake")
	if err == nil || !strings.Contains(err.Error(), `invalid address \x1b[2J`) {
		t.Fatalf("%v", err)
	}
}
