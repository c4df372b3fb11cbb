package cosmos

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/load"
)

// The rewards a staking tx withdrew are read from its withdraw_rewards
// events, for the run's denom, by delegator; rewards to an address that
// is not the tx's sender (or not a wallet) are not credited, so a wallet
// holding what no event explains still mismatches.
func TestRewardsWithdrawnFromEvents(t *testing.T) {
	wallets := []Wallet{{Address: "wasm1alice"}, {Address: "wasm1bob"}}
	answers := map[string]string{
		// a delegate: rewards withdrawn from one validator, another denom beside
		"0x" + strings.Repeat("01", 32): `{"result":{"tx_result":{"events":[
			{"type":"coin_received","attributes":[{"key":"receiver","value":"wasm1alice"},{"key":"amount","value":"77stake"}]},
			{"type":"withdraw_rewards","attributes":[{"key":"amount","value":"77stake,5uatom"},{"key":"validator","value":"v1"},{"key":"delegator","value":"wasm1alice"}]}]}}}`,
		// a redelegate: from both validators; one paid nothing
		"0x" + strings.Repeat("02", 32): `{"result":{"tx_result":{"events":[
			{"type":"withdraw_rewards","attributes":[{"key":"amount","value":"10stake"},{"key":"validator","value":"v1"},{"key":"delegator","value":"wasm1alice"}]},
			{"type":"withdraw_rewards","attributes":[{"key":"amount","value":""},{"key":"validator","value":"v2"},{"key":"delegator","value":"wasm1alice"}]}]}}}`,
		// bob's tx, with a reward event naming alice: not bob's, not counted
		"0x" + strings.Repeat("03", 32): `{"result":{"tx_result":{"events":[
			{"type":"withdraw_rewards","attributes":[{"key":"amount","value":"500stake"},{"key":"delegator","value":"wasm1alice"}]}]}}}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answers[r.URL.Query().Get("hash")]
		if !ok {
			a = `{"error":{"message":"not found"}}`
		}
		fmt.Fprint(w, a)
	}))
	defer srv.Close()
	hash := func(b byte) (h load.Hash) {
		for i := range h {
			h[i] = b
		}
		return h
	}
	got, err := rewardsWithdrawn(context.Background(), srv.Client(), srv.URL,
		map[load.Hash]int32{hash(1): 0, hash(2): 0, hash(3): 1}, wallets, "stake")
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 87 || got[1] != 0 {
		t.Fatalf("rewards %v; want alice 87, bob 0", got)
	}
	// A committed tx the node has no record of is an error, not zero.
	if _, err := rewardsWithdrawn(context.Background(), srv.Client(), srv.URL, map[load.Hash]int32{hash(9): 0}, wallets, "stake"); err == nil {
		t.Fatal("a missing tx read as no rewards")
	}
}

func TestWithdrawalsRefuseWhatCannotBePlaced(t *testing.T) {
	ev := func(amount, delegator string) []event {
		e := event{Type: "withdraw_rewards"}
		e.Attributes = append(e.Attributes, struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		}{"amount", amount})
		if delegator != "" {
			e.Attributes = append(e.Attributes, struct {
				Key   string `json:"key"`
				Value string `json:"value"`
			}{"delegator", delegator})
		}
		return []event{e}
	}
	if _, err := withdrawals(ev("5stake", ""), "stake"); err == nil {
		t.Error("rewards with no delegator were taken")
	}
	if _, err := withdrawals(ev("lots", "a"), "stake"); err == nil {
		t.Error("a malformed amount was taken")
	}
	if _, err := withdrawals(ev("99999999999999999999999stake", "a"), "stake"); err == nil {
		t.Error("an amount over uint64 was taken")
	}
	if got, err := withdrawals(ev("5uatom", "a"), "stake"); err != nil || got["a"] != 0 {
		t.Errorf("another denom: %v %v", got, err)
	}
}
