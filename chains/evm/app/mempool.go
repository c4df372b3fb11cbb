package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	abci "github.com/cometbft/cometbft/abci/types"
	ethtypes "github.com/ethereum/go-ethereum/core/types"

	"cosmossdk.io/log"

	"github.com/cosmos/cosmos-sdk/baseapp"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	sdkmempool "github.com/cosmos/cosmos-sdk/types/mempool"

	evmconfig "github.com/cosmos/evm/config"
	evmmempool "github.com/cosmos/evm/mempool"
	"github.com/cosmos/evm/mempool/txpool"
	evmtypes "github.com/cosmos/evm/x/vm/types"
)

// appMempool is Cosmos EVM's application-side mempool, wired as its
// reference chain (evmd) wires it: EVM txs pending and queued by account
// (a tx whose nonce leaves a gap is queued, not dropped, and broadcast
// again when the gap fills), blocks proposed from it by fee and nonce. It
// is on when app.toml's mempool.max-txs is 0 or more (evmd's switch; the
// SDK's default, -1, leaves it off and CometBFT's mempool orders txs).
//
// It is made at its first use rather than with the app: it needs the EVM
// chain config, which x/vm sets at genesis or at the first block.
type appMempool struct {
	a      *App
	logger log.Logger
	cfg    evmmempool.EVMMempoolConfig
	maxTx  int

	mu sync.Mutex
	m  *evmmempool.ExperimentalEVMMempool

	// promoted: txs the mempool promoted, broadcast by a goroutine of
	// their own (broadcastPromoted).
	promoted chan []*ethtypes.Transaction
}

// promotedBacklog bounds the promotions waiting to be broadcast; past it
// they are not (the node proposes them from its mempool all the same).
const promotedBacklog = 1024

var _ sdkmempool.ExtMempool = (*appMempool)(nil)

// setMempool wires the application-side mempool when app.toml asks for
// it: the app's mempool, its CheckTx (a nonce gap queued) and its
// PrepareProposal (txs taken from it).
func (a *App) setMempool(appOpts servertypes.AppOptions, logger log.Logger) {
	maxTx := evmconfig.GetCosmosPoolMaxTx(appOpts, logger)
	if maxTx < 0 {
		return
	}
	p := &appMempool{a: a, logger: logger, maxTx: maxTx, promoted: make(chan []*ethtypes.Transaction, promotedBacklog)}
	p.cfg = evmmempool.EVMMempoolConfig{
		AnteHandler:      a.AnteHandler(),
		LegacyPoolConfig: evmconfig.GetLegacyPoolConfig(appOpts, logger),
		BlockGasLimit:    evmconfig.GetBlockGasLimit(appOpts, logger),
		MinTip:           evmconfig.GetMinTip(appOpts, logger),
		BroadCastTxFn:    p.queuePromoted,
	}
	a.mempool = p
	a.SetMempool(p)
	a.SetCheckTxHandler(p.checkTx)
	proposals := baseapp.NewDefaultProposalHandler(p, a)
	proposals.SetSignerExtractionAdapter(evmmempool.NewEthSignerExtractionAdapter(sdkmempool.NewDefaultSignerExtractionAdapter()))
	a.SetPrepareProposal(proposals.PrepareProposalHandler())
}

// get is the mempool, made once the EVM chain config is set; nil before.
func (p *appMempool) get() *evmmempool.ExperimentalEVMMempool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil && evmtypes.GetChainConfig() != nil {
		cfg := p.cfg // the constructor fills in defaults
		p.m = evmmempool.NewExperimentalEVMMempool(p.a.CreateQueryContext, p.logger, p.a.EVMKeeper, p.a.FeeMarketKeeper,
			p.a.txConfig, p.a.clientCtx, &cfg, p.maxTx)
		go p.broadcastPromoted() // for the process's life, as the pool's own loops
	}
	return p.m
}

func (p *appMempool) Insert(ctx context.Context, tx sdk.Tx) error {
	m := p.get()
	if m == nil {
		return errors.New("the EVM mempool is not ready: no EVM chain config before genesis")
	}
	// A tx the mempool promoted from its queue comes back through CheckTx
	// (broadcastPromoted) to reach CometBFT's mempool and the other
	// nodes: the mempool holds it already.
	if err := m.Insert(ctx, tx); err != nil && !errors.Is(err, txpool.ErrAlreadyKnown) {
		return err
	}
	return nil
}

func (p *appMempool) Select(ctx context.Context, txs [][]byte) sdkmempool.Iterator {
	if m := p.get(); m != nil {
		return m.Select(ctx, txs)
	}
	return nil
}

func (p *appMempool) SelectBy(ctx context.Context, txs [][]byte, f func(sdk.Tx) bool) {
	if m := p.get(); m != nil {
		m.SelectBy(ctx, txs, f)
	}
}

func (p *appMempool) CountTx() int {
	if m := p.get(); m != nil {
		return m.CountTx()
	}
	return 0
}

func (p *appMempool) Remove(tx sdk.Tx) error {
	if m := p.get(); m != nil {
		return m.Remove(tx)
	}
	return sdkmempool.ErrTxNotFound
}

// checkTx is Cosmos EVM's CheckTx handler (mempool.NewCheckTxHandler)
// over the mempool made late: an EVM tx refused for its nonce (ahead of
// the account's: a gap) goes to the queue, and CometBFT still hears the
// refusal, so that only the mempool holds it until it is promoted.
func (p *appMempool) checkTx(runTx sdk.RunTx, req *abci.RequestCheckTx) (*abci.ResponseCheckTx, error) {
	gInfo, result, events, err := runTx(req.Tx, nil)
	if err != nil {
		if m := p.get(); m != nil && (errors.Is(err, evmmempool.ErrNonceGap) || errors.Is(err, evmmempool.ErrNonceLow)) {
			if qerr := m.InsertInvalidNonce(req.Tx); qerr != nil {
				err = qerr
			}
		}
		return sdkerrors.ResponseCheckTxWithEvents(err, gInfo.GasWanted, gInfo.GasUsed, events, false), nil
	}
	return &abci.ResponseCheckTx{GasWanted: int64(gInfo.GasWanted), GasUsed: int64(gInfo.GasUsed), //nolint:gosec // as the SDK's
		Log: result.Log, Data: result.Data, Events: sdk.MarkEventsToIndex(result.Events, nil)}, nil
}

// queuePromoted hands txs the mempool promoted from its queue to
// broadcastPromoted. It must not wait for them: the mempool calls it
// while a CheckTx may wait for the mempool (Cosmos EVM's default
// broadcasts in place, and a node's CheckTx of a promoted tx then waits
// for the CheckTx that promoted it, for ever).
func (p *appMempool) queuePromoted(txs []*ethtypes.Transaction) error {
	select {
	case p.promoted <- txs:
		return nil
	default:
		return fmt.Errorf("%d promoted txs not broadcast: %d promotions wait already", len(txs), promotedBacklog)
	}
}

// broadcastPromoted sends promoted txs to the node's own CometBFT mempool
// (and so to the other nodes), in the Cosmos envelope the chain's ante
// handler routes by and clients send (Cosmos EVM's default builds one
// without its extension option and sender, and reads a client context
// taken before the node had a client). A tx the node already holds is
// refused again; the others still go.
func (p *appMempool) broadcastPromoted() {
	for txs := range p.promoted {
		a := p.a
		if a.clientCtx.Client == nil {
			continue
		}
		denom := evmtypes.GetEVMCoinDenom()
		signer := ethtypes.LatestSignerForChainID(evmtypes.GetEthChainConfig().ChainID)
		var first error
		failed := 0
		for _, tx := range txs {
			if err := a.broadcastOne(tx, signer, denom); err != nil {
				failed++
				first = cmp.Or(first, err)
			}
		}
		if first != nil {
			p.logger.Debug("promoted txs not taken", "failed", failed, "of", len(txs), "first", first)
		}
	}
}

func (a *App) broadcastOne(tx *ethtypes.Transaction, signer ethtypes.Signer, denom string) error {
	msg := &evmtypes.MsgEthereumTx{}
	if err := msg.FromSignedEthereumTx(tx, signer); err != nil {
		return fmt.Errorf("%s: %w", tx.Hash(), err)
	}
	env, err := msg.BuildTx(a.txConfig.NewTxBuilder(), denom)
	if err != nil {
		return fmt.Errorf("envelope of %s: %w", tx.Hash(), err)
	}
	b, err := a.txConfig.TxEncoder()(env)
	if err != nil {
		return fmt.Errorf("encode %s: %w", tx.Hash(), err)
	}
	res, err := a.clientCtx.BroadcastTxSync(b)
	if err != nil {
		return fmt.Errorf("broadcast %s: %w", tx.Hash(), err)
	}
	if res.Code != 0 {
		return fmt.Errorf("broadcast %s: code %d: %s", tx.Hash(), res.Code, res.RawLog)
	}
	return nil
}
