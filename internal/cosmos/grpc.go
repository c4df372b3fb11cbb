package cosmos

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// maxGRPCAnswer bounds one gRPC query's answer (a balance is bytes).
const maxGRPCAnswer = 1 << 20

// rawCodec sends a query's protobuf bytes as they are and hands back the
// answer's: the request and answer are encoded by hand (appendString,
// Fields) as for abci_query, with no chain's generated types. It names
// itself "proto", the content subtype every SDK gRPC server decodes.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("raw codec: %T is not *[]byte", v)
	}
	return *b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("raw codec: %T is not *[]byte", v)
	}
	*b = append((*b)[:0], data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

// GRPC is a connection to one node's gRPC server (app.toml [grpc]).
type GRPC struct {
	Addr string // host:port
	conn *grpc.ClientConn
}

// DialGRPC connects to the gRPC server at addr (host:port, plaintext, as
// the SDK serves it); the first query makes the connection.
func DialGRPC(addr string) (*GRPC, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{}), grpc.MaxCallRecvMsgSize(maxGRPCAnswer)))
	if err != nil {
		return nil, fmt.Errorf("gRPC %s: %w", addr, err)
	}
	return &GRPC{Addr: addr, conn: conn}, nil
}

// Query asks method (the query's full name, "/cosmos.bank.v1beta1.Query/
// Balance") with the request's protobuf bytes and returns the answer's.
func (g *GRPC) Query(ctx context.Context, method string, req []byte) ([]byte, error) {
	var out []byte
	if err := g.conn.Invoke(ctx, method, &req, &out); err != nil {
		return nil, fmt.Errorf("gRPC %s %s: %w", g.Addr, method, err)
	}
	return out, nil
}

// Close ends the connection.
func (g *GRPC) Close() error { return g.conn.Close() }
