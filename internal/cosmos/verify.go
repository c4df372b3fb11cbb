package cosmos

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/load"
)

// Balances is the balance check after a run: every wallet's balance read
// from the chain against what the funded amounts and the committed txs
// say it must be.
type Balances struct {
	Denom   string `json:"denom"`
	Wallets int    `json:"wallets"`
	Height  int64  `json:"height"` // the state read, on the first node
	Funded  uint64 `json:"funded"` // sum of the balances at the start
	Held    uint64 `json:"held"`   // sum of the balances now
	// FeesPaid is the fees of the committed txs (code 0); FeeCollector
	// what the fee collector holds (chains without distribution keep
	// every fee there).
	FeesPaid     uint64 `json:"fees_paid"`
	FeeCollector uint64 `json:"fee_collector"`
	Committed    int    `json:"committed"` // txs with code 0
	Failed       int    `json:"failed"`    // committed with code != 0
	// FailedFees: the fees of failed txs. A tx that fails in its block
	// pays its fee when the failure is in its message, not when it is in
	// the ante handler (a sequence that moved on), so each sender's
	// balance tells how many of its failed txs paid.
	FailedFees uint64 `json:"failed_fees"`
	// Delegated and Unbonding: what the wallets that sent staking
	// messages (Staking of them) have bonded and unbonding now.
	Staking   int    `json:"staking_wallets,omitempty"`
	Delegated uint64 `json:"delegated,omitempty"`
	Unbonding uint64 `json:"unbonding,omitempty"`
	// Rewards: the staking rewards the wallets' staking txs withdrew, as
	// the chain's withdraw_rewards events say (0 on a chain without
	// distribution).
	Rewards uint64 `json:"rewards,omitempty"`
	// ByEvents: committed txs with a templated message, whose effect on
	// every wallet is what their coin_spent and coin_received events say;
	// Outside what those txs moved out of the wallets (to contracts and
	// modules) beyond their fees, less what they brought in.
	ByEvents int   `json:"by_events,omitempty"`
	Outside  int64 `json:"outside,omitempty"`
	// Refunded: what txs not of the load gave back to the wallets (a
	// relayer's acknowledgements and timeouts of transfers the other chain
	// refused or never took), as Workload.Credit was told.
	Refunded uint64 `json:"refunded,omitempty"`
	// Checked: every wallet; Mismatched of them hold what no count of
	// paid fees of their failed txs explains, or have other stake than
	// their committed txs say.
	Checked    int      `json:"checked"`
	Mismatched int      `json:"mismatched"`
	Examples   []string `json:"examples,omitempty"`
	// Conserved: held + delegated + unbonding + fees paid + failed txs'
	// fees = funded + rewards withdrawn, exactly.
	Conserved bool `json:"conserved"`
}

// OK says whether nothing was lost.
func (b *Balances) OK() bool { return b.Conserved && b.Mismatched == 0 }

func (b *Balances) String() string {
	stake := ""
	if b.Staking > 0 {
		stake = fmt.Sprintf(" + delegated %d + unbonding %d", b.Delegated, b.Unbonding)
	}
	rewards := ""
	if b.Rewards > 0 {
		rewards = fmt.Sprintf(" + staking rewards withdrawn %d", b.Rewards)
	}
	if b.ByEvents > 0 {
		stake += fmt.Sprintf(" + %d moved out by %d templated txs (their coin events)", b.Outside, b.ByEvents)
	}
	if b.Refunded > 0 {
		rewards += fmt.Sprintf(" + refunded by the relayer's txs %d", b.Refunded)
	}
	return fmt.Sprintf("%d wallets: funded %d%s%s, held %d%s + fees %d + failed txs' fees %d (fee collector %d); %d committed, %d failed; %d of %d checked wallets mismatched",
		b.Wallets, b.Funded, b.Denom, rewards, b.Held, stake, b.FeesPaid, b.FailedFees, b.FeeCollector, b.Committed, b.Failed, b.Mismatched, b.Checked)
}

// Verify reads every wallet's balance from rpcs and checks it. Txs a node
// accepted whose block the run did not see (the drain timed out) are first
// waited for (empty mempools, up to wait) and looked up by hash.
func (w *Workload) Verify(ctx context.Context, rpcs []string, prefix string, wait time.Duration) (*Balances, error) {
	if err := w.settle(ctx, rpcs, wait); err != nil {
		return nil, err
	}
	// Every balance is read from one node at one height that holds every
	// committed tx: nodes a block apart would show half-applied blocks. A
	// node stores block H before its app commits it, so the state read is
	// that of H-1, once H-1 is at least the last block with one of our txs.
	rpc := rpcs[0]
	w.mu.Lock()
	need := w.height
	w.mu.Unlock()
	tip, err := WaitHeight(ctx, w.http, rpc, need+1, wait)
	if err != nil {
		return nil, err
	}
	at := tip - 1
	n := len(w.wallets)
	b := &Balances{Denom: w.cfg.Denom, Wallets: n, Height: at}
	for i := range n {
		b.Funded += w.start(i)
	}
	t := w.tally(b)
	expected, delegated, staking, failedFrom := t.expected, t.delegated, t.staking, t.failedFrom
	rewards, err := rewardsWithdrawn(ctx, w.http, rpc, t.stakingTxs, w.wallets, w.cfg.Denom)
	if err != nil {
		return nil, fmt.Errorf("read the staking rewards the run's txs withdrew: %w", err)
	}
	for i, r := range rewards {
		expected[i] += int64(r)
		b.Rewards += r
	}
	if err := w.byEvents(ctx, rpc, t, b); err != nil {
		return nil, err
	}
	w.credited(expected, b)
	held, err := balancesAt(ctx, w.http, rpc, w.wallets, w.cfg.Denom, at)
	if err != nil {
		return nil, err
	}
	fc, err := QueryBalance(ctx, w.http, rpc, ModuleAddress(prefix, "fee_collector"), w.cfg.Denom, at)
	if err != nil {
		return nil, err
	}
	b.FeeCollector = fc
	fee := int64(w.cfg.Fee)
	for i := range held {
		have := held[i]
		b.Held += held[i]
		b.Checked++
		var st Staked
		if staking[i] {
			if st, err = QueryStaked(ctx, w.http, rpc, w.wallets[i].Address, at); err != nil {
				return nil, err
			}
			b.Staking++
			b.Delegated += st.Delegated
			b.Unbonding += st.Unbonding
			have += st.Unbonding
		}
		want := int64(w.start(i)) + expected[i]
		paid, ok := walletMatches(want, int64(have), delegated[i], int64(st.Delegated), fee, failedFrom[i])
		if !ok {
			b.Mismatched++
			if len(b.Examples) < 5 {
				b.Examples = append(b.Examples, fmt.Sprintf("wallet %d (%s): holds %d (%d unbonding) and %d delegated, committed txs say %d and %d delegated (less up to %d failed txs' fees of %d)",
					i, w.wallets[i].Address, have, st.Unbonding, st.Delegated, want, delegated[i], failedFrom[i], fee))
			}
			continue
		}
		b.FailedFees += uint64(paid * fee)
	}
	b.Conserved = int64(b.Held+b.Delegated+b.Unbonding+b.FeesPaid+b.FailedFees)+b.Outside == int64(b.Funded+b.Rewards+b.Refunded)
	return b, nil
}

// tallied is what the committed txs say each wallet's balance and stake
// did, before the chain's own word on rewards and templated txs.
type tallied struct {
	// Changes from the start balance, by wallet: of the balance (with
	// what is unbonding: an entry that matures moves back into it), and
	// of what is delegated.
	expected, delegated, failedFrom []int64
	staking                         map[int]bool
	stakingTxs                      map[load.Hash]int32 // committed txs that may have withdrawn rewards
	templatedTxs                    map[load.Hash]int32 // committed txs whose effect the chain's events say
	stakedByEvents                  int64               // what their built-in delegations moved: delegated, not out
}

// tally goes through every tx made, counting into b the committed and
// failed ones and their fees.
func (w *Workload) tally(b *Balances) tallied {
	n := len(w.wallets)
	t := tallied{expected: make([]int64, n), delegated: make([]int64, n), failedFrom: make([]int64, n),
		staking: map[int]bool{}, stakingTxs: map[load.Hash]int32{}, templatedTxs: map[load.Hash]int32{}}
	w.mu.Lock()
	defer w.mu.Unlock()
	for h, e := range w.effects {
		templated := w.templated(e)
		for _, m := range e.msgs {
			if w.cfg.Mix[m.kind].staking() {
				t.staking[int(e.from)] = true
				if e.code == 0 && !templated { // a templated tx's rewards are in its events
					t.stakingTxs[h] = e.from
				}
			}
		}
		switch {
		case e.code == 0:
			b.Committed++
			b.FeesPaid += w.cfg.Fee
			if templated {
				t.templatedTxs[h] = e.from
			} else {
				t.expected[e.from] -= int64(w.cost(e))
			}
			for _, m := range e.msgs {
				k := w.cfg.Mix[m.kind]
				if !templated {
					for _, r := range m.to {
						t.expected[r] += int64(k.Amount)
					}
				}
				// Stake is the staking module's, not a coin event: as signed.
				switch k.Msg {
				case MsgDelegateKind:
					t.delegated[e.from] += int64(k.Amount)
					if templated {
						t.stakedByEvents += int64(k.Amount)
					}
				case MsgUndelegateKind:
					t.delegated[e.from] -= int64(k.Amount)
					t.expected[e.from] += int64(k.Amount) // unbonding, counted with the balance
				}
			}
		case e.code > 0:
			b.Failed++
			t.failedFrom[e.from]++
		}
	}
	return t
}

// byEvents adds to each wallet's expected balance what the committed
// templated txs' coin events say it gained or lost (their fees too), and
// counts into b what those txs moved out of the wallets.
func (w *Workload) byEvents(ctx context.Context, rpc string, t tallied, b *Balances) error {
	if len(t.templatedTxs) == 0 {
		return nil
	}
	index := make(map[string]int, len(w.wallets))
	for i, wl := range w.wallets {
		index[wl.Address] = i
	}
	deltas, err := eventDeltas(ctx, w.http, rpc, t.templatedTxs, w.cfg.Denom)
	if err != nil {
		return fmt.Errorf("read the coin events of the run's templated txs: %w", err)
	}
	b.ByEvents = len(t.templatedTxs)
	b.Outside = -int64(b.ByEvents)*int64(w.cfg.Fee) - t.stakedByEvents
	for addr, d := range deltas {
		if i, ok := index[addr]; ok {
			t.expected[i] += d
			b.Outside -= d
		}
	}
	return nil
}

// Credit tells Verify what txs not of the load gave wallets, by address
// (a relayer's refunds of transfers): added to what they should hold.
func (w *Workload) Credit(by map[string]uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.credits = by
}

func (w *Workload) credited(expected []int64, b *Balances) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, wl := range w.wallets {
		if x, ok := w.credits[wl.Address]; ok {
			expected[i] += int64(x)
			b.Refunded += x
		}
	}
}

// walletMatches says whether a wallet is as its committed txs say: it has
// delegated wantStake (stake is what the chain says), and holds want
// (balance and unbonding together) less some of its failed txs' fees,
// whose count it returns.
func walletMatches(want, held, wantStake, stake, fee, failed int64) (int64, bool) {
	if stake != wantStake {
		return 0, false
	}
	return failedFeesPaid(want, held, fee, failed)
}

// failedFeesPaid explains a wallet holding held where its code-0 txs say
// want: what it lacks beyond them must be the fees of some of its failed
// txs (a failure in the message pays the fee, one in the ante handler
// does not), none of anything else. It returns how many paid, or false
// when no count of them explains the balance.
func failedFeesPaid(want, held, fee, failed int64) (int64, bool) {
	switch short := want - held; {
	case short == 0:
		return 0, true
	case fee > 0 && short > 0 && short%fee == 0 && short/fee <= failed:
		return short / fee, true
	}
	return 0, false
}

// settle resolves accepted txs that no block showed: it waits until every
// node's mempool is empty, then asks the tx index about each.
func (w *Workload) settle(ctx context.Context, rpcs []string, wait time.Duration) error {
	w.mu.Lock()
	open := map[load.Hash]*effect{}
	for h, e := range w.effects {
		if e.accepted && e.code < 0 {
			open[h] = e
		}
	}
	w.mu.Unlock()
	if len(open) == 0 {
		return nil
	}
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		busy := false
		for _, rpc := range rpcs {
			var r struct {
				Result struct {
					Total string `json:"total"`
				} `json:"result"`
			}
			if err := getJSON(ctx, w.http, rpc+"/num_unconfirmed_txs", &r); err != nil || r.Result.Total != "0" {
				busy = true
			}
		}
		if !busy {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	for h, e := range open {
		var r struct {
			Result *struct {
				Height   string `json:"height"`
				TxResult struct {
					Code uint32 `json:"code"`
				} `json:"tx_result"`
			} `json:"result"`
		}
		if err := getJSON(ctx, w.http, fmt.Sprintf("%s/tx?hash=0x%X", rpcs[0], h[:]), &r); err != nil {
			return err
		}
		w.mu.Lock()
		switch {
		case r.Result != nil:
			h, _ := strconv.ParseInt(r.Result.Height, 10, 64)
			e.code = int64(r.Result.TxResult.Code)
			w.height = max(w.height, h)
		case e.timeout > 0 && e.timeout < time.Now().UnixNano():
			w.expired++
		}
		w.mu.Unlock()
	}
	return nil
}

// WaitHeight waits until the node at rpc has committed height need and
// returns its latest height.
func WaitHeight(ctx context.Context, c *http.Client, rpc string, need int64, wait time.Duration) (int64, error) {
	deadline := time.Now().Add(wait)
	for {
		var r struct {
			Result struct {
				SyncInfo struct {
					Height string `json:"latest_block_height"`
				} `json:"sync_info"`
			} `json:"result"`
		}
		err := getJSON(ctx, c, rpc+"/status", &r)
		h, _ := strconv.ParseInt(r.Result.SyncInfo.Height, 10, 64)
		switch {
		case err == nil && h >= need && h > 0:
			return h, nil
		case time.Now().After(deadline):
			return 0, fmt.Errorf("%s is at height %d, short of %d where the run's last tx committed (%v)", rpc, h, need, err)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// getJSON reads a node's JSON answer of at most maxAnswer bytes.
func getJSON(ctx context.Context, c *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return err
	}
	name, _, _ := strings.Cut(url, "?")
	if len(b) > maxAnswer {
		return fmt.Errorf("%s answered more than %d MiB: not read", name, maxAnswer>>20)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
