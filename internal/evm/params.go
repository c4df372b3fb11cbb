package evm

import (
	"context"
	"fmt"
	"net/http"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/chainperf/chainperf/internal/cosmos"
)

// GasDenom reads the bank denom of the chain's gas token from x/vm's
// params (evm_denom), through the node at rpc.
func GasDenom(ctx context.Context, c *http.Client, rpc string) (string, error) {
	resp, err := cosmos.Query(ctx, c, rpc, "/cosmos.evm.vm.v1.Query/Params", nil, 0)
	if err != nil {
		return "", fmt.Errorf("x/vm's params (is this a Cosmos EVM chain?): %w", err)
	}
	params, err := field(resp, 1)
	if err != nil {
		return "", fmt.Errorf("x/vm's params: %w", err)
	}
	denom, err := field(params, 1)
	if err != nil || len(denom) == 0 {
		return "", fmt.Errorf("x/vm's params name no evm_denom (%v)", err)
	}
	return string(denom), nil
}

// field is the last bytes field num of the protobuf message b.
func field(b []byte, num protowire.Number) ([]byte, error) {
	var out []byte
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil, protowire.ParseError(l)
		}
		b = b[l:]
		if n == num && typ == protowire.BytesType {
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return nil, protowire.ParseError(l)
			}
			out, b = v, b[l:]
			continue
		}
		l = protowire.ConsumeFieldValue(n, typ, b)
		if l < 0 {
			return nil, protowire.ParseError(l)
		}
		b = b[l:]
	}
	return out, nil
}
