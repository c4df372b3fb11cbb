package chain

import (
	"context"
	"fmt"
	"io"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/nodehttp"
)

// MaxLearnBlocks bounds how many blocks one learning reads.
const MaxLearnBlocks = cosmos.MaxLearnBlocks

// LearnWorkload writes to w a workload whose message mix is a Cosmos SDK
// network's: blocks from..to of the node at rpc (to 0: its latest; from 0:
// blocks before to), decoded with the descriptors the chain serves. It
// returns a line saying what it read.
func LearnWorkload(ctx context.Context, rpc string, from, to int64, blocks int, w io.Writer) (string, error) {
	c := nodehttp.Client(nodehttp.Query)
	desc, err := cosmos.Descriptors(ctx, c, rpc)
	if err != nil {
		return "", err
	}
	l, err := cosmos.Learn(ctx, c, rpc, from, to, blocks, desc)
	if err != nil {
		return "", err
	}
	if err := l.WriteTOML(w); err != nil {
		return "", err
	}
	return fmt.Sprintf("learned %d message types from %d txs in blocks %d to %d", len(l.Types), l.Txs, l.From, l.To), nil
}
