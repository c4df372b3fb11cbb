package app

import (
	"context"
	"errors"
	"fmt"

	errorsmod "cosmossdk.io/errors"

	"cosmossdk.io/log/v2"

	"github.com/cosmos/cosmos-sdk/baseapp"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkmempool "github.com/cosmos/cosmos-sdk/types/mempool"

	evmmempool "github.com/cosmos/evm/mempool"
	"github.com/cosmos/evm/mempool/txpool"
	evmserver "github.com/cosmos/evm/server"
)

// setMempool wires Cosmos EVM's application-side mempool as its reference
// chain (evmd) wires it, when app.toml's mempool.max-txs is 0 or more
// (evmd's switch; the SDK's default, -1, leaves it off and CometBFT's
// mempool holds and orders the txs). EVM txs wait pending or queued by
// account (a tx whose nonce leaves a gap is queued, not refused); CometBFT
// v0.39 runs with config.toml's mempool.type = "app": it inserts txs it
// hears into this mempool (InsertTx), gossips what it reaps from it
// (ReapTxs) and proposes blocks from it (PrepareProposal).
func (a *App) setMempool(appOpts servertypes.AppOptions, logger log.Logger) error {
	maxTx := evmserver.GetCosmosPoolMaxTx(appOpts, logger)
	if maxTx < 0 {
		return nil
	}
	cfg := evmserver.ResolveMempoolConfig(a.AnteHandler(), appOpts, logger)
	if err := evmserver.ValidateReapBounds(appOpts, cfg.BlockGasLimit); err != nil {
		return fmt.Errorf("EVM mempool: %w", err)
	}
	enc := evmmempool.NewTxEncoder(a.txConfig)
	m := evmmempool.NewMempool(a.CreateQueryContext, logger, a.EVMKeeper, a.FeeMarketKeeper, a.txConfig,
		evmmempool.NewTxRechecker(cfg.AnteHandler, enc), evmmempool.NewTxRechecker(cfg.AnteHandler, enc), cfg, maxTx)
	a.mempool = m
	// Txs in a proposal come from the mempool, which checked them: the
	// proposal only encodes them (evmd's NoCheckProposalTxVerifier).
	a.SetPrepareProposal(baseapp.NewDefaultProposalHandler(m, encodeOnly{a.BaseApp}).PrepareProposalHandler())
	a.SetInsertTxHandler(m.NewInsertTxHandler(a.TxDecode))
	a.SetReapTxsHandler(m.NewReapTxsHandler())
	a.SetCheckTxHandler(m.NewCheckTxHandler(a.TxDecode, evmserver.GetMempoolCheckTxTimeout(appOpts, logger)))
	a.SetMempool(m)
	a.SetPrepareCheckStater(func(sdk.Context) {
		if !m.HasEventBus() {
			m.NotifyNewBlock()
		}
	})
	return nil
}

// encodeOnly verifies a proposal's txs by encoding them.
type encodeOnly struct{ *baseapp.BaseApp }

func (e encodeOnly) PrepareProposalVerifyTx(tx sdk.Tx) ([]byte, error) { return e.TxEncode(tx) }

// cometOnly stands in for the EVM mempool when it is off, so that the
// node runs on CometBFT's mempool alone: Cosmos EVM v0.7's JSON-RPC server
// inserts every eth_sendRawTransaction into the app's mempool (and its
// start fails without one), so here an insert is a broadcast_tx_sync to
// the node's own CometBFT mempool, CheckTx's refusal the error, as Cosmos
// EVM v0.6's JSON-RPC sent txs. It holds nothing: the txpool_* calls
// answer nothing.
type cometOnly struct{ a *App }

var _ sdkmempool.ExtMempool = cometOnly{}

func (c cometOnly) Insert(_ context.Context, tx sdk.Tx) error {
	if c.a.clientCtx.Client == nil {
		return errors.New("the node is not serving yet")
	}
	b, err := c.a.txConfig.TxEncoder()(tx)
	if err != nil {
		return err
	}
	res, err := c.a.clientCtx.BroadcastTxSync(b)
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return errorsmod.ABCIError(res.Codespace, res.Code, res.RawLog)
	}
	return nil
}

func (cometOnly) Select(context.Context, [][]byte) sdkmempool.Iterator  { return nil }
func (cometOnly) SelectBy(context.Context, [][]byte, func(sdk.Tx) bool) {}
func (cometOnly) CountTx() int                                          { return 0 }
func (cometOnly) Remove(sdk.Tx) error                                   { return sdkmempool.ErrTxNotFound }
func (cometOnly) RemoveWithReason(context.Context, sdk.Tx, sdkmempool.RemoveReason) error {
	return sdkmempool.ErrTxNotFound
}

// GetTxPool is nil: no pool (Cosmos EVM's JSON-RPC asks for it only with
// a mempool of its own).
func (cometOnly) GetTxPool() *txpool.TxPool { return nil }
