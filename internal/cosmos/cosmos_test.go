package cosmos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/scenario"
)

// genesisOf is an SDK genesis with one validator account already funded.
const genesisOf = `{"chain_id":"c","app_state":{"auth":{"params":{},"accounts":[
 {"@type":"/cosmos.auth.v1beta1.BaseAccount","address":"cosmos1v","pub_key":null,"account_number":"0","sequence":"0"},
 {"@type":"/cosmos.auth.v1beta1.BaseAccount","address":"cosmos1w","pub_key":null,"account_number":"0","sequence":"0"}]},
 "bank":{"params":{},"balances":[{"address":"cosmos1v","coins":[{"denom":"stake","amount":"100"}]},{"address":"cosmos1w","coins":[{"denom":"stake","amount":"100"}]}],
 "supply":[{"denom":"stake","amount":"200"}],"denom_metadata":[],"send_enabled":[]},"staking":{"x":1}}}`

func TestFundGenesis(t *testing.T) {
	path := filepath.Join(t.TempDir(), "genesis.json")
	if err := os.WriteFile(path, []byte(genesisOf), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Wallets("s", 3, "cosmos", 0)
	if err != nil {
		t.Fatal(err)
	}
	f, err := FundGenesis(path, ws, "stake", 1_000_000_000_000_000_000) // past int64 x 3: the supply is a big number
	if err != nil {
		t.Fatal(err)
	}
	if f.Wallets != 3 || f.Bytes == 0 {
		t.Fatalf("funding = %+v", f)
	}
	var g struct {
		ChainID  string `json:"chain_id"`
		AppState struct {
			Auth struct {
				Accounts []map[string]any `json:"accounts"`
			} `json:"auth"`
			Bank struct {
				Balances []struct {
					Address string `json:"address"`
				} `json:"balances"`
				Supply []struct{ Denom, Amount string } `json:"supply"`
			} `json:"bank"`
			Staking map[string]int `json:"staking"`
		} `json:"app_state"`
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	a := g.AppState.Auth.Accounts
	if len(a) != 5 || a[0]["account_number"] != "0" || a[1]["account_number"] != "1" || a[4]["account_number"] != "4" || a[4]["address"] != ws[2].Address {
		t.Fatalf("accounts = %v", a)
	}
	if ws[0].Number != 2 || ws[2].Number != 4 {
		t.Fatalf("wallet numbers %d, %d; want 2, 4", ws[0].Number, ws[2].Number)
	}
	if len(g.AppState.Bank.Balances) != 5 || g.AppState.Bank.Supply[0].Amount != "3000000000000000200" {
		t.Fatalf("bank = %+v", g.AppState.Bank)
	}
	if g.ChainID != "c" || g.AppState.Staking["x"] != 1 {
		t.Fatal("other genesis fields were not kept")
	}
	if err := os.WriteFile(path, []byte(`{"app_state":{"kvstore":{}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FundGenesis(path, ws, "stake", 1); err == nil || !strings.Contains(err.Error(), "is this a Cosmos SDK chain's genesis?") {
		t.Fatalf("a genesis without auth: %v", err)
	}
}

func TestWalletsAreDeterministic(t *testing.T) {
	a, _ := Wallets("seed", 50, "cosmos", 10)
	b, _ := Derive("seed", 37, "cosmos")
	if a[37].Address != b.Address || a[37].Number != 47 || !strings.HasPrefix(b.Address, "cosmos1") {
		t.Fatalf("wallet 37: %s #%d vs %s", a[37].Address, a[37].Number, b.Address)
	}
	if c, _ := Derive("other", 37, "cosmos"); c.Address == b.Address {
		t.Fatal("another seed gives the same wallet")
	}
}

func testWorkload(t testing.TB, n int, live bool) *Workload {
	ws, err := Wallets("w", n, "cosmos", 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorkload(WorkloadConfig{Kind: KindSend, Live: live, ChainID: "c", Denom: "stake", Mix: []MixEntry{{Msg: MsgSendKind, Weight: 1, Amount: 1}}, GasLimit: 100000, Fee: 10,
		Funded: 1000, Senders: load.Uniform{N: n, Seed: 1}, Receivers: load.Uniform{N: n, Seed: 2}, Targets: 3}, ws)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestSequencesCarryOver checks that each wallet's txs get consecutive
// sequences, that unsent txs give theirs back at the next phase, and that
// a refused last tx does too.
func TestSequencesCarryOver(t *testing.T) {
	w := testWorkload(t, 5, false)
	if err := w.Prepare(context.Background(), 100); err != nil {
		t.Fatal(err)
	}
	seen := map[int32]uint64{}
	for seq := uint64(0); seq < 60; seq++ {
		tx := appendTx(t, w, seq)
		ref := w.seqs[seq]
		if len(tx) == 0 || ref.nonce != seen[ref.from] {
			t.Fatalf("tx %d of wallet %d has sequence %d, want %d", seq, ref.from, ref.nonce, seen[ref.from])
		}
		seen[ref.from]++
		if got := w.Route(seq); got != int(ref.from)%3 {
			t.Fatalf("tx %d routed to %d, its wallet %d to %d", seq, got, ref.from, ref.from%3)
		}
		w.Sent(seq, load.Accepted, "")
	}
	// The next phase starts where the 60 sent txs left each wallet.
	if err := w.Prepare(context.Background(), 10); err != nil {
		t.Fatal(err)
	}
	for i := range w.state {
		if w.state[i].next != seen[int32(i)]+countFrom(w.seqs, int32(i)) {
			t.Fatalf("wallet %d: next %d after the first phase's %d txs and %d new", i, w.state[i].next, seen[int32(i)], countFrom(w.seqs, int32(i)))
		}
	}
	// A refused tx that was its wallet's last gives its sequence back.
	last := w.seqs[9]
	before := w.state[last.from].next
	appendTx(t, w, 9)
	w.Sent(9, load.Rejected, "mempool is full")
	if isLast := before == last.nonce+1; isLast && w.state[last.from].next != last.nonce {
		t.Fatalf("refused last tx: next %d, want %d", w.state[last.from].next, last.nonce)
	}
	if w.Stats(0).Signed != 110 {
		t.Fatalf("signed %d, want 110", w.Stats(0).Signed)
	}
}

func countFrom(refs []txRef, from int32) uint64 {
	n := uint64(0)
	for _, r := range refs {
		if r.from == from {
			n++
		}
	}
	return n
}

// TestLiveRepairsFromTheNodesWord checks that live mode takes the
// sequence a node says it expected.
func TestLiveRepairsFromTheNodesWord(t *testing.T) {
	w := testWorkload(t, 4, true)
	if err := w.Prepare(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	appendTx(t, w, 0)
	from := w.seqs[0].from
	w.Sent(0, load.Rejected, "CheckTx code 32: account sequence mismatch, expected 7, got 0: incorrect account sequence")
	if got := w.state[from].next; got != 7 {
		t.Fatalf("next = %d after the node expected 7", got)
	}
	if w.Stats(0).Repairs != 1 {
		t.Fatalf("repairs = %d", w.Stats(0).Repairs)
	}
}

// TestLiveSkipsPoorSenders: a sender whose counted balance cannot pay is
// passed over.
func TestLiveSkipsPoorSenders(t *testing.T) {
	w := testWorkload(t, 4, true)
	for i := range w.state {
		w.state[i].spent = 995 // 1000 funded, a tx costs 11
	}
	w.state[2].spent = 0
	for seq := uint64(0); seq < 20; seq++ {
		appendTx(t, w, seq)
		if f := w.seqs[seq].from; f != 2 && w.state[f].spent > 1000 {
			t.Fatalf("tx %d sent from wallet %d, which cannot pay", seq, f)
		}
		w.Sent(seq, load.Accepted, "")
	}
	if w.Stats(0).SkippedPoor == 0 {
		t.Fatal("no sender was passed over")
	}
}

func mixWorkload(t testing.TB, cfg WorkloadConfig) *Workload {
	t.Helper()
	ws, err := Wallets("w", 8, "cosmos", 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Kind, cfg.ChainID, cfg.Denom, cfg.GasLimit, cfg.Fee, cfg.Funded = KindMix, "c", "stake", 100000, 10, 1_000_000
	cfg.Senders, cfg.Receivers = load.Uniform{N: 8, Seed: 1}, load.Uniform{N: 8, Seed: 2}
	cfg.Validators = []string{"cosmosvaloper1a", "cosmosvaloper1b", "cosmosvaloper1c"}
	w, err := NewWorkload(cfg, ws)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestMixDrawsByWeight: the kinds of a mix's messages come in their
// weights' proportions, the same for the same seed, and an undelegate or
// redelegate comes only from a wallet whose earlier txs staked enough.
func TestMixDrawsByWeight(t *testing.T) {
	mix := []MixEntry{{Msg: MsgSendKind, Weight: 70, Amount: 1}, {Msg: MsgMultiSendKind, Weight: 20, Amount: 1, Outputs: 3},
		{Msg: MsgDelegateKind, Weight: 6, Amount: 50, Validator: -1}, {Msg: MsgUndelegateKind, Weight: 2, Amount: 50, Validator: -1},
		{Msg: MsgRedelegateKind, Weight: 2, Amount: 50, Validator: -1}}
	w := mixWorkload(t, WorkloadConfig{Mix: mix, MsgsPerTx: 3, MixSeed: 9})
	if err := w.Prepare(context.Background(), 20000); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	bonded := map[int32]int64{}
	for _, r := range w.seqs {
		if len(r.eff.msgs) != 3 {
			t.Fatalf("a tx of %d messages, want 3", len(r.eff.msgs))
		}
		for _, m := range r.eff.msgs {
			k := w.cfg.Mix[m.kind]
			count[k.Msg]++
			switch k.Msg {
			case MsgMultiSendKind:
				if len(m.to) != 3 {
					t.Fatalf("multisend to %d", len(m.to))
				}
			case MsgDelegateKind:
				bonded[r.from] += 50
			case MsgUndelegateKind, MsgRedelegateKind:
				if bonded[r.from] < 50 {
					t.Fatalf("wallet %d %ss 50 with %d staked", r.from, k.Msg, bonded[r.from])
				}
				bonded[r.from] -= 50
				if want := r.from % 3; m.val != want || (k.Msg == MsgRedelegateKind && m.dst != (want+1)%3) {
					t.Fatalf("wallet %d stakes with %d -> %d, want %d", r.from, m.val, m.dst, want)
				}
			}
		}
	}
	total := 60000.0
	for _, m := range []struct {
		msg  string
		want float64
	}{{MsgSendKind, 0.70}, {MsgMultiSendKind, 0.20}} {
		if got := float64(count[m.msg]) / total; math.Abs(got-m.want) > 0.01 {
			t.Fatalf("%s: share %.3f, want %.2f (%v)", m.msg, got, m.want, count)
		}
	}
	// Staking: 10 % in all; undelegates and redelegates a wallet cannot
	// cover became delegates, so delegates are at least their share.
	if staked := float64(count[MsgDelegateKind]+count[MsgUndelegateKind]+count[MsgRedelegateKind]) / total; math.Abs(staked-0.10) > 0.01 || count[MsgDelegateKind] < count[MsgUndelegateKind]+count[MsgRedelegateKind] {
		t.Fatalf("staking kinds %v", count)
	}
	if count[MsgUndelegateKind] == 0 || count[MsgRedelegateKind] == 0 {
		t.Fatalf("no undelegate or redelegate was drawn: %v", count)
	}
	// The same seed draws the same kinds; another seed others.
	again := mixWorkload(t, WorkloadConfig{Mix: mix, MsgsPerTx: 3, MixSeed: 9})
	other := mixWorkload(t, WorkloadConfig{Mix: mix, MsgsPerTx: 3, MixSeed: 10})
	same, diff := 0, 0
	for n := uint64(0); n < 1000; n++ {
		if again.draw(n) == w.draw(n) {
			same++
		}
		if other.draw(n) != w.draw(n) {
			diff++
		}
	}
	if same != 1000 || diff == 0 {
		t.Fatalf("same seed: %d of 1000 equal; other seed: %d differ", same, diff)
	}
	// What a tx costs its sender and stakes.
	e := &effect{msgs: []msgEffect{{kind: 0, to: []int32{1}}, {kind: 1, to: []int32{1, 2, 3}}, {kind: 2}, {kind: 3}, {kind: 4}}}
	if c, b := w.cost(e), w.bond(e); c != 1+3+50+10 || b != 50-50-50 {
		t.Fatalf("cost %d bond %d, want 64 and -50", c, b)
	}
}

// TestMixRefusals: a mix that cannot work is refused with the reason.
func TestMixRefusals(t *testing.T) {
	ws, _ := Wallets("w", 4, "cosmos", 0)
	base := WorkloadConfig{Kind: KindMix, Denom: "stake", Validators: []string{"v0"}}
	for _, c := range []struct {
		mix  []MixEntry
		want string
	}{
		{[]MixEntry{{Msg: MsgUndelegateKind, Weight: 1, Amount: 1}}, "need delegate in the mix"},
		{[]MixEntry{{Msg: MsgDelegateKind, Weight: 1}, {Msg: MsgRedelegateKind, Weight: 1}}, "redelegate needs 2 validators"},
		{[]MixEntry{{Msg: MsgSendKind, Weight: 1}, {Msg: MsgSendKind, Weight: 2}}, "twice"},
		{[]MixEntry{{Msg: MsgSendKind, Weight: math.NaN()}}, "weight"},
		{[]MixEntry{{Msg: "vote", Weight: 1}}, "unknown message kind"},
		{[]MixEntry{{Msg: MsgDelegateKind, Weight: 1, Validator: 3}}, "validator 3 of 1"},
		{nil, "1 to 255 message kinds"},
	} {
		cfg := base
		cfg.Mix = c.mix
		if _, err := NewWorkload(cfg, ws); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.mix, err, c.want)
		}
	}
}

// TestUnorderedTakesNoSequence: unordered txs keep no sequence, take no
// gate (a wallet has many in flight) and give back only what they spent
// when refused.
func TestUnorderedTakesNoSequence(t *testing.T) {
	w := mixWorkload(t, WorkloadConfig{Mix: []MixEntry{{Msg: MsgSendKind, Weight: 1, Amount: 5}}, Unordered: true, Timeout: time.Minute})
	if err := w.Prepare(context.Background(), 40); err != nil {
		t.Fatal(err)
	}
	for seq := uint64(0); seq < 40; seq++ {
		appendTx(t, w, seq) // would block on a wallet's second tx if gated
		if n := w.seqs[seq].nonce; n != 0 {
			t.Fatalf("unordered tx %d has sequence %d", seq, n)
		}
	}
	from := w.seqs[0].from
	before := w.state[from].spent
	w.Sent(0, load.Rejected, "unordered transaction has a timeout_timestamp that has already passed")
	if got := w.state[from].spent; got != before-15 || w.state[from].next != 0 || w.state[from].stale {
		t.Fatalf("after a refusal: spent %d (was %d), next %d, stale %v", got, before, w.state[from].next, w.state[from].stale)
	}
	// Their timeouts differ (the chain tells unordered txs apart by
	// sender and timeout) and lie Timeout ahead.
	var b Builder
	now := time.Now()
	seen := map[int64]bool{}
	for memo := int64(1); memo <= 50; memo++ {
		tx, err := w.sign(&b, w.seqs[0], memo)
		if err != nil {
			t.Fatal(err)
		}
		ts := timeoutOf(t, tx)
		if seen[ts] || time.Unix(0, ts).Before(now.Add(time.Minute-time.Second)) || time.Unix(0, ts).After(now.Add(time.Minute+2*time.Second)) {
			t.Fatalf("timeout %v (now %v), seen before: %v", time.Unix(0, ts), now, seen[ts])
		}
		seen[ts] = true
	}
}

// timeoutOf reads an unordered tx's timeout, Unix ns.
func timeoutOf(t *testing.T, tx []byte) int64 {
	var body []byte
	_ = Fields(tx, func(num protowire.Number, _ uint64, b []byte) {
		if num == 1 {
			body = b
		}
	})
	var ts int64
	_ = Fields(body, func(num protowire.Number, v uint64, b []byte) {
		if num == 4 && v != 1 {
			t.Fatal("not unordered")
		}
		if num == 5 {
			_ = Fields(b, func(num protowire.Number, v uint64, _ []byte) {
				if num == 1 {
					ts += int64(v) * 1e9
				} else {
					ts += int64(v)
				}
			})
		}
	})
	return ts
}

func BenchmarkSign(b *testing.B) {
	ws, _ := Wallets("b", 2, "cosmos", 0)
	spec := TxSpec{ChainID: "c", Msgs: One(URLMsgSend, MsgSend(nil, ws[0].Address, ws[1].Address, Coin{"stake", 1})), Fee: Coin{"stake", 200}, GasLimit: 100000}
	var x Builder
	var out []byte
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out, _ = x.Append(out[:0], &spec, &ws[0], uint64(i))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}

// BenchmarkPregenerate100k signs 100,000 txs the way a phase does, on
// every core.
func BenchmarkPregenerate100k(b *testing.B) {
	w := testWorkload(b, 10_000, false)
	for b.Loop() {
		if err := w.Prepare(context.Background(), 100_000); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(100_000*float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}

// BenchmarkGenesis100k derives and funds 100,000 wallets in a genesis.
func BenchmarkGenesis100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "genesis.json")
	var size int64
	for b.Loop() {
		if err := os.WriteFile(path, []byte(genesisOf), 0o644); err != nil {
			b.Fatal(err)
		}
		ws, err := Wallets("g", 100_000, "cosmos", 0)
		if err != nil {
			b.Fatal(err)
		}
		f, err := FundGenesis(path, ws, "stake", 1_000_000)
		if err != nil {
			b.Fatal(err)
		}
		size = f.Bytes
	}
	b.ReportMetric(float64(size)/1e6, "MB")
}

// FuzzQueryAnswers feeds the protobuf readers of query answers whatever a
// node might send: they must return an error or a value, never panic.
func FuzzQueryAnswers(f *testing.F) {
	coin := appendCoin(nil, 1, Coin{Denom: "stake", Amount: 42})
	f.Add(coin)
	base := appendUint(appendUint(appendString(nil, 1, "cosmos1x"), 3, 7), 4, 9)
	acct := appendMessage(nil, 1, func(b []byte) []byte {
		b = appendString(b, 1, "/cosmos.auth.v1beta1.BaseAccount")
		return appendMessage(b, 2, func(b []byte) []byte { return append(b, base...) })
	})
	f.Add(acct)
	f.Add([]byte{0x0a, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = coinIn(b)
		_ = Fields(b, func(num protowire.Number, v uint64, bs []byte) {
			_ = Fields(bs, func(protowire.Number, uint64, []byte) {})
		})
	})
}

func TestQueryAnswersDecode(t *testing.T) {
	if v, err := coinIn(appendCoin(nil, 1, Coin{Denom: "stake", Amount: 42})); err != nil || v != 42 {
		t.Fatalf("coin = %d, %v", v, err)
	}
	if _, err := coinIn([]byte{0x0a, 0xff}); err == nil {
		t.Fatal("a truncated answer decoded")
	}
}

// TestPregeneratedCache: a second workload of the same config reads the
// first one's txs back instead of signing them, byte for byte the same; a
// different sender seed misses the cache.
func TestPregeneratedCache(t *testing.T) {
	dir := t.TempDir()
	var logs []string
	mk := func(seed uint64) *Workload {
		w := testWorkload(t, 20, false)
		w.cfg.CacheDir, w.cfg.Senders = dir, load.Uniform{N: 20, Seed: seed}
		w.cfg.Logf = func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }
		if err := w.Prepare(context.Background(), 500); err != nil {
			t.Fatal(err)
		}
		return w
	}
	a, b := mk(1), mk(1)
	if !slices.EqualFunc(a.pre, b.pre, bytes.Equal) || !strings.Contains(strings.Join(logs, "\n"), "read 500 pregenerated txs") {
		t.Fatalf("second workload did not read the cache: %v", logs)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "txs-*.bin")); len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	mk(2)
	if files, _ := filepath.Glob(filepath.Join(dir, "txs-*.bin")); len(files) != 2 {
		t.Fatalf("another seed should write its own cache: %v", files)
	}
}

// appendTx makes tx seq of w, failing t on an error.
func appendTx(t *testing.T, w *Workload, seq uint64) []byte {
	t.Helper()
	tx, err := w.Append(context.Background(), nil, seq)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// A wallet's next tx waits while its previous one has no answer, and gives
// up when the context ends (it does not block the generator forever).
func TestAppendWaitsWithAContext(t *testing.T) {
	w := testWorkload(t, 5, false)
	if err := w.Prepare(context.Background(), 50); err != nil {
		t.Fatal(err)
	}
	appendTx(t, w, 0)
	next := uint64(0)
	for seq := uint64(1); seq < 50; seq++ {
		if w.seqs[seq].from == w.seqs[0].from {
			next = seq
			break
		}
	}
	if next == 0 {
		t.Fatal("no second tx of the first wallet")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := w.Append(ctx, nil, next); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Append of the wallet's next tx = %v; want it to wait, then the context's error", err)
	}
	w.Sent(0, load.Accepted, "")
	if _, err := w.Append(context.Background(), nil, next); err != nil {
		t.Fatalf("after the answer: %v", err)
	}
}

// A wallet's balance is explained by its failed txs' fees only when it
// lacks a whole number of fees, no more than it had failed txs; anything
// else is a mismatch.
func TestFailedFeesPaid(t *testing.T) {
	for _, tc := range []struct {
		want, held, fee, failed, paid int64
		ok                            bool
	}{
		{1000, 1000, 5, 0, 0, true},  // nothing failed, nothing lacking
		{1000, 990, 5, 3, 2, true},   // two of three failed txs paid
		{1000, 985, 5, 3, 3, true},   // all three paid
		{1000, 980, 5, 3, 0, false},  // more than its failed txs could pay
		{1000, 993, 5, 3, 0, false},  // not a whole number of fees
		{1000, 1005, 5, 3, 0, false}, // more than it should hold
		{1000, 995, 0, 3, 0, false},  // no fee: nothing may be lacking
	} {
		paid, ok := failedFeesPaid(tc.want, tc.held, tc.fee, tc.failed)
		if paid != tc.paid || ok != tc.ok {
			t.Errorf("failedFeesPaid(%+v) = %d, %v", tc, paid, ok)
		}
	}
}

// TestWalletMatches: a wallet whose delegations differ from what its
// committed txs staked is a mismatch, however its balance adds up.
func TestWalletMatches(t *testing.T) {
	if paid, ok := walletMatches(1000, 990, 300, 300, 5, 2); !ok || paid != 2 {
		t.Errorf("stake as its txs say, two failed fees: %d, %v", paid, ok)
	}
	if _, ok := walletMatches(1000, 1000, 300, 200, 5, 0); ok {
		t.Error("100 less delegated than its txs staked: matched")
	}
	if _, ok := walletMatches(1000, 1000, 0, 1, 5, 0); ok {
		t.Error("stake its txs never made: matched")
	}
}

// The fee a node asks for is read from its refusal, in its denom only.
func TestRequiredFee(t *testing.T) {
	for _, tc := range []struct {
		log, denom string
		want       uint64
		ok         bool
	}{
		{"insufficient fees; got:  required: 12345stake: insufficient fee", "stake", 12345, true},
		{"insufficient fees; got: 1uatom required: 10uatom,200stake: insufficient fee", "stake", 200, true},
		{"insufficient fees; got: 1uatom required: 10uatom: insufficient fee", "stake", 0, false},
		{"insufficient fees; got: 1ibc/AB12 required: 77ibc/AB12", "ibc/AB12", 77, true},
		{"out of gas", "stake", 0, false},
		{"required: 99999999999999999999999stake", "stake", 0, false},
	} {
		got, ok := requiredFee(tc.log, tc.denom)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%q: %d %v; want %d %v", tc.log, got, ok, tc.want, tc.ok)
		}
	}
}

// A set-up hook is a path relative to the scenario file, checked as an
// executable regular file; init's extra arguments each a line.
func TestSetupHookChecked(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hook.sh"), []byte("#!/bin/sh\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	text := "[testnet]\nchain = \"cosmos\"\n[testnet.cosmos]\nsetup_hook = %q\ninit_args = [%q]\n[workload]\nkind = \"cosmos-send\"\n"
	for _, c := range []struct{ hook, arg, want string }{
		{"hook.sh", "--x", "chmod +x"},
		{"adir", "--x", "not a regular file"},
		{"none.sh", "--x", "no such file"},
		{"", "a\nb", "init_args"},
	} {
		_, err := scenario.Parse(filepath.Join(dir, "s.toml"), []byte(fmt.Sprintf(text, c.hook, c.arg)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("hook %q, arg %q: %v; want %q", c.hook, c.arg, err, c.want)
		}
	}
	os.Chmod(filepath.Join(dir, "hook.sh"), 0o755)
	if s, err := scenario.Parse(filepath.Join(dir, "s.toml"), []byte(fmt.Sprintf(text, "hook.sh", "--x"))); err != nil || HookPath(s) != filepath.Join(dir, "hook.sh") {
		t.Errorf("an executable hook: %v", err)
	}
}
