package experiment

import (
	"context"
	"fmt"
	"sync"

	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/ibc"
	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/testnet"
)

// A backLoad is the counterparty's share of the load (ibc.back): its own
// workload sent to its nodes beside each phase of the run's, its txs
// followed and its wallets checked as the run's are, in a run of its own
// that is not stored (its figures go into the "transfers back" finding).
type backLoad struct {
	share   float64
	work    load.Workload
	targets []string
	run     results.Run

	mu   sync.Mutex
	errs []error
}

// startBack makes the counterparty's workload once its testnet is up
// (nothing without ibc.back).
func (rl *relay) startBack(ctx context.Context) error {
	if rl.share <= 0 {
		return nil
	}
	b := &backLoad{share: rl.share, targets: rl.net.RPCs(rl.net.Testnet.ByRole(testnet.RoleValidator))}
	var err error
	if b.work, err = rl.adapter.Workload(ctx, b.targets, &b.run); err != nil {
		return fmt.Errorf("the counterparty's load: %w", err)
	}
	rl.back = b
	return nil
}

// sendBack drives the counterparty's load through the phase a runs on the
// run's chain, at ibc.back of its rate, until the returned func, which
// waits for it.
func (rl *relay) sendBack(ctx context.Context, a DriveOptions) func() {
	if rl == nil || rl.back == nil {
		return func() {}
	}
	b := rl.back
	o := DriveOptions{RunID: a.RunID + ".back", Targets: b.targets, Follow: b.targets, Load: a.Load, Workload: rl.peer.Workload, Made: b.work,
		Warmup: a.Warmup, Cooldown: a.Cooldown, Drain: a.Drain, Log: a.Log, OnlySender: a.OnlySender}
	o.Load.Rate *= b.share
	if c, ok := b.work.(chain.Committer); ok {
		o.OnCommit = c.Committed
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p, err := Drive(ctx, o)
		b.mu.Lock()
		defer b.mu.Unlock()
		if p != nil {
			b.run.Phases = append(b.run.Phases, p)
		}
		if err != nil {
			b.errs = append(b.errs, err)
		}
	}()
	return func() { <-done }
}

// finishBack is the relay of the transfers back, from ledger (their
// packets, B's channel end to A's, read from both chains' blocks up to
// heights a and b once the relayer stopped): it credits what the relayer's
// acknowledgements refunded to the counterparty's wallets, checks them,
// and reads B's escrow and A's vouchers at those heights.
func (rl *relay) finishBack(ctx context.Context, rep ibc.Relay, ledger *ibc.Ledger, a, b int64) ibc.Relay {
	bl := rl.back
	cfg := rl.hermes.Config
	rep.Back, rep.Ledger, rep.Denom, rep.Pace = true, ledger, cfg.B.Denom, nil
	rep.Escrowed, rep.Minted, rep.Balances = 0, 0, ""
	rep.CPU, rep.RSS, rep.Backlog = 0, 0, 0 // the relayer's use is in the run's own finding
	rl.b.Refunded(ledger.Refunds(cfg.B.Denom))
	escrow, err := ibc.EscrowAccount(cfg.B.Prefix, "transfer", rl.channel.B)
	if err == nil {
		rep.Escrowed, err = ibc.Balance(ctx, cfg.B.API, escrow, cfg.B.Denom, b)
	}
	if err == nil {
		rep.Minted, err = ibc.Supply(ctx, cfg.A.API, ibc.VoucherDenom("transfer", rl.channel.A, cfg.B.Denom), a)
	}
	if err != nil {
		rep.Balances = err.Error()
	}
	bl.mu.Lock()
	defer bl.mu.Unlock()
	var sent, committed int64
	for _, p := range bl.run.Phases {
		sent += p.Generator.Dispatched
		committed += p.Ledger.Fates[load.FateCommitted]
	}
	rep.Load = fmt.Sprintf("the counterparty's: %d txs sent at %g times this chain's rate, %d committed", sent, bl.share, committed)
	check := "not checked"
	if c, ok := rl.adapter.(chain.Checker); ok && len(bl.errs) == 0 {
		if err := c.Finish(ctx, bl.targets, &bl.run); err != nil {
			check, rep.Off = err.Error(), true
		} else if rec := chain.CosmosOf(&bl.run); rec != nil && rec.Balances != nil {
			check, rep.Off = rec.Balances.String(), !rec.Balances.OK()
		}
	}
	for _, err := range bl.errs {
		check, rep.Off = "its load failed: "+err.Error(), true
	}
	rep.Load += "; its wallets: " + check
	return rep
}
