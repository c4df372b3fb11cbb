package cosmos

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strconv"
)

// ModuleAddress is the address of an SDK module account (fee_collector,
// bonded_tokens_pool, ...): the first 20 bytes of SHA-256 of its name.
func ModuleAddress(prefix, name string) string {
	sum := sha256.Sum256([]byte(name))
	addr, _ := Bech32(prefix, sum[:20])
	return addr
}

// Funding is what FundGenesis did.
type Funding struct {
	Wallets int
	Each    uint64
	Denom   string
	Bytes   int64 // size of the genesis file written
}

// FundGenesis adds wallets to the genesis file at path: a BaseAccount each
// in app_state.auth.accounts (numbers after the accounts already there,
// which are renumbered 0.. in their order so that no two clash) and each
// amount of denom in app_state.bank.balances; the supply of denom grows by
// the sum. It sets the wallets' Number to what the chain will assign.
func FundGenesis(path string, wallets []Wallet, denom string, each uint64) (Funding, error) {
	addrs := make([]string, len(wallets))
	for i, w := range wallets {
		addrs[i] = w.Address
	}
	first, size, err := FundAccounts(path, addrs, denom, new(big.Int).SetUint64(each))
	if err != nil {
		return Funding{}, err
	}
	for i := range wallets {
		wallets[i].Number = first + uint64(i)
	}
	return Funding{Wallets: len(wallets), Each: each, Denom: denom, Bytes: size}, nil
}

// FundAccounts adds an account holding each of denom at every address of
// addrs (bech32) to the genesis file at path, as FundGenesis does, and
// returns the first new account's number and the file's new size.
func FundAccounts(path string, addrs []string, denom string, each *big.Int) (first uint64, size int64, err error) {
	fail := func(err error) (uint64, int64, error) { return 0, 0, err }
	raw, err := os.ReadFile(path)
	if err != nil {
		return fail(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	var app map[string]json.RawMessage
	if err := json.Unmarshal(doc["app_state"], &app); err != nil {
		return fail(fmt.Errorf("%s: app_state: %w", path, err))
	}
	var auth, bank map[string]json.RawMessage
	if err := json.Unmarshal(app["auth"], &auth); err != nil || auth == nil {
		return fail(fmt.Errorf("%s: no app_state.auth: is this a Cosmos SDK chain's genesis?", path))
	}
	if err := json.Unmarshal(app["bank"], &bank); err != nil || bank == nil {
		return fail(fmt.Errorf("%s: no app_state.bank: is this a Cosmos SDK chain's genesis?", path))
	}
	var accounts []map[string]any
	if err := json.Unmarshal(auth["accounts"], &accounts); err != nil {
		return fail(fmt.Errorf("%s: app_state.auth.accounts: %w", path, err))
	}
	for i, a := range accounts {
		a["account_number"] = strconv.Itoa(i)
	}
	first = uint64(len(accounts))
	type coin struct {
		Denom  string `json:"denom"`
		Amount string `json:"amount"`
	}
	type balance struct {
		Address string `json:"address"`
		Coins   []coin `json:"coins"`
	}
	var balances []balance
	if err := json.Unmarshal(bank["balances"], &balances); err != nil {
		return fail(fmt.Errorf("%s: app_state.bank.balances: %w", path, err))
	}
	var supply []coin
	if err := json.Unmarshal(bank["supply"], &supply); err != nil {
		return fail(fmt.Errorf("%s: app_state.bank.supply: %w", path, err))
	}
	amount := each.String()
	for i, addr := range addrs {
		accounts = append(accounts, map[string]any{
			"@type":          "/cosmos.auth.v1beta1.BaseAccount",
			"address":        addr,
			"pub_key":        nil,
			"account_number": strconv.FormatUint(first+uint64(i), 10),
			"sequence":       "0",
		})
		balances = append(balances, balance{Address: addr, Coins: []coin{{Denom: denom, Amount: amount}}})
	}
	add := new(big.Int).Mul(each, big.NewInt(int64(len(addrs))))
	found := false
	for i := range supply {
		if supply[i].Denom == denom {
			old, ok := new(big.Int).SetString(supply[i].Amount, 10)
			if !ok {
				return fail(fmt.Errorf("%s: supply of %s is %q", path, denom, supply[i].Amount))
			}
			supply[i].Amount = old.Add(old, add).String()
			found = true
		}
	}
	if !found {
		// The SDK wants the supply sorted by denom.
		supply = append(supply, coin{Denom: denom, Amount: add.String()})
		for i := len(supply) - 1; i > 0 && supply[i].Denom < supply[i-1].Denom; i-- {
			supply[i], supply[i-1] = supply[i-1], supply[i]
		}
	}
	set := func(m map[string]json.RawMessage, key string, v any) {
		if err == nil {
			m[key], err = json.Marshal(v)
		}
	}
	set(auth, "accounts", accounts)
	set(bank, "balances", balances)
	set(bank, "supply", supply)
	set(app, "auth", auth)
	set(app, "bank", bank)
	set(doc, "app_state", app)
	if err != nil {
		return fail(err)
	}
	out, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return fail(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return fail(err)
	}
	return first, int64(len(out)), nil
}
