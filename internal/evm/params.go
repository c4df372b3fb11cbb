package evm

import (
	"context"
	"errors"
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
	// QueryParamsResponse.params (1) is a Params, whose evm_denom is 1.
	var denom string
	var inner error
	err = cosmos.Fields(resp, func(num protowire.Number, _ uint64, params []byte) {
		if num == 1 {
			inner = cosmos.Fields(params, func(num protowire.Number, _ uint64, b []byte) {
				if num == 1 {
					denom = string(b)
				}
			})
		}
	})
	if err = errors.Join(err, inner); err != nil || denom == "" {
		return "", fmt.Errorf("x/vm's params name no evm_denom (%v)", err)
	}
	return denom, nil
}
